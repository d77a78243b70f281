package rag

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

const planMD = `# Plan

Intro to the plan.

## Goals

### Budget

Spend less on zeppelins
than last year.

## Risks

Weather over the North Sea.
`

func TestIndexAndSearchCitesFileHeadingsAndLines(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes")
	write(t, filepath.Join(notes, "plan.md"), planMD)
	write(t, filepath.Join(notes, "shopping.txt"), "Buy apples and pears.\n\nAlso bread.\n")
	write(t, filepath.Join(notes, "page.html"), "<html><head><title>T</title><script>var zeppelin=1</script></head>\n<body><h1>Airships</h1>\n<p>Hindenburg was a\nzeppelin.</p></body></html>\n")
	ix := openIndex(t, openDB(t, dir), nil)
	ps := index(t, ix, notes)
	last := ps[len(ps)-1]
	if last.Phase != "done" || last.Total != 3 || last.Done != 3 || last.Failed != 0 {
		t.Fatalf("final progress %+v", last)
	}

	hits := search(t, ix, "zeppelins budget", 5)
	if len(hits) == 0 {
		t.Fatal("no hits")
	}
	h := hits[0]
	if h.Name != "notes/plan.md" || !reflect.DeepEqual(h.HeadingPath, []string{"Plan", "Goals", "Budget"}) || h.StartLine != 5 || h.EndLine != 10 {
		t.Fatalf("top hit %+v; want notes/plan.md › Plan › Goals › Budget lines 5-10", h)
	}
	// The built-in embedder takes no part in the default ranking (its
	// vectors lower it: docs/BENCHMARKS-NOTEBOOK.md).
	if h.LexicalRank != 1 || h.VectorRank != 0 || !strings.Contains(h.Snippet, "zeppelins") || h.Score <= 0 || !reflect.DeepEqual(h.Matched, []string{"zeppelins", "budget"}) {
		t.Errorf("top hit ranks/snippet %+v", h)
	}
	if h := hits[1]; h.Name != "notes/page.html" || !reflect.DeepEqual(h.HeadingPath, []string{"Airships"}) || h.StartLine != 2 || h.EndLine != 4 ||
		h.Snippet != "Airships Hindenburg was a zeppelin." || h.LexicalRank != 2 {
		t.Errorf("second hit %+v, want the HTML page's heading and paragraph, lines 2-4", h)
	}
	for _, h := range search(t, ix, "var", 10) {
		if strings.Contains(h.Snippet, "var") {
			t.Errorf("script content was indexed: %+v", h)
		}
	}
	docs := docStatus(t, ix)
	for _, name := range []string{"plan.md", "shopping.txt", "page.html"} {
		if d := docs[name]; d.Status != Done || d.Chunks == 0 {
			t.Errorf("%s: %+v", name, d)
		}
	}
	if got := ix.Embedder(); !strings.Contains(got, "offline") {
		t.Errorf("Embedder() = %q, want the offline one named", got)
	}
}

func TestUnsupportedAndBinaryFilesAreRefusedWithAReason(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "docs")
	write(t, filepath.Join(root, "report.docx"), "PK\x03\x04whatever")
	write(t, filepath.Join(root, "fake.txt"), "\x00\x01\x02binary\x00\x00")
	write(t, filepath.Join(root, "fake.pdf"), "hello, I am not a PDF")
	write(t, filepath.Join(root, "ok.md"), "# fine\n\ntext\n")
	ix := openIndex(t, openDB(t, dir), nil)
	index(t, ix, root)
	docs := docStatus(t, ix)
	for name, want := range map[string]struct{ status, reason string }{
		"report.docx": {Skipped, "Quire does not read .docx files"},
		"fake.txt":    {Failed, "binary content"},
		"fake.pdf":    {Failed, "not a PDF"},
	} {
		d := docs[name]
		if d.Status != want.status || !strings.Contains(d.Reason, want.reason) || d.Chunks != 0 {
			t.Errorf("%s: status %s reason %q, want %s with %q", name, d.Status, d.Reason, want.status, want.reason)
		}
	}
	if docs["ok.md"].Status != Done {
		t.Errorf("ok.md: %+v", docs["ok.md"])
	}
}

