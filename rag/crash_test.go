package rag

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"quire/kernel/store"
	"quire/test/crashtest"
)

var (
	crashKills = flag.Int("rag.kills", 0, "how many times TestKilledIndexingResumesWithoutDuplicates kills the indexer (0: 12, or 6 under -race)")
	raceKills  = 0
)

func killCount() int {
	switch {
	case *crashKills > 0:
		return *crashKills
	case raceKills > 0:
		return raceKills
	}
	return 12
}

const crashChildEnv = "QUIRE_RAG_CRASH_CHILD" // "db path|root", or "open|db folder"

// TestMain lets the test binary double as the indexing process the crash
// test kills.
func TestMain(m *testing.M) { crashtest.Main(m, crashChildEnv, crashChild) }

// crashChild indexes the root, committing small transactions and saying
// so on stdout, until it finishes or is killed.
func crashChild(spec string) {
	if dir, ok := strings.CutPrefix(spec, "open|"); ok {
		openChild(dir)
	}
	dbPath, root, _ := strings.Cut(spec, "|")
	db := openDB(fatalTB{}, filepath.Dir(dbPath))
	out := bufio.NewWriter(os.Stdout)
	ix, err := Open(context.Background(), db, nil, WithWorkers(2), WithChunkSize(300), func(o *options) {
		o.txRows = 40
		o.afterCommit = func() { fmt.Fprintln(out, "commit"); out.Flush() }
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child open:", err)
		os.Exit(3)
	}
	if err := ix.Index(context.Background(), []string{root}, nil); err != nil {
		fmt.Fprintln(os.Stderr, "child index:", err)
		os.Exit(3)
	}
	fmt.Fprintln(out, "finished")
	out.Flush()
	os.Exit(0)
}

// openChild opens the index in dir, which upgrades its tables, saying
// "open" on stdout before and "finished" after.
func openChild(dir string) {
	db := openDB(fatalTB{}, dir)
	fmt.Println("open")
	if _, err := Open(context.Background(), db, &wideEmbedder{name: "model-a", dims: migrateDims}); err != nil {
		fmt.Fprintln(os.Stderr, "child open:", err)
		os.Exit(3)
	}
	fmt.Println("finished")
	os.Exit(0)
}

// fatalTB is enough of testing.TB for openDB outside a test.
type fatalTB struct{ testing.TB }

func (fatalTB) Helper()               {}
func (fatalTB) Cleanup(func())        {}
func (fatalTB) Fatal(args ...any)     { fmt.Fprintln(os.Stderr, args...); os.Exit(3) }
func (fatalTB) Fatalf(string, ...any) { os.Exit(3) }

// TestKilledIndexingResumesWithoutDuplicates kills an indexing process
// with SIGKILL at random moments. After every kill the index must be
// consistent — no chunk twice, FTS in step with the chunks, no vector
// without its chunk, every finished file complete — and a final pass must
// produce exactly what an uninterrupted index produces.
func TestKilledIndexingResumesWithoutDuplicates(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "notes")
	for i := range 120 {
		var b strings.Builder
		fmt.Fprintf(&b, "# Note %d\n\n", i)
		sections := 3 + i%7
		if i%10 == 0 {
			sections = 60 // more than one batch of chunks: written in several transactions
		}
		for s := range sections {
			fmt.Fprintf(&b, "## Section %d\n\n%s\n\n", s, strings.Repeat(fmt.Sprintf("word%d topic%d ", i, s), 20+i%13))
		}
		write(t, filepath.Join(root, fmt.Sprintf("note%03d.md", i)), b.String())
	}
	dbDir := filepath.Join(dir, "db")
	os.MkdirAll(dbDir, 0o755)
	dbPath := filepath.Join(dbDir, "quire.db")
	crash := crashtest.New(t, crashChildEnv, killCount())
	finishedEarly := 0
	for attempt := 0; crash.Kills() < crash.Want() && attempt < crash.Want()*3; attempt++ {
		child := crash.Start(dbPath + "|" + root)
		if _, ok := child.Line(); !ok {
			t.Fatalf("the indexer made no commit: %s", child.Stderr())
		}
		crash.Pause(30 * time.Millisecond)
		if !child.Kill() {
			// It finished first: nothing left to interrupt, so start again
			// from scratch. Too many of these and the kills asked for are
			// not reached, which fails the test.
			finishedEarly++
			os.Remove(dbPath)
			os.Remove(dbPath + "-wal")
			os.Remove(dbPath + "-shm")
			continue
		}
		checkConsistent(t, dbPath, fmt.Sprintf("after kill %d", crash.Kills()))
	}
	if crash.Kills() < crash.Want() {
		t.Fatalf("%d kills of the %d asked for: the indexer finished first %d times", crash.Kills(), crash.Want(), finishedEarly)
	}
	// Resume in this process and compare with an index made in one go.
	db := openDB(t, dbDir)
	ix := openIndex(t, db, nil, WithChunkSize(300))
	index(t, ix, root)
	checkConsistent(t, dbPath, "after resuming")
	freshDir := t.TempDir()
	fresh := openDB(t, freshDir)
	index(t, openIndex(t, fresh, nil, WithChunkSize(300)), root)
	if got, want := contents(t, db), contents(t, fresh); got != want {
		t.Fatalf("the resumed index differs from one made in one go")
	}
	if n := count(t, db, `SELECT count(*) FROM rag_files WHERE status != 'done'`); n != 0 {
		t.Fatalf("%d files not done after resuming", n)
	}
	if got, want := inMemory(t, ix), count(t, db, `SELECT count(*) FROM rag_chunks`); got != want {
		t.Fatalf("%d vectors in memory for %d chunks", got, want)
	}
	t.Logf("%d kills (%d runs finished before the kill)", crash.Kills(), finishedEarly)
}

