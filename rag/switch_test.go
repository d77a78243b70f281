package rag

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"quire/internal/sqlschema"
	"quire/internal/vecindex"
)

// wideEmbedder makes vectors of dims dimensions (letter counts folded into
// them), counting every text and every query it embeds.
type wideEmbedder struct {
	name    string
	dims    int
	texts   atomic.Int64
	queries atomic.Int64
}

func (w *wideEmbedder) Name() string { return w.name }
func (w *wideEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	w.texts.Add(int64(len(texts)))
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, w.dims)
		v[0] = 1
		for _, r := range strings.ToLower(t) {
			if r >= 'a' && r <= 'z' {
				v[int(r-'a')%w.dims]++
			}
		}
		out[i] = v
	}
	return out, nil
}
func (w *wideEmbedder) EmbedQuery(ctx context.Context, q string) ([]float32, error) {
	w.queries.Add(1)
	vs, err := w.Embed(ctx, []string{q})
	w.texts.Add(-1)
	return vs[0], err
}

// switchCorpus writes n documents and indexes them with the embedder a.
func switchCorpus(t *testing.T, n int) (dir, root string) {
	dir = t.TempDir()
	root = filepath.Join(dir, "notes")
	for i := range n {
		write(t, filepath.Join(root, fmt.Sprintf("d%02d.md", i)), fmt.Sprintf("# Doc %d\n\nturbine blade number %d\n\n## More\n\nwindmill tower %d\n", i, i, i))
	}
	return dir, root
}

func storedBy(t *testing.T, ix *Index) map[string]int {
	t.Helper()
	rows, err := ix.db.Query(vectorRows + `SELECT embedder, count(*) FROM rag_vectors GROUP BY embedder`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string]int{}
	for rows.Next() {
		var name string
		var n int
		if err := rows.Scan(&name, &n); err != nil {
			t.Fatal(err)
		}
		got[name] = n
	}
	return got
}

// TestSwitchReembedsWithoutMixing: after Switch, searches rank by the old
// embedder's vectors alone while the new one's are made (a search after
// each re-embedded document never asks the new model and finds by
// vectors), and once they are complete the new embedder is the one in use,
// with only its vectors stored, in memory and recorded with their length.
func TestSwitchReembedsWithoutMixing(t *testing.T) {
	dir, root := switchCorpus(t, 6)
	db := openDB(t, dir)
	a := &wideEmbedder{name: "model-a", dims: 4}
	b := &wideEmbedder{name: "model-b", dims: 7}
	var ix *Index
	var during []string
	ix = openIndex(t, db, a, WithAfterReembed(func(path string) {
		hits, err := ix.Search(context.Background(), "turbine blade", 5)
		if err != nil {
			t.Errorf("search during the re-embed: %v", err)
			return
		}
		vec := 0
		for _, h := range hits {
			if h.VectorRank > 0 {
				vec++
			}
		}
		during = append(during, fmt.Sprintf("%s %d", ix.Embedder(), vec))
	}))
	index(t, ix, root)
	chunks := count(t, db, `SELECT count(*) FROM rag_chunks`)
	if err := ix.Switch(b); err != nil {
		t.Fatal(err)
	}
	if ix.Target() != "model-b" || ix.Embedder() != "model-a" {
		t.Fatalf("after Switch: target %q, in use %q", ix.Target(), ix.Embedder())
	}
	var ps []Progress
	if err := ix.Reembed(context.Background(), func(p Progress) { ps = append(ps, p) }); err != nil {
		t.Fatal(err)
	}
	if len(during) != 6 {
		t.Fatalf("%d documents re-embedded, want 6", len(during))
	}
	for i, d := range during {
		if d != "model-a 5" {
			t.Errorf("search after document %d: %q, want model-a with 5 hits found by vectors", i+1, d)
		}
	}
	if n := b.queries.Load(); n != 0 {
		t.Errorf("the new model embedded %d queries before its vectors were complete", n)
	}
	if ix.Embedder() != "model-b" || ix.Target() != "" {
		t.Errorf("after Reembed: in use %q, target %q", ix.Embedder(), ix.Target())
	}
	if got := storedBy(t, ix); len(got) != 1 || got["model-b"] != chunks {
		t.Errorf("stored vectors %v, want only model-b's %d", got, chunks)
	}
	if n := inMemory(t, ix); n != chunks {
		t.Errorf("%d vectors in memory, want %d", n, chunks)
	}
	if d, err := ix.Dimensions(context.Background()); err != nil || d != 7 {
		t.Errorf("Dimensions = %d, %v; want 7", d, err)
	}
	if last := ps[len(ps)-1]; last.Phase != "done" || last.Done != 6 || last.Total != 6 {
		t.Errorf("last progress %+v", last)
	}
	hits := search(t, ix, "windmill tower", 3)
	if len(hits) == 0 || hits[0].VectorRank == 0 || b.queries.Load() != 1 {
		t.Errorf("after the switch: hits %+v, %d queries to the new model", hits, b.queries.Load())
	}
}

