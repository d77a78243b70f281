package rag

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
)

// TestVectorsLoadOnTheFirstVectorSearch: Open, a listing and a pass read
// no stored vector into memory (a lexical search needs none, and loading
// them was most of a `quire search` start); the first search that ranks by
// vector loads them all, and what a pass changed before or after that
// load is in memory as in SQLite. Owner and reader alike.
func TestVectorsLoadOnTheFirstVectorSearch(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	for i := range 6 {
		write(t, filepath.Join(docs, fmt.Sprintf("n%d.md", i)), fmt.Sprintf("# Note %d\n\nThe harbour pilot %d boards ships at dawn.\n", i, i))
	}
	db := openDB(t, dir)
	first := openIndex(t, db, nil)
	index(t, first, docs)
	first.Close()

	cases := []struct {
		name string
		open func(t *testing.T, db *sql.DB) *Index
	}{
		{"owner", func(t *testing.T, db *sql.DB) *Index { return openIndex(t, db, nil) }},
		{"reader", func(t *testing.T, db *sql.DB) *Index { return openIndex(t, db, nil, WithReadOnly()) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ix := tc.open(t, db)
			if _, err := ix.Documents(t.Context()); err != nil {
				t.Fatal(err)
			}
			if ix.vecsLoaded.Load() || ix.vecs.Len() != 0 {
				t.Fatalf("Open and a listing loaded %d vectors", ix.vecs.Len())
			}
			hits := search(t, ix, "harbour pilot", 3)
			if len(hits) == 0 || hits[0].VectorRank == 0 {
				t.Fatalf("hits %+v, want the vector arm to rank", hits)
			}
			if !ix.vecsLoaded.Load() {
				t.Fatal("a vector search did not load the vectors")
			}
			if got, want := ix.vecs.Len(), count(t, db, `SELECT count(*) FROM rag_vectors`); got != want {
				t.Fatalf("%d vectors in memory, %d stored", got, want)
			}
		})
	}

	t.Run("a pass before and after the load", func(t *testing.T) {
		ix := openIndex(t, db, nil)
		write(t, filepath.Join(docs, "new.md"), "# New\n\nA lighthouse keeper logs the tides.\n")
		index(t, ix, docs) // before any load: nothing in memory to change
		if ix.vecsLoaded.Load() {
			t.Fatal("a pass loaded the vectors")
		}
		if hits := search(t, ix, "lighthouse keeper", 1); len(hits) == 0 || filepath.Base(hits[0].Path) != "new.md" || hits[0].VectorRank != 1 {
			t.Fatalf("hits %+v, want new.md first in the vector list", hits)
		}
		write(t, filepath.Join(docs, "later.md"), "# Later\n\nA ferry crosses the sound twice a day.\n")
		index(t, ix, docs) // after the load: applied in memory
		if hits := search(t, ix, "ferry crosses sound", 1); len(hits) == 0 || filepath.Base(hits[0].Path) != "later.md" || hits[0].VectorRank != 1 {
			t.Fatalf("hits %+v, want later.md first in the vector list", hits)
		}
		if got, want := inMemory(t, ix), count(t, db, `SELECT count(*) FROM rag_vectors`); got != want {
			t.Fatalf("%d vectors in memory, %d stored", got, want)
		}
	})
}