// migrateDims is the length of the vectors TestKilledUpgradeLosesNoVector
// moves: the embedder's of the benchmark, so blocks spill as they do.
const migrateDims = 256

// TestKilledUpgradeLosesNoVector kills with SIGKILL an Open that moves a
// schema-5 index's vectors into blocks (schema 6), at random moments of
// it. After every kill the file holds every vector, byte for byte, in the
// old table or in the blocks, never half of each; the next Open moves
// them all.
func TestKilledUpgradeLosesNoVector(t *testing.T) {
	dir := t.TempDir()
	fixture := filepath.Join(dir, "fixture")
	os.MkdirAll(fixture, 0o755)
	// Closed before it is copied: the copy is of a file at rest.
	st, err := store.Open(context.Background(), filepath.Join(fixture, "quire.db"))
	if err != nil {
		t.Fatal(err)
	}
	want := oldVectorsOf(t, st.DB(), 5, 6000, migrateDims)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(dir, "run")
	crash := crashtest.New(t, crashChildEnv, 4)
	finishedEarly, before := 0, 0
	for attempt := 0; crash.Kills() < crash.Want() && attempt < crash.Want()*3; attempt++ {
		os.RemoveAll(run)
		if err := os.CopyFS(run, os.DirFS(fixture)); err != nil {
			t.Fatal(err)
		}
		child := crash.Start("open|" + run)
		if _, ok := child.Line(); !ok {
			t.Fatalf("the child did not open: %s", child.Stderr())
		}
		crash.Pause(400 * time.Millisecond)
		if !child.Kill() {
			finishedEarly++
			continue
		}
		db := openDB(t, run)
		var version int
		if err := db.QueryRow(`SELECT value FROM rag_meta WHERE key = 'schema'`).Scan(&version); err != nil {
			t.Fatal(err)
		}
		var got map[string][]byte
		switch version {
		case 5:
			got = rowVectors(t, db)
			before++
		case len(migrations):
			got = storedVectors(t, db)
		default:
			t.Fatalf("after kill %d: schema %d", crash.Kills(), version)
		}
		if !maps.EqualFunc(got, want, bytes.Equal) {
			t.Fatalf("after kill %d (schema %d): %d vectors, want %d, or some differ", crash.Kills(), version, len(got), len(want))
		}
		ix := openIndex(t, db, &wideEmbedder{name: "model-a", dims: migrateDims})
		if got := storedVectors(t, db); !maps.EqualFunc(got, want, bytes.Equal) {
			t.Fatalf("the Open after kill %d: %d vectors in blocks, want %d, or some differ", crash.Kills(), len(got), len(want))
		}
		ix.Close()
	}
	if crash.Kills() < crash.Want() {
		t.Fatalf("%d kills of the %d asked for: the upgrade finished first %d times", crash.Kills(), crash.Want(), finishedEarly)
	}
	t.Logf("%d kills, %d before the upgrade committed (%d upgrades finished before the kill)", crash.Kills(), before, finishedEarly)
}

