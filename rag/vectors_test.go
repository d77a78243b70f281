package rag

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"maps"
	"path/filepath"
	"sync"
	"testing"

	"quire/internal/sqlschema"
	"quire/internal/vecindex"
)

// TestVectorsLoadOnTheFirstVectorSearch: Open, a listing, a pass and a
// search whose plan is lexical — the default with the built-in embedder,
// whose calibration is words alone — read no stored vector into memory
// (loading them was most of a `quire search` start); the first search that
// ranks by vector loads them all, and what a pass changed before or after
// that load is in memory as in SQLite. Owner and reader alike.
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
			if e := ix.cur(); e.vecsLoaded.Load() || e.vecs != nil {
				t.Fatal("Open and a listing loaded the vectors")
			}
			for _, m := range []Mode{ModeDefault, ModeLexical} {
				if hits := searchIn(t, ix, "harbour pilot", 3, m); len(hits) == 0 || hits[0].VectorRank != 0 {
					t.Fatalf("mode %q: hits %+v, want words alone", m, hits)
				}
				if ix.cur().vecsLoaded.Load() {
					t.Fatalf("a search in mode %q, lexical with the built-in embedder, loaded the vectors", m)
				}
			}
			hits := searchIn(t, ix, "harbour pilot", 3, ModeHybrid)
			if len(hits) == 0 || hits[0].VectorRank == 0 {
				t.Fatalf("hits %+v, want the vector arm to rank", hits)
			}
			if !ix.cur().vecsLoaded.Load() {
				t.Fatal("a vector search did not load the vectors")
			}
			if got, want := ix.cur().vecs.Len(), count(t, db, vectorRows+`SELECT count(*) FROM rag_vectors`); got != want {
				t.Fatalf("%d vectors in memory, %d stored", got, want)
			}
		})
	}

	t.Run("a pass before and after the load", func(t *testing.T) {
		ix := openIndex(t, db, nil)
		write(t, filepath.Join(docs, "new.md"), "# New\n\nA lighthouse keeper logs the tides.\n")
		index(t, ix, docs) // before any load: nothing in memory to change
		if ix.cur().vecsLoaded.Load() {
			t.Fatal("a pass loaded the vectors")
		}
		if hits := searchIn(t, ix, "lighthouse keeper", 1, ModeVector); len(hits) == 0 || filepath.Base(hits[0].Path) != "new.md" || hits[0].VectorRank != 1 {
			t.Fatalf("hits %+v, want new.md first in the vector list", hits)
		}
		write(t, filepath.Join(docs, "later.md"), "# Later\n\nA ferry crosses the sound twice a day.\n")
		index(t, ix, docs) // after the load: applied in memory
		if hits := searchIn(t, ix, "ferry crosses sound", 1, ModeVector); len(hits) == 0 || filepath.Base(hits[0].Path) != "later.md" || hits[0].VectorRank != 1 {
			t.Fatalf("hits %+v, want later.md first in the vector list", hits)
		}
		if got, want := inMemory(t, ix), count(t, db, vectorRows+`SELECT count(*) FROM rag_vectors`); got != want {
			t.Fatalf("%d vectors in memory, %d stored", got, want)
		}
	})
}