func TestUnchangedRootIsSkippedWithoutParsing(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "notes")
	for _, n := range []string{"a.md", "b.md", "c.txt"} {
		write(t, filepath.Join(root, n), "# "+n+"\n\nbody of "+n+"\n")
	}
	ix := openIndex(t, openDB(t, dir), nil)
	index(t, ix, root)
	if got := ix.parses.Load(); got != 3 {
		t.Fatalf("first pass parsed %d files, want 3", got)
	}
	index(t, ix, root)
	index(t, ix) // all watched roots
	if got := ix.parses.Load(); got != 3 {
		t.Fatalf("no-op passes parsed %d more files", got-3)
	}
	// Touching a file without changing it costs a hash, not a parse.
	age(t, filepath.Join(root, "b.md"), 0)
	index(t, ix, root)
	if got := ix.parses.Load(); got != 3 {
		t.Fatalf("a touched but unchanged file was parsed again")
	}
}

func TestOnlyTheChangedFileIsReindexedAndDeletedFilesAreDropped(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "notes")
	write(t, filepath.Join(root, "keep.md"), "# Keep\n\nalpha bravo\n")
	write(t, filepath.Join(root, "edit.md"), "# Edit\n\ncharlie delta\n")
	write(t, filepath.Join(root, "gone.md"), "# Gone\n\nepsilon foxtrot\n")
	db := openDB(t, dir)
	ix := openIndex(t, db, nil)
	index(t, ix, root)
	chunksBefore := count(t, db, `SELECT count(*) FROM rag_chunks`)
	keepID := count(t, db, `SELECT min(id) FROM rag_chunks WHERE file_id = (SELECT id FROM rag_files WHERE path LIKE '%keep.md')`)

	write(t, filepath.Join(root, "edit.md"), "# Edit\n\ngolf hotel\n")
	if err := os.Remove(filepath.Join(root, "gone.md")); err != nil {
		t.Fatal(err)
	}
	parsed := ix.parses.Load()
	index(t, ix, root)
	if got := ix.parses.Load() - parsed; got != 1 {
		t.Fatalf("parsed %d files, want only the edited one", got)
	}
	if got := count(t, db, `SELECT min(id) FROM rag_chunks WHERE file_id = (SELECT id FROM rag_files WHERE path LIKE '%keep.md')`); got != keepID {
		t.Errorf("the unchanged file's chunk was rewritten (%d → %d)", keepID, got)
	}
	if found(t, ix, "charlie") || !found(t, ix, "golf") {
		t.Error("the edited file's old text is still found, or its new text is not")
	}
	for _, q := range []string{"epsilon", "foxtrot"} {
		for _, h := range search(t, ix, q, 10) {
			if strings.HasSuffix(h.Path, "gone.md") {
				t.Errorf("deleted file still found for %q: %+v", q, h)
			}
		}
	}
	if got := count(t, db, `SELECT count(*) FROM rag_fts WHERE rag_fts MATCH 'epsilon'`); got != 0 {
		t.Errorf("deleted file still in FTS (%d rows)", got)
	}
	if got := count(t, db, vectorRows+`SELECT count(*) FROM rag_vectors`); got != chunksBefore-1 {
		t.Errorf("%d vectors stored, want %d", got, chunksBefore-1)
	}
	if got := inMemory(t, ix); got != chunksBefore-1 {
		t.Errorf("%d vectors in memory, want %d", got, chunksBefore-1)
	}
	if _, ok := docStatus(t, ix)["gone.md"]; ok {
		t.Error("deleted file still listed")
	}
}

