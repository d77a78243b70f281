package rag

import (
	"bytes"
	"database/sql"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAFileChangeRewritesOnlyItsBlocks: deleting or changing one file of
// forty writes only the blocks its old and new chunks fall in, and every
// other file's vectors stay as they were, byte for byte.
func TestAFileChangeRewritesOnlyItsBlocks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, path string)
	}{
		{"deleted", func(t *testing.T, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}},
		{"changed", func(t *testing.T, path string) {
			write(t, path, "# Changed\n\nrotor hub\n\n## Two\n\nnacelle yaw\n\n## Three\n\ngearbox oil\n")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, root := switchCorpus(t, 40)
			db := openDB(t, dir)
			ix := openIndex(t, db, &wideEmbedder{name: "model-a", dims: 8}, WithChunkSize(40))
			index(t, ix, root)
			path := filepath.Join(root, "d17.md")
			oldIDs := chunkIDs(t, db, path)
			before := storedVectors(t, db)
			if len(before) != count(t, db, `SELECT count(*) FROM rag_chunks`) || len(before) < 2*40 {
				t.Fatalf("%d vectors stored for %d chunks", len(before), count(t, db, `SELECT count(*) FROM rag_chunks`))
			}
			for _, q := range []string{
				`CREATE TABLE touched (block INTEGER)`,
				`CREATE TRIGGER touched_ai AFTER INSERT ON rag_vector_blocks BEGIN INSERT INTO touched VALUES (new.block); END`,
				`CREATE TRIGGER touched_au AFTER UPDATE ON rag_vector_blocks BEGIN INSERT INTO touched VALUES (new.block); END`,
				`CREATE TRIGGER touched_ad AFTER DELETE ON rag_vector_blocks BEGIN INSERT INTO touched VALUES (old.block); END`,
			} {
				if _, err := db.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
			tc.change(t, path)
			index(t, ix, root)
			newIDs := chunkIDs(t, db, path)

			allowed := map[int64]bool{}
			for _, id := range append(slices.Clone(oldIDs), newIDs...) {
				allowed[id>>blockShift] = true
			}
			for _, b := range blocksTouched(t, db) {
				if !allowed[b] {
					t.Errorf("block %d was written; only %v hold the file's chunks", b, slices.Sorted(maps.Keys(allowed)))
				}
			}
			after := storedVectors(t, db)
			for _, id := range oldIDs {
				delete(before, fmt.Sprintf("model-a/%d", id))
			}
			for _, id := range newIDs {
				k := fmt.Sprintf("model-a/%d", id)
				if after[k] == nil {
					t.Errorf("chunk %d of the changed file has no vector", id)
				}
				delete(after, k)
			}
			if !maps.EqualFunc(after, before, bytes.Equal) {
				t.Errorf("the other files' vectors changed: %d now, %d before", len(after), len(before))
			}
			if got, want := inMemory(t, ix), count(t, db, `SELECT count(*) FROM rag_chunks`); got != want {
				t.Errorf("%d vectors in memory for %d chunks", got, want)
			}
		})
	}
}

func chunkIDs(t *testing.T, db *sql.DB, path string) []int64 {
	t.Helper()
	rows, err := db.Query(`SELECT c.id FROM rag_chunks c JOIN rag_files f ON f.id = c.file_id WHERE f.path = ? ORDER BY c.id`, path)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}

func blocksTouched(t *testing.T, db *sql.DB) []int64 {
	t.Helper()
	rows, err := db.Query(`SELECT DISTINCT block FROM touched`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var bs []int64
	for rows.Next() {
		var b int64
		if err := rows.Scan(&b); err != nil {
			t.Fatal(err)
		}
		bs = append(bs, b)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return bs
}

// TestABlockOfMixedLengthsIsRefused: a block whose bytes do not divide
// into its mask's vectors is an error, not vectors cut at the wrong place.
func TestABlockOfMixedLengthsIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		mask int64
		vecs []byte
		ok   bool
	}{
		{"two of 8 bytes", 0b101, make([]byte, 16), true},
		{"no vector", 0, make([]byte, 8), false},
		{"not a multiple", 0b11, make([]byte, 12), false},
		{"not of floats", 0b11, make([]byte, 6), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs, err := splitBlock(tc.mask, tc.vecs)
			if (err == nil) != tc.ok {
				t.Fatalf("splitBlock = %v, %v", vs, err)
			}
			if tc.ok && (len(vs) != 2 || len(vs[0]) != 8) {
				t.Fatalf("split into %d of %d bytes", len(vs), len(vs[0]))
			}
		})
	}
	if !strings.Contains(fmt.Sprint(joinErr()), "under one embedder") {
		t.Fatal("joinBlock took vectors of two lengths")
	}
}

func joinErr() error {
	var slots [1 << blockShift][]byte
	slots[0], slots[3] = make([]byte, 8), make([]byte, 12)
	_, _, err := joinBlock(&slots)
	return err
}