// TestReembedResumesWhereItStopped: a re-embed stopped after two documents
// (the process killed, as far as the index can tell: a new Index over the
// same file) goes on with the old embedder in use and embeds only what
// the new one still lacks.
func TestReembedResumesWhereItStopped(t *testing.T) {
	dir, root := switchCorpus(t, 5)
	db := openDB(t, dir)
	a := &wideEmbedder{name: "model-a", dims: 4}
	b := &wideEmbedder{name: "model-b", dims: 7}
	ctx, stop := context.WithCancelCause(context.Background())
	n := 0
	first := openIndex(t, db, a, WithAfterReembed(func(string) {
		if n++; n == 2 {
			stop(errors.New("killed"))
		}
	}))
	index(t, first, root)
	chunks := count(t, db, `SELECT count(*) FROM rag_chunks`)
	first.Switch(b)
	if err := first.Reembed(ctx, nil); err == nil {
		t.Fatal("a stopped re-embed returned nil")
	}
	first.Close()
	made := b.texts.Load()
	if made != 4 {
		t.Fatalf("before the stop the new model embedded %d texts, want 4 (two documents)", made)
	}

	// The next start asks for model-b; model-a's vectors are complete and
	// its embedder can be made, so it stays in use until model-b's are.
	byName := func(name string) Embedder {
		if name == a.name {
			return a
		}
		return nil
	}
	again := openIndex(t, db, b, WithEmbedders(byName))
	if again.Embedder() != "model-a" || again.Target() != "model-b" {
		t.Fatalf("reopened: in use %q, target %q", again.Embedder(), again.Target())
	}
	if hits := search(t, again, "turbine", 3); len(hits) == 0 || hits[0].VectorRank == 0 {
		t.Errorf("reopened mid-switch, search found nothing by vectors: %+v", hits)
	}
	if err := again.Reembed(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if got := b.texts.Load(); got != int64(chunks) {
		t.Errorf("the new model embedded %d texts over both runs, want %d (none twice)", got, chunks)
	}
	if again.Embedder() != "model-b" {
		t.Errorf("in use %q after the resumed re-embed", again.Embedder())
	}

	// And a third start, asking for model-b, has nothing to do.
	again.Close()
	third := openIndex(t, db, b, WithEmbedders(byName))
	if third.Target() != "" || third.Embedder() != "model-b" || inMemory(t, third) != chunks {
		t.Errorf("third start: target %q, in use %q, %d in memory", third.Target(), third.Embedder(), inMemory(t, third))
	}
}

func TestOpenChoosesTheEmbedder(t *testing.T) {
	a := &wideEmbedder{name: "model-a", dims: 4}
	b := &wideEmbedder{name: "model-b", dims: 7}
	byA := func(name string) Embedder {
		if name == "model-a" {
			return a
		}
		return nil
	}
	tests := []struct {
		name            string
		opts            []Option
		want            Embedder
		inUse, target   string
		parsedAfterOpen bool // documents sent back to be embedded by the next pass
	}{
		{"the same embedder", nil, a, "model-a", "", false},
		{"another, the old one unmakeable", nil, b, "model-b", "", true},
		{"another, the old one makeable", []Option{WithEmbedders(byA)}, b, "model-a", "model-b", false},
		{"keep the stored one", []Option{WithEmbedders(byA), WithKeepStored()}, nil, "model-a", "", false},
		{"keep, but it cannot be made", []Option{WithKeepStored()}, b, "model-b", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, root := switchCorpus(t, 2)
			db := openDB(t, dir)
			first := openIndex(t, db, a)
			index(t, first, root)
			first.Close()
			ix := openIndex(t, db, tt.want, tt.opts...)
			if ix.Embedder() != tt.inUse || ix.Target() != tt.target {
				t.Errorf("in use %q, target %q; want %q, %q", ix.Embedder(), ix.Target(), tt.inUse, tt.target)
			}
			parsed := count(t, db, `SELECT count(*) FROM rag_files WHERE status = 'parsed'`)
			if (parsed > 0) != tt.parsedAfterOpen {
				t.Errorf("%d documents waiting for vectors after Open", parsed)
			}
		})
	}
}

