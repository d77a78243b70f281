package rag

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeEmbedder makes 4-dimensional vectors from letter counts and can be
// told to fail.
type fakeEmbedder struct {
	name  string
	fail  atomic.Bool
	calls atomic.Int64
	texts atomic.Int64
}

func (f *fakeEmbedder) Name() string { return f.name }
func (f *fakeEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	f.calls.Add(1)
	f.texts.Add(int64(len(texts)))
	if f.fail.Load() {
		return nil, errors.New("model not loaded")
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := []float32{1, 0, 0, 0}
		for _, r := range strings.ToLower(t) {
			if r >= 'a' && r <= 'z' {
				v[(r-'a')%4] += 1
			}
		}
		out[i] = v
	}
	return out, nil
}

func TestAnEmbeddingModelBatchesAndFailuresKeepTextSearch(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "notes")
	var big strings.Builder
	for i := range 50 {
		big.WriteString("## Part " + strings.Repeat("x", i%5+1) + "\n\nsome words about turbines here\n\n")
	}
	write(t, filepath.Join(root, "a.md"), big.String())
	write(t, filepath.Join(root, "b.md"), "# B\n\nwindmill\n")
	db := openDB(t, dir)
	emb := &fakeEmbedder{name: "fake-embed"}
	ix := openIndex(t, db, emb, WithEmbedBatch(8))
	index(t, ix, root)
	chunks := count(t, db, `SELECT count(*) FROM rag_chunks`)
	if emb.texts.Load() != int64(chunks) || emb.calls.Load() < int64(chunks/8) {
		t.Fatalf("%d texts in %d calls for %d chunks (batches of 8)", emb.texts.Load(), emb.calls.Load(), chunks)
	}
	if ix.Embedder() != "fake-embed" {
		t.Errorf("Embedder() = %q", ix.Embedder())
	}
	if hits := search(t, ix, "windmill", 3); len(hits) == 0 || hits[0].VectorRank == 0 || hits[0].LexicalRank != 1 {
		t.Errorf("hits %+v", hits)
	} else if h := hits[0]; h.Similarity < defaultCalibration(false).Floor || h.Similarity > 1 || len(h.Matched) != 1 || h.Matched[0] != "windmill" {
		t.Errorf("why this passage, under a model: similarity %v, matched %q", h.Similarity, h.Matched)
	}
	// Under a model, the vector arm counts only passages at or above its
	// floor: with the floor above any similarity, the ranking is by words.
	calibrateFor(ix, Calibration{Weight: 0.5, Floor: 1.01})
	if hits := search(t, ix, "windmill", 3); len(hits) != 1 || hits[0].VectorRank != 0 {
		t.Errorf("a floor no passage reaches: %+v", hits)
	}
	ix.opts.calibrations = nil

	// The model goes away: a changed file fails with a reason but stays
	// searchable by its words; searches fall back to words with a note.
	emb.fail.Store(true)
	write(t, filepath.Join(root, "b.md"), "# B\n\nwindmill and watermill\n")
	index(t, ix, root)
	d := docStatus(t, ix)["b.md"]
	if d.Status != Failed || !strings.Contains(d.Reason, "model not loaded") || !strings.Contains(d.Reason, "text search still finds it") {
		t.Errorf("b.md: %+v", d)
	}
	hits, err := ix.Search(context.Background(), "watermill", 3)
	if err != nil || len(hits) == 0 || hits[0].LexicalRank != 1 || !strings.Contains(ix.VectorError(), "model not loaded") {
		t.Errorf("search with the model gone: %+v %v (vector error %q)", hits, err, ix.VectorError())
	}
	emb.fail.Store(false)
	if err := ix.Retry(context.Background(), filepath.Join(root, "b.md")); err != nil {
		t.Fatal(err)
	}
	if d := docStatus(t, ix)["b.md"]; d.Status != Done {
		t.Errorf("after Retry: %+v", d)
	}

	// Another embedder: its vectors are made for every chunk on the next
	// pass; the old ones stay for when it comes back.
	ix.Close()
	other := &fakeEmbedder{name: "other-embed"}
	ix2 := openIndex(t, db, other)
	if got := count(t, db, `SELECT count(*) FROM rag_files WHERE status = 'parsed'`); got != 2 {
		t.Fatalf("%d files waiting for the new embedder, want 2", got)
	}
	index(t, ix2)
	if got := other.texts.Load(); got != int64(count(t, db, `SELECT count(*) FROM rag_chunks`)) {
		t.Errorf("the new embedder embedded %d texts", got)
	}
	if inMemory(t, ix2) != count(t, db, `SELECT count(*) FROM rag_chunks`) {
		t.Errorf("%d vectors in memory", inMemory(t, ix2))
	}
}

func TestProgressCountsFilesAndNamesTheCurrentOne(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "notes")
	for _, n := range []string{"a.md", "b.md", "c.md", "d.bin"} {
		write(t, filepath.Join(root, n), "# "+n+"\n\ntext\n")
	}
	write(t, filepath.Join(root, "e.txt"), "\x00\x00")
	ix := openIndex(t, openDB(t, dir), nil)
	ps := index(t, ix, root)
	first, last := ps[0], ps[len(ps)-1]
	if first.Phase != "scanning" || last.Phase != "done" || last.Total != 4 || last.Done != 4 || last.Failed != 1 {
		t.Fatalf("progress %+v ... %+v", first, last)
	}
	sawFile := false
	for _, p := range ps {
		if p.Done > p.Total || p.Failed > p.Done {
			t.Fatalf("inconsistent progress %+v", p)
		}
		sawFile = sawFile || strings.HasSuffix(p.CurrentFile, ".md") || strings.HasSuffix(p.CurrentFile, ".txt")
	}
	if !sawFile {
		t.Errorf("no progress named a file: %+v", ps)
	}
}

// stallingEmbedder embeds documents as fakeEmbedder does, and, once
// stalled, answers nothing until the caller gives up — a stalled Ollama.
type stallingEmbedder struct {
	fakeEmbedder
	stalled atomic.Bool
}

func (s *stallingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if s.stalled.Load() {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return s.fakeEmbedder.Embed(ctx, texts)
}

// TestAStalledModelDoesNotHoldUpASearch: the default ranking under a model
// asks it for the query's vector; when the model answers nothing, the
// search ends at the bound with the words' ranking and says why, and a
// vector-only search fails saying so — neither waits for the model.
func TestAStalledModelDoesNotHoldUpASearch(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "notes")
	write(t, filepath.Join(root, "a.md"), "# A\n\nThe windmill turns in the wind.\n")
	emb := &stallingEmbedder{fakeEmbedder: fakeEmbedder{name: "slow-embed"}}
	ix := openIndex(t, openDB(t, dir), emb)
	index(t, ix, root)
	emb.stalled.Store(true)
	ix.opts.queryWait = 20 * time.Millisecond
	hits, err := ix.Search(t.Context(), "windmill", 3)
	if err != nil || len(hits) != 1 || hits[0].LexicalRank != 1 || hits[0].VectorRank != 0 {
		t.Fatalf("a search while the model stalls: %+v, %v; want the words' hit", hits, err)
	}
	if !strings.Contains(ix.VectorError(), "did not answer in time") {
		t.Errorf("VectorError = %q, want it to say the model did not answer in time", ix.VectorError())
	}
	if _, err := ix.SearchMode(t.Context(), "windmill", 3, ModeVector); !errors.Is(err, ErrQueryEmbedSlow) {
		t.Errorf("a vector search while the model stalls: %v, want ErrQueryEmbedSlow", err)
	}
}
