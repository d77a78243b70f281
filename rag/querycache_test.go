package rag

import (
	"path/filepath"
	"testing"
)

// A repeated query reuses the embedding model's vector for it instead of
// calling the model again; a failed call is not remembered.
func TestQueryVectorsOfAModelAreReused(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "notes")
	write(t, filepath.Join(root, "a.md"), "# Turbines\n\nwind turbines and blades\n")
	write(t, filepath.Join(root, "b.md"), "# Mills\n\nwater mills\n")
	emb := &fakeEmbedder{name: "fake-embed"}
	ix := openIndex(t, openDB(t, dir), emb)
	index(t, ix, root)
	calls := func() int64 { return emb.calls.Load() }

	before := calls()
	first := search(t, ix, "wind turbines", 5)
	if calls() != before+1 {
		t.Fatalf("the first search made %d calls to the model, want 1", calls()-before)
	}
	again := search(t, ix, "wind turbines", 5)
	if calls() != before+1 {
		t.Fatalf("the same query called the model again (%d calls)", calls()-before)
	}
	if len(again) != len(first) || again[0].Path != first[0].Path || again[0].VectorRank != first[0].VectorRank {
		t.Fatalf("the repeated query ranked differently: %+v then %+v", first, again)
	}
	search(t, ix, "water mills", 5)
	if calls() != before+2 {
		t.Fatalf("another query made %d calls in all, want 2", calls()-before)
	}

	// A failure is not cached: once the model is back, the query reaches it.
	emb.fail.Store(true)
	search(t, ix, "blades", 5)
	if ix.VectorError() == "" {
		t.Fatal("the failed vector arm left no VectorError")
	}
	emb.fail.Store(false)
	n := calls()
	hits := search(t, ix, "blades", 5)
	if calls() != n+1 || ix.VectorError() != "" || len(hits) == 0 || hits[0].VectorRank == 0 {
		t.Fatalf("after the model came back: %d calls, VectorError %q, hits %+v", calls()-n, ix.VectorError(), hits)
	}
}