// TestAnOlderIndexLearnsItsEmbedders: an index written before rag_embedders
// existed records, when it is upgraded, each stored embedder with the
// length of its vectors, and goes on with the one it has.
func TestAnOlderIndexLearnsItsEmbedders(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir())
	if err := sqlschema.Migrate(ctx, db, "rag", migrations[:1], ErrNewerSchema); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO rag_files(id, path, root, status, chunks) VALUES (1, '/n/a.md', '/n', 'done', 1)`,
		`INSERT INTO rag_chunks(id, file_id, ord, heading, start_line, end_line, text) VALUES (1, 1, 0, 'A', 1, 2, 'turbine')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(`INSERT INTO rag_vectors(chunk_id, embedder, vec) VALUES (1, 'model-a', ?)`, vecindex.Encode([]float32{1, 0, 0, 0, 0})); err != nil {
		t.Fatal(err)
	}
	a := &wideEmbedder{name: "model-a", dims: 5}
	ix := openIndex(t, db, a)
	if d, err := ix.Dimensions(ctx); err != nil || d != 5 {
		t.Errorf("Dimensions = %d, %v; want 5", d, err)
	}
	if ix.Embedder() != "model-a" || inMemory(t, ix) != 1 || docStatus(t, ix)["a.md"].Status != Done {
		t.Errorf("upgraded: in use %q, %d in memory, %+v", ix.Embedder(), inMemory(t, ix), docStatus(t, ix)["a.md"])
	}
}

// TestAModelThatChangedLengthIsRefused: vectors of another length under a
// stored name cannot be compared with the stored ones; the document keeps
// its text search and says why.
func TestAModelThatChangedLengthIsRefused(t *testing.T) {
	dir, root := switchCorpus(t, 1)
	db := openDB(t, dir)
	ix := openIndex(t, db, &wideEmbedder{name: "model-a", dims: 4})
	index(t, ix, root)
	ix.Close()
	write(t, filepath.Join(root, "new.md"), "# New\n\nturbine\n")
	ix = openIndex(t, db, &wideEmbedder{name: "model-a", dims: 9})
	index(t, ix)
	if d := docStatus(t, ix)["new.md"]; d.Status != Failed || !strings.Contains(d.Reason, "text search still finds it") ||
		!strings.Contains(d.Reason, ErrDimensions.Error()) {
		t.Errorf("new.md: %+v", d)
	}
	if hits := search(t, ix, "turbine", 5); len(hits) != 2 {
		t.Errorf("text search found %d of the two documents", len(hits))
	}
}

// WithAfterReembed calls fn after each document a re-embed finished.
func WithAfterReembed(fn func(path string)) Option { return func(o *options) { o.afterReembed = fn } }