func TestFileChangedDuringIndexingIsPickedUpNextPass(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "notes")
	path := filepath.Join(root, "moving.md")
	write(t, path, "# Moving\n\nversion one kiwi\n")
	changed := false
	ix := openIndex(t, openDB(t, dir), nil, func(o *options) {
		o.afterParse = func(p string) {
			if !changed {
				changed = true
				// Written while the file is being indexed: the time is now.
				os.WriteFile(path, []byte("# Moving\n\nversion two mango, longer\n"), 0o644)
			}
		}
	})
	index(t, ix, root)
	if !found(t, ix, "kiwi") {
		t.Fatal("the first version was not indexed")
	}
	index(t, ix, root)
	if !found(t, ix, "mango") || found(t, ix, "kiwi") {
		t.Fatal("the change made during indexing was not picked up by the next pass")
	}
}

func TestCancelStopsAndTheNextPassResumes(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "notes")
	for i := range 40 {
		write(t, filepath.Join(root, "n"+string(rune('a'+i%26))+string(rune('a'+i/26))+".md"), "# Note\n\n"+strings.Repeat("lorem ipsum dolor ", 200)+"\n")
	}
	db := openDB(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	ix := openIndex(t, db, nil, WithWorkers(1), func(o *options) {
		o.txRows = 1
		o.afterCommit = func() {
			if count(t, db, `SELECT count(*) FROM rag_files WHERE status IN ('done','embedded')`) >= 3 {
				cancel()
			}
		}
	})
	err := ix.Index(ctx, []string{root}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Index returned %v, want context.Canceled", err)
	}
	finished := count(t, db, `SELECT count(*) FROM rag_files WHERE status IN ('done','embedded')`)
	if finished == 0 || finished == 40 {
		t.Fatalf("%d of 40 files finished before the cancel took effect", finished)
	}
	ix.opts.afterCommit = nil
	index(t, ix, root)
	if got := count(t, db, `SELECT count(*) FROM rag_files WHERE status = 'done'`); got != 40 {
		t.Fatalf("%d files done after resuming, want 40", got)
	}
	if got := count(t, db, `SELECT count(*) FROM (SELECT file_id, ord FROM rag_chunks GROUP BY file_id, ord HAVING count(*) > 1)`); got != 0 {
		t.Fatalf("%d duplicated chunks", got)
	}
}

func TestRemoveAndRetry(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "notes")
	write(t, filepath.Join(root, "sub", "inner.md"), "# Inner\n\nquasar\n")
	write(t, filepath.Join(root, "outer.md"), "# Outer\n\npulsar\n")
	write(t, filepath.Join(root, "broken.txt"), "\x00\x00\x00")
	db := openDB(t, dir)
	ix := openIndex(t, db, nil)
	index(t, ix, root)
	if err := ix.Remove(context.Background(), filepath.Join(root, "sub")); err != nil {
		t.Fatal(err)
	}
	if found(t, ix, "quasar") {
		t.Error("a removed folder is still found")
	}
	index(t, ix) // the removed folder stays out
	if found(t, ix, "quasar") {
		t.Error("a removed folder came back on the next pass")
	}
	index(t, ix, filepath.Join(root, "sub")) // naming it brings it back
	if !found(t, ix, "quasar") {
		t.Error("naming a removed folder did not index it again")
	}
	if err := ix.Remove(context.Background(), filepath.Join(dir, "elsewhere")); !errors.Is(err, ErrNotIndexed) {
		t.Errorf("removing an unknown path: %v", err)
	}

	if err := ix.Remove(context.Background(), filepath.Join(root, "sub")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "broken.txt"), "now it is text: nebula\n")
	age(t, filepath.Join(root, "broken.txt"), 2) // same stat as before? no: the size changed
	if err := ix.Retry(context.Background(), filepath.Join(root, "broken.txt")); err != nil {
		t.Fatal(err)
	}
	if d := docStatus(t, ix)["broken.txt"]; d.Status != Done || !found(t, ix, "nebula") {
		t.Errorf("after Retry: %+v", d)
	}
	if found(t, ix, "quasar") {
		t.Error("retrying a file brought back a folder removed inside its root")
	}
	if err := ix.Remove(context.Background(), root); err != nil {
		t.Fatal(err)
	}
	docs, err := ix.Documents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 0 || count(t, db, `SELECT count(*) FROM rag_chunks`) != 0 || inMemory(t, ix) != 0 {
		t.Errorf("after removing the root: %d documents, %d chunks, %d vectors", len(docs), count(t, db, `SELECT count(*) FROM rag_chunks`), inMemory(t, ix))
	}
}