// TestSwitchedEmbeddersVectorsLoadOnFirstUse: each embedder's vectors load
// on the first search that ranks by it, and only its own: a switch adopts
// the new embedder without loading anything (neither the re-embedding nor a
// pass after the swap does), and the first vector search after it loads the
// new embedder's vectors alone — none of the old one's, though they were in
// memory before the switch.
func TestSwitchedEmbeddersVectorsLoadOnFirstUse(t *testing.T) {
	dir, root := switchCorpus(t, 4)
	db := openDB(t, dir)
	a := &wideEmbedder{name: "model-a", dims: 4}
	b := &wideEmbedder{name: "model-b", dims: 7}
	ix := openIndex(t, db, a)
	index(t, ix, root)
	old := ix.cur()
	if hits := search(t, ix, "turbine blade", 3); len(hits) == 0 || hits[0].VectorRank == 0 {
		t.Fatalf("hits %+v, want the vector arm to rank", hits)
	}
	if !old.vecsLoaded.Load() || old.vecs.Len() != count(t, db, vectorRows+`SELECT count(*) FROM rag_vectors WHERE embedder = 'model-a'`) {
		t.Fatal("the first vector search did not load model-a's vectors")
	}

	if err := ix.Switch(b); err != nil {
		t.Fatal(err)
	}
	if err := ix.Reembed(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	e := ix.cur()
	if e == old || e.name != "model-b" {
		t.Fatalf("in use after the switch: %s", e.name)
	}
	if e.vecsLoaded.Load() || e.vecs != nil {
		t.Fatal("the switch loaded the new embedder's vectors")
	}
	write(t, filepath.Join(root, "new.md"), "# New\n\nA lighthouse keeper logs the tides.\n")
	index(t, ix, root)
	if e.vecsLoaded.Load() {
		t.Fatal("a pass after the switch loaded the vectors")
	}
	if hits := search(t, ix, "lighthouse keeper", 1); len(hits) == 0 || filepath.Base(hits[0].Path) != "new.md" || hits[0].VectorRank != 1 {
		t.Fatalf("hits %+v, want new.md first in the vector list", hits)
	}
	if !e.vecsLoaded.Load() {
		t.Fatal("a vector search after the switch did not load the vectors")
	}
	if got, want := inMemory(t, ix), count(t, db, `SELECT count(*) FROM rag_chunks`); got != want {
		t.Fatalf("%d vectors in memory, want one per chunk (%d)", got, want)
	}
	for _, d := range e.vecs.Documents() {
		if len(d.Embedding) != b.dims {
			t.Fatalf("chunk %s has a %d-dimensional vector in memory: not model-b's", d.ID, len(d.Embedding))
		}
	}
}

// TestPassCommitsDuringTheFirstLoad: a pass committing file after file
// while the first vector search loads the vectors loses no commit and
// doubles none — each is read by the load or applied after it.
func TestPassCommitsDuringTheFirstLoad(t *testing.T) {
	dir, root := switchCorpus(t, 12)
	db := openDB(t, dir)
	emb := &wideEmbedder{name: "model-a", dims: 5}
	var ix *Index
	var once sync.Once
	loaded := make(chan error, 1)
	ix = openIndex(t, db, emb, func(o *options) {
		o.txRows = 1
		o.afterCommit = func() {
			once.Do(func() {
				go func() {
					_, err := ix.Search(context.Background(), "windmill tower", 3)
					loaded <- err
				}()
			})
		}
	})
	index(t, ix, root)
	if err := <-loaded; err != nil {
		t.Fatal(err)
	}
	if !ix.cur().vecsLoaded.Load() {
		t.Fatal("the search did not load the vectors")
	}
	if got, want := inMemory(t, ix), count(t, db, vectorRows+`SELECT count(*) FROM rag_vectors`); got != want {
		t.Fatalf("%d vectors in memory, %d stored", got, want)
	}
}

// TestVectorsMoveIntoBlocks: an index whose vectors sit a row a vector
// (the WITHOUT ROWID table of schema 4, the rowid one of schema 5) has
// them moved by its next Open, every one byte for byte, into blocks of 32
// chunk ids (schema 6), two embedders' apart, and searches by them.
func TestVectorsMoveIntoBlocks(t *testing.T) {
	for _, from := range []int{4, 5} {
		t.Run(fmt.Sprintf("schema %d", from), func(t *testing.T) {
			db := openDB(t, t.TempDir())
			want := oldVectors(t, db, from)
			ix := openIndex(t, db, &wideEmbedder{name: "model-a", dims: 5})
			if got := storedVectors(t, db); !maps.EqualFunc(got, want, bytes.Equal) {
				t.Errorf("after the move %d vectors, want %d: %v", len(got), len(want), got)
			}
			if n := count(t, db, `SELECT count(*) FROM sqlite_master WHERE name = 'rag_vectors'`); n != 0 {
				t.Errorf("the table a row a vector is still there")
			}
			if n := inMemory(t, ix); n != 70 {
				t.Errorf("%d vectors of model-a in memory, want 70", n)
			}
			if err := ix.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// oldVectors makes an index at schema from with 70 chunks (ids 1 to 70,
// three blocks) with vectors of model-a, and of model-b for every third,
// stored a row a vector in an order that is not the chunks', and returns
// them by "embedder/chunk id".
func oldVectors(t *testing.T, db *sql.DB, from int) map[string][]byte {
	return oldVectorsOf(t, db, from, 70, 5)
}

// oldVectorsOf is oldVectors with n chunks and vectors of dims.
func oldVectorsOf(t *testing.T, db *sql.DB, from, n, dims int) map[string][]byte {
	t.Helper()
	if err := sqlschema.Migrate(context.Background(), db, "rag", migrations[:from], ErrNewerSchema); err != nil {
		t.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`INSERT INTO rag_files(id, path, root, status, chunks) VALUES (1, '/n/a.md', '/n', 'done', ?)`, n); err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{}
	for i := range n {
		id := int64(n - i)
		if _, err := tx.Exec(`INSERT INTO rag_chunks(id, file_id, ord, heading, start_line, end_line, text) VALUES (?, 1, ?, 'A', 1, 2, 'turbine')`, id, id); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"model-a", "model-b"} {
			if name == "model-b" && id%3 != 0 {
				continue
			}
			v := make([]float32, dims)
			v[0], v[1], v[2], v[dims-1] = 1, float32(id), -float32(id)/7, float32(len(name))
			vec := vecindex.Encode(v)
			if _, err := tx.Exec(`INSERT INTO rag_vectors(chunk_id, embedder, vec) VALUES (?, ?, ?)`, id, name, vec); err != nil {
				t.Fatal(err)
			}
			want[fmt.Sprintf("%s/%d", name, id)] = vec
		}
	}
	if _, err := tx.Exec(`INSERT OR REPLACE INTO rag_embedders(name, dims, active) VALUES ('model-a', ?, 1), ('model-b', ?, 0)`, dims, dims); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return want
}

// storedVectors reads every stored vector by "embedder/chunk id".
func storedVectors(t testing.TB, db *sql.DB) map[string][]byte {
	t.Helper()
	rows, err := db.Query(`SELECT block, embedder, mask, vecs FROM rag_vector_blocks`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string][]byte{}
	for rows.Next() {
		var block, mask int64
		var name string
		var blob []byte
		if err := rows.Scan(&block, &name, &mask, &blob); err != nil {
			t.Fatal(err)
		}
		vs, err := splitBlock(mask, blob)
		if err != nil {
			t.Fatal(err)
		}
		k := 0
		for bit := range 32 {
			if mask&(1<<bit) != 0 {
				got[fmt.Sprintf("%s/%d", name, block*32+int64(bit))] = vs[k]
				k++
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}