// TestADocumentChangedDuringASwitchIsEmbeddedBeforeIt: a pass between two
// re-embedded documents re-indexes one the switch had done (its chunks are
// new, with vectors of the old embedder only) and adds another; the switch
// embeds both before the new embedder takes over, so no chunk is left
// without a vector of it.
func TestADocumentChangedDuringASwitchIsEmbeddedBeforeIt(t *testing.T) {
	dir, root := switchCorpus(t, 4)
	db := openDB(t, dir)
	a := &wideEmbedder{name: "model-a", dims: 4}
	b := &wideEmbedder{name: "model-b", dims: 7}
	var ix *Index
	n := 0
	ix = openIndex(t, db, a, WithAfterReembed(func(string) {
		if n++; n == 2 {
			write(t, filepath.Join(root, "d00.md"), "# Doc 0 again\n\nrewritten gearbox\n")
			write(t, filepath.Join(root, "new.md"), "# New\n\nnacelle\n")
			if err := ix.Index(context.Background(), nil, nil); err != nil {
				t.Error(err)
			}
		}
	}))
	index(t, ix, root)
	ix.Switch(b)
	if err := ix.Reembed(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	chunks := count(t, db, `SELECT count(*) FROM rag_chunks`)
	if got := storedBy(t, ix); len(got) != 1 || got["model-b"] != chunks || ix.Embedder() != "model-b" {
		t.Errorf("after the switch: %v stored for %d chunks, in use %q", got, chunks, ix.Embedder())
	}
	if hits := search(t, ix, "gearbox", 1); len(hits) != 1 || hits[0].VectorRank == 0 {
		t.Errorf("the rewritten document: %+v", hits)
	}
}

// TestTheDefaultRankingFollowsTheEmbedderInUse: the default ranking's
// calibration is the one of the embedder whose vectors the search ranks,
// through every switch — the built-in embedder's words alone (its vectors
// never loaded), a model's own default once the index adopts it, and a
// calibration set for one model's name never the next model's. During a
// re-embed the old embedder's calibration goes on with its vectors.
func TestTheDefaultRankingFollowsTheEmbedderInUse(t *testing.T) {
	dir, root := switchCorpus(t, 4)
	db := openDB(t, dir)
	a := &wideEmbedder{name: "model-a", dims: 4}
	b := &wideEmbedder{name: "model-b", dims: 7}
	var ix *Index
	var during []int // vector ranks of the top hit, searched after each re-embedded document
	ix = openIndex(t, db, nil, WithCalibration("model-b", Calibration{Weight: 0.5, Floor: 1.01}),
		WithAfterReembed(func(string) {
			hits, err := ix.Search(context.Background(), "turbine blade", 3)
			if err != nil || len(hits) == 0 {
				t.Errorf("search during the re-embed: %v, %d hits", err, len(hits))
				return
			}
			during = append(during, hits[0].VectorRank)
		}))
	index(t, ix, root)
	top := func(step string) Hit {
		t.Helper()
		hits := search(t, ix, "turbine blade", 3)
		if len(hits) == 0 || hits[0].LexicalRank == 0 {
			t.Fatalf("%s: hits %+v, want the words to rank", step, hits)
		}
		return hits[0]
	}
	if h := top("built-in"); h.VectorRank != 0 || ix.cur().vecsLoaded.Load() {
		t.Fatalf("built-in embedder: vector rank %d, vectors loaded %v; want words alone", h.VectorRank, ix.cur().vecsLoaded.Load())
	}

	if err := ix.Switch(a); err != nil {
		t.Fatal(err)
	}
	if err := ix.Reembed(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	for i, r := range during {
		if r != 0 {
			t.Errorf("search after document %d of the re-embed: vector rank %d, want the built-in embedder's words alone", i+1, r)
		}
	}
	if h := top("model-a"); h.VectorRank == 0 || h.Similarity < defaultCalibration(false).Floor {
		t.Errorf("model-a: vector rank %d, similarity %v; want its default calibration to fuse its vectors", h.VectorRank, h.Similarity)
	}

	if err := ix.Switch(b); err != nil {
		t.Fatal(err)
	}
	if err := ix.Reembed(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if ix.Embedder() != "model-b" {
		t.Fatalf("in use: %s", ix.Embedder())
	}
	if h := top("model-b"); h.VectorRank != 0 {
		t.Errorf("model-b: vector rank %d; want its own calibration's floor (above any similarity) to keep its vectors out", h.VectorRank)
	}
}