func TestQueriesThatLookLikeFTSSyntaxNeverError(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "notes")
	write(t, filepath.Join(root, "a.md"), "# Col\n\ncol x AND OR NOT near star * \"quoted\" text\n")
	ix := openIndex(t, openDB(t, dir), nil)
	index(t, ix, root)
	for _, q := range []string{`"unbalanced`, `AND OR NOT`, `*`, `col:x`, `NEAR(a b)`, `a"b`, `-x`, `^start`, `(`, `'`, `""`, `{col}: x`, "x\x00y", `AND`, `.`, `🙂`} {
		if _, err := ix.Search(context.Background(), q, 5); err != nil {
			t.Errorf("query %q: %v", q, err)
		}
	}
	if hits := search(t, ix, `col:x`, 5); len(hits) != 1 || hits[0].LexicalRank != 1 {
		t.Errorf("col:x should match the words col and x: %+v", hits)
	}
	if _, err := ix.Search(context.Background(), "   ", 5); !errors.Is(err, ErrEmptyQuery) {
		t.Errorf("blank query: %v", err)
	}
}

func TestReciprocalRankFusion(t *testing.T) {
	// lexical: 1, 2, 3; vector: 3, 4, 1. k = 60.
	got := fuseWeighted(60, 1, []int64{1, 2, 3}, []int64{3, 4, 1})
	want := []ranked{
		{id: 1, score: 1.0/61 + 1.0/63, lex: 1, vec: 3},
		{id: 3, score: 1.0/63 + 1.0/61, lex: 3, vec: 1},
		{id: 2, score: 1.0 / 62, lex: 2},
		{id: 4, score: 1.0 / 62, vec: 2},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.id != w.id || g.lex != w.lex || g.vec != w.vec || abs(g.score-w.score) > 1e-12 {
			t.Errorf("position %d: got %+v, want %+v", i, g, w)
		}
	}
	// k changes how much the top of a list dominates: with k = 0, being
	// first in one list (1/1) beats being second in both (1/2 + 1/2 = 1)... only just not.
	got = fuseWeighted(0, 1, []int64{5, 6}, []int64{7, 6})
	if got[0].id != 6 && got[0].score != 1 {
		t.Errorf("k=0: %+v", got)
	}
	if got := fuseWeighted(60, 1, nil, nil); len(got) != 0 {
		t.Errorf("empty lists fused to %+v", got)
	}
}

// TestRRFPutsTheFirstListFirstOnATie: search_docs fuses the documents'
// passages (first) with the notes (second), whose ids never overlap.
func TestRRFPutsTheFirstListFirstOnATie(t *testing.T) {
	for _, c := range []struct {
		first, second, want []int64
	}{
		{[]int64{1, 2}, []int64{-1, -2}, []int64{1, -1, 2, -2}},
		{[]int64{1}, []int64{-1, -2, -3}, []int64{1, -1, -2, -3}},
		{nil, []int64{-1}, []int64{-1}},
		{nil, nil, []int64{}},
	} {
		if got := RRF(60, c.first, c.second); !slices.Equal(got, c.want) {
			t.Errorf("RRF(%v, %v) = %v, want %v", c.first, c.second, got, c.want)
		}
	}
}

