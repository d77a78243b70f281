package rag

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"quire/kernel/store"
)

// openDB opens a real Quire database in a temporary directory.
func openDB(t testing.TB, dir string) *sql.DB {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(dir, "quire.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st.DB()
}

func openIndex(t testing.TB, db *sql.DB, emb Embedder, opts ...Option) *Index {
	t.Helper()
	ix, err := Open(context.Background(), db, emb, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

// write creates a file (and its folders) with content and a modification
// time safely in the past, so change detection trusts it.
func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	age(t, path, time.Hour)
}

var ageCounter time.Duration

// age sets a file's modification time to some time ago (distinct each call).
func age(t testing.TB, path string, ago time.Duration) {
	t.Helper()
	ageCounter += time.Second
	when := time.Now().Add(-ago - ageCounter)
	if err := os.Chtimes(path, when, when); err != nil {
		t.Fatal(err)
	}
}

func index(t testing.TB, ix *Index, roots ...string) []Progress {
	t.Helper()
	var ps []Progress
	if err := ix.Index(context.Background(), roots, func(p Progress) { ps = append(ps, p) }); err != nil {
		t.Fatal(err)
	}
	return ps
}

func search(t testing.TB, ix *Index, q string, n int) []Hit {
	t.Helper()
	hits, err := ix.Search(context.Background(), q, n)
	if err != nil {
		t.Fatalf("search %q: %v", q, err)
	}
	return hits
}

// searchIn is search in mode m.
func searchIn(t testing.TB, ix *Index, q string, n int, m Mode) []Hit {
	t.Helper()
	hits, err := ix.SearchMode(context.Background(), q, n, m)
	if err != nil {
		t.Fatalf("search %q (%q): %v", q, m, err)
	}
	return hits
}

// vectorRows is a WITH clause that names rag_vectors(chunk_id, embedder)
// a row a stored vector, as the table was before schema 6 packed them in
// blocks: a query of the tests can count them as it did.
const vectorRows = `WITH RECURSIVE bit(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM bit WHERE i < 31),
	rag_vectors(chunk_id, embedder) AS (SELECT b.block * 32 + bit.i, b.embedder FROM rag_vector_blocks b JOIN bit ON (b.mask >> bit.i) & 1) `

func count(t testing.TB, db *sql.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func docStatus(t testing.TB, ix *Index) map[string]Document {
	t.Helper()
	docs, err := ix.Documents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]Document{}
	for _, d := range docs {
		m[filepath.Base(d.Path)] = d
	}
	return m
}

// inMemory is the number of vectors in the in-memory index (loaded, as
// the first vector search loads it, if no search has), after checking it
// holds one chromem-go document for each.
func inMemory(t testing.TB, ix *Index) int {
	t.Helper()
	vecs, err := ix.vectors(t.Context(), ix.cur())
	if err != nil {
		t.Fatal(err)
	}
	if d, n := len(vecs.Documents()), vecs.Len(); d != n {
		t.Fatalf("the vector index holds %d documents for %d vectors", d, n)
	}
	return vecs.Len()
}