// rowVectors reads the vectors of the table a row a vector (before
// schema 6) by "embedder/chunk id".
func rowVectors(t *testing.T, db *sql.DB) map[string][]byte {
	t.Helper()
	rows, err := db.Query(`SELECT chunk_id, embedder, vec FROM rag_vectors`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string][]byte{}
	for rows.Next() {
		var id int64
		var name string
		var vec []byte
		if err := rows.Scan(&id, &name, &vec); err != nil {
			t.Fatal(err)
		}
		got[fmt.Sprintf("%s/%d", name, id)] = vec
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}

func checkConsistent(t *testing.T, dbPath, when string) {
	t.Helper()
	db := openDB(t, filepath.Dir(dbPath))
	checks := map[string]string{
		"duplicated chunks":            `SELECT count(*) FROM (SELECT 1 FROM rag_chunks GROUP BY file_id, ord HAVING count(*) > 1)`,
		"vectors without a chunk":      vectorRows + `SELECT count(*) FROM rag_vectors v WHERE NOT EXISTS (SELECT 1 FROM rag_chunks c WHERE c.id = v.chunk_id)`,
		"chunks without a file":        `SELECT count(*) FROM rag_chunks c WHERE NOT EXISTS (SELECT 1 FROM rag_files f WHERE f.id = c.file_id)`,
		"finished files missing parts": vectorRows + `SELECT count(*) FROM rag_files f WHERE status IN ('embedded', 'done') AND (chunks != (SELECT count(*) FROM rag_chunks c WHERE c.file_id = f.id) OR EXISTS (SELECT 1 FROM rag_chunks c WHERE c.file_id = f.id AND NOT EXISTS (SELECT 1 FROM rag_vectors v WHERE v.chunk_id = c.id)))`,
		"parsed files missing chunks":  `SELECT count(*) FROM rag_files f WHERE status = 'parsed' AND chunks != (SELECT count(*) FROM rag_chunks c WHERE c.file_id = f.id)`,
		"chunk ords with gaps":         `SELECT count(*) FROM rag_files f WHERE status != 'queued' AND (SELECT coalesce(max(ord) + 1, 0) FROM rag_chunks c WHERE c.file_id = f.id) != (SELECT count(*) FROM rag_chunks c WHERE c.file_id = f.id)`,
	}
	for what, q := range checks {
		if n := count(t, db, q); n != 0 {
			t.Fatalf("%s: %d %s", when, n, what)
		}
	}
	if _, err := db.Exec(`INSERT INTO rag_fts(rag_fts, rank) VALUES ('integrity-check', 1)`); err != nil {
		t.Fatalf("%s: the FTS index is out of step with the chunks: %v", when, err)
	}
}

// contents is every file's chunks, in order, as text.
func contents(t *testing.T, db *sql.DB) string {
	t.Helper()
	rows, err := db.Query(`SELECT f.path, c.ord, c.heading, c.start_line, c.end_line, c.text FROM rag_chunks c JOIN rag_files f ON f.id = c.file_id ORDER BY f.path, c.ord`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var path, heading, text string
		var ord, start, end int
		rows.Scan(&path, &ord, &heading, &start, &end, &text)
		fmt.Fprintf(&b, "%s %d %s %d-%d %s\n", path, ord, heading, start, end, text)
	}
	return b.String()
}