// found reports whether the word is in the snippet of a hit found by the lexical arm.
func found(t testing.TB, ix *Index, word string) bool {
	t.Helper()
	for _, h := range search(t, ix, word, 10) {
		if h.LexicalRank > 0 && strings.Contains(h.Snippet, word) {
			return true
		}
	}
	return false
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestNewerSchemaIsRefused(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir)
	ix := openIndex(t, db, nil)
	ix.Close()
	if _, err := db.Exec(`UPDATE rag_meta SET value = '99' WHERE key = 'schema'`); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), db, nil)
	if !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), "99") {
		t.Fatalf("Open on a newer schema: %v", err)
	}
}

func TestWordsInMostChunksAreLeftOutOfTheLexicalQuery(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "notes")
	for i := range 10 {
		body := "common words here"
		if i == 3 {
			body = "common and rare"
		}
		write(t, filepath.Join(root, fmt.Sprintf("n%d.md", i)), body+"\n")
	}
	ix := openIndex(t, openDB(t, dir), nil, WithLexicalMaxDF(0.5), func(o *options) { o.pruneFloor = 1 })
	index(t, ix, root)
	lexical := 0
	for _, h := range search(t, ix, "common rare", 10) {
		if h.LexicalRank > 0 {
			lexical++
			if !strings.HasSuffix(h.Path, "n3.md") {
				t.Errorf("a chunk with only the common word was ranked by words: %+v", h)
			}
		}
	}
	if lexical != 1 {
		t.Errorf("%d lexical hits, want 1", lexical)
	}
	// A query of common words only keeps the rarest of them.
	byWords := 0
	for _, h := range search(t, ix, "common", 10) {
		if h.LexicalRank > 0 {
			byWords++
		}
	}
	if byWords != 10 {
		t.Errorf("a common word alone found %d chunks by words, want the 10 that have it", byWords)
	}
	// A change to the chunks clears the cached frequencies: now "rare" is
	// everywhere and "common" in one file.
	for i := range 10 {
		body := "rare everywhere"
		if i == 0 {
			body = "rare and common"
		}
		write(t, filepath.Join(root, fmt.Sprintf("n%d.md", i)), body+"\n")
	}
	index(t, ix, root)
	lexical = 0
	for _, h := range search(t, ix, "common rare", 10) {
		if h.LexicalRank > 0 {
			lexical++
			if !strings.HasSuffix(h.Path, "n0.md") {
				t.Errorf("stale frequencies: %+v", h)
			}
		}
	}
	if lexical != 1 {
		t.Errorf("after the change: %d lexical hits, want 1", lexical)
	}
}

// Two indexes on one database stand for the app and a `quire index` run
// beside it: the one whose statistics went stale must not save them over
// the other's.
func TestStaleStatisticsAreNotSavedOverFreshOnes(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "notes")
	write(t, filepath.Join(root, "a.md"), "# A\n\nalpha\n")
	db := openDB(t, dir)
	app := openIndex(t, db, nil)
	index(t, app, root)
	cli := openIndex(t, db, nil)
	write(t, filepath.Join(root, "b.md"), "# B\n\nbravo\n")
	write(t, filepath.Join(root, "c.md"), "# C\n\ncharlie\n")
	index(t, cli, root)
	cli.Close()
	app.Close() // its statistics count one document; the corpus has three
	fresh := openIndex(t, db, nil)
	if got, want := sketchDocs(t, fresh), int64(count(t, db, `SELECT count(*) FROM rag_chunks`)); got != want {
		t.Fatalf("the statistics count %d chunks; the index has %d", got, want)
	}
}

// TestStatisticsAreSavedOnlyWhenTheyChanged: opening and closing an index
// whose statistics did not change writes none (marshalling them is most of
// the cost of Open and Close), and a change is saved and read back.
func TestStatisticsAreSavedOnlyWhenTheyChanged(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir)
	stored := func() int { return count(t, db, `SELECT count(*) FROM rag_stats`) }
	empty := openIndex(t, db, nil)
	empty.Close()
	if n := stored(); n != 0 {
		t.Fatalf("an empty index stored %d statistics rows", n)
	}
	root := filepath.Join(dir, "notes")
	write(t, filepath.Join(root, "a.md"), "# A\n\nalpha\n")
	ix := openIndex(t, db, nil)
	index(t, ix, root)
	ix.Close()
	if n := stored(); n != 1 {
		t.Fatalf("after indexing, %d statistics rows are stored, want 1", n)
	}
	var before []byte
	if err := db.QueryRow(`SELECT data FROM rag_stats`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	again := openIndex(t, db, nil)
	if got, want := sketchDocs(t, again), int64(count(t, db, `SELECT count(*) FROM rag_chunks`)); got != want {
		t.Fatalf("the statistics read back count %d chunks; the index has %d", got, want)
	}
	again.Close()
	var after []byte
	if err := db.QueryRow(`SELECT data FROM rag_stats`).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if string(before) != string(after) {
		t.Fatal("closing an unchanged index rewrote its statistics differently")
	}
}

// BenchmarkOpenClose is what every start and quit of Quire pays for the
// document index when nothing changed in between: with no documents, and
// with one indexed.
func BenchmarkOpenClose(b *testing.B) {
	for _, docs := range []int{0, 1} {
		b.Run(fmt.Sprintf("documents=%d", docs), func(b *testing.B) {
			dir := b.TempDir()
			db := openDB(b, dir)
			first := openIndex(b, db, nil)
			if docs > 0 {
				root := filepath.Join(dir, "docs")
				write(b, filepath.Join(root, "a.md"), "# A\n\nalpha\n")
				index(b, first, root)
			}
			first.Close()
			for b.Loop() {
				ix, err := Open(b.Context(), db, nil)
				if err != nil {
					b.Fatal(err)
				}
				ix.Close()
			}
		})
	}
}

// sketchDocs is how many chunks the offline embedder's statistics count,
// read as their first need reads them.
func sketchDocs(t *testing.T, ix *Index) int64 {
	t.Helper()
	e := ix.cur()
	if err := ix.readySketch(t.Context(), e); err != nil {
		t.Fatal(err)
	}
	return e.sketch.Docs()
}

// TestOpenLeavesTheStatisticsUnread: an Open with nothing changed reads
// no statistics of the offline embedder (a blob of megabytes that grew
// the start with the index, issue 30); the first search that ranks by
// vector reads them and ranks as the index that counted them did, and a
// pass after the Open counts on top of them, not from nothing.
func TestOpenLeavesTheStatisticsUnread(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "notes")
	for i, body := range []string{"budget of the garden", "garden tools and seeds", "a budget for travel", "seeds of doubt"} {
		write(t, filepath.Join(root, fmt.Sprintf("n%d.md", i)), "# N\n\n"+body+"\n")
	}
	db := openDB(t, dir)
	first := openIndex(t, db, nil)
	index(t, first, root)
	want := searchIn(t, first, "garden budget", 4, ModeVector)
	first.Close()

	ix := openIndex(t, db, nil)
	if e := ix.cur(); e.sketch != nil || e.sketchReady.Load() {
		t.Fatal("Open read the statistics")
	}
	got := searchIn(t, ix, "garden budget", 4, ModeVector)
	if len(got) == 0 || len(got) != len(want) {
		t.Fatalf("after a lazy read: %d hits, before %d", len(got), len(want))
	}
	for i := range got {
		if got[i].Path != want[i].Path || got[i].Similarity != want[i].Similarity {
			t.Fatalf("hit %d: %s %v, before %s %v", i, got[i].Path, got[i].Similarity, want[i].Path, want[i].Similarity)
		}
	}

	again := openIndex(t, db, nil)
	write(t, filepath.Join(root, "n9.md"), "# N\n\nmore seeds\n")
	index(t, again, root)
	if got, want := sketchDocs(t, again), int64(count(t, db, `SELECT count(*) FROM rag_chunks`)); got != want {
		t.Fatalf("after a pass the statistics count %d chunks; the index has %d", got, want)
	}
}
