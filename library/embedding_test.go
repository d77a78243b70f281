package library_test

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"quire/kernel/protocol"
	"quire/kernel/store"
	"quire/library"
	"quire/rag"
	"quire/test/testkit"
)

// sized makes dims-dimensional vectors from letter counts.
type sized struct {
	name string
	dims int
}

func (s sized) Name() string { return s.name }
func (s sized) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, s.dims)
		v[0] = 1
		for _, r := range strings.ToLower(t) {
			if r >= 'a' && r <= 'z' {
				v[int(r-'a')%s.dims]++
			}
		}
		out[i] = v
	}
	return out, nil
}

// models is Ollama as the library sees it: the installed embedding models,
// or down.
type models struct {
	mu        sync.Mutex
	installed map[string]int // name → dimensions
	down      bool
	checks    atomic.Int64
	// embedFails makes the embedders' Embed fail (Ollama gone mid-way).
	embedFails atomic.Bool
}

func (m *models) Embedder(ctx context.Context, model string) (rag.Embedder, error) {
	m.checks.Add(1)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.down {
		return nil, fmt.Errorf("dial tcp: connection refused: %w", library.ErrOllamaUnreachable)
	}
	dims, ok := m.installed[model]
	switch {
	case !ok:
		return nil, fmt.Errorf("%s: %w", model, library.ErrEmbedModelMissing)
	case dims == 0:
		return nil, fmt.Errorf("%s: %w", model, library.ErrNotAnEmbedder)
	}
	return flaky{sized{"ollama:" + model, dims}, &m.embedFails}, nil
}

// flaky is an embedder that fails as Ollama gone away does while fails is set.
type flaky struct {
	sized
	fails *atomic.Bool
}

func (f flaky) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if f.fails.Load() {
		return nil, fmt.Errorf("connection refused: %w", library.ErrOllamaUnreachable)
	}
	return f.sized.Embed(ctx, texts)
}

func (m *models) set(down bool, name string, dims int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.down = down
	if name != "" {
		m.installed[name] = dims
	}
}

type embedLib struct {
	lib    *library.Library
	idx    *rag.Index
	models *models
	clock  *testkit.Clock
	saved  atomic.Pointer[string]
}

// openEmbedding is open with an embedding model chosen: emb is what the
// composition root found at start (nil: the offline embedder), startErr why
// model could not be used.
func openEmbedding(t *testing.T, m *models, model string, emb rag.Embedder, startErr error) *embedLib {
	t.Helper()
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "quire.db"))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := rag.Open(t.Context(), st.DB(), emb)
	if err != nil {
		t.Fatal(err)
	}
	e := &embedLib{idx: idx, models: m, clock: testkit.NewClock()}
	e.lib = library.New(idx, slog.New(slog.DiscardHandler), library.WithEmbedding(library.Embedding{
		Models: m, Model: model, Err: startErr, Now: e.clock.Now,
		Save: func(model string) error { e.saved.Store(&model); return nil }}))
	ctx, cancel := context.WithCancel(context.Background())
	e.lib.Start(ctx)
	t.Cleanup(func() { e.lib.Close(); cancel(); idx.Close(); st.Close() })
	return e
}

func (e *embedLib) state(t *testing.T) protocol.DocumentsState {
	t.Helper()
	st, err := e.lib.State(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// waitReembedded waits until the embedder in use is want ("": the offline
// one), no switch is pending and nothing runs.
func (e *embedLib) waitReembedded(t *testing.T, want string) protocol.DocumentsState {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Patience)
	defer cancel()
	changes := e.lib.Watch(ctx)
	for {
		st := e.state(t)
		if (st.Embedding.InUse == want || want == "" && st.Offline) && st.Embedding.Target == "" && !st.Progress.Running {
			return st
		}
		select {
		case <-changes:
		case <-ctx.Done():
			t.Fatalf("waited for %s to be in use: %+v", want, st)
		}
	}
}

// waitReembedEnd reads progress until a re-embedding's last state. Not
// waitFinal: a re-embedding of two documents can end before the relay
// hands over a running state (a newer state replaces a held one).
func waitReembedEnd(t *testing.T, ch <-chan protocol.IndexProgress) protocol.IndexProgress {
	t.Helper()
	timeout := time.After(testkit.Patience)
	for {
		select {
		case p := <-ch:
			if p.Reembedding != "" && !p.Running && p.Phase != protocol.PhaseScanning && p.Phase != protocol.PhaseIndexing {
				return p
			}
		case <-timeout:
			t.Fatal("no end of the re-embedding")
		}
	}
}

func TestSwitchingTheEmbeddingModelReembedsAndSaysSo(t *testing.T) {
	m := &models{installed: map[string]int{"wide-a": 4, "wide-b": 7, "qwen3:4b": 0}}
	e := openEmbedding(t, m, "wide-a", sized{"ollama:wide-a", 4}, nil)
	dir := folder(t)
	if err := e.lib.Add(t.Context(), []string{dir}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitIndexed(t, e.lib, 3)
	if got := *e.state(t).Embedding; got != (protocol.EmbeddingState{Model: "wide-a", Status: protocol.EmbedReady, InUse: "ollama:wide-a", Dimensions: 4}) {
		t.Errorf("before the switch: %+v", got)
	}

	ch := e.lib.Watch(t.Context())
	if err := e.lib.SetEmbedModel(t.Context(), "wide-b"); err != nil {
		t.Fatal(err)
	}
	if final := waitReembedEnd(t, ch); final.Phase != protocol.PhaseDone || final.Reembedding != "ollama:wide-b" || final.Done != final.Total || final.Total != 2 {
		t.Errorf("the re-embedding's last progress: %+v", final)
	}
	st := e.waitReembedded(t, "ollama:wide-b")
	if *st.Embedding != (protocol.EmbeddingState{Model: "wide-b", Status: protocol.EmbedReady, InUse: "ollama:wide-b", Dimensions: 7}) {
		t.Errorf("after the switch: %+v", st.Embedding)
	}
	if p := e.saved.Load(); p == nil || *p != "wide-b" {
		t.Errorf("saved %v, want wide-b", p)
	}

	// Back to none: the built-in embedder.
	if err := e.lib.SetEmbedModel(t.Context(), ""); err != nil {
		t.Fatal(err)
	}
	st = e.waitReembedded(t, "")
	if st.Embedding.Status != protocol.EmbedNone || !st.Offline || st.Embedding.Target != "" {
		t.Errorf("after choosing none: %+v", st.Embedding)
	}
}

func TestAModelThatCannotEmbedIsRefusedInWords(t *testing.T) {
	m := &models{installed: map[string]int{"wide-a": 4, "qwen3:4b": 0}}
	tests := []struct {
		model, says string
	}{
		{"absent-model", "is not installed"},
		{"qwen3:4b", "is not an embedding model"},
		{strings.Repeat("x", 201), "at most 200 characters"},
		{"two\nlines", "give the name"},
	}
	for _, tt := range tests {
		t.Run(tt.says, func(t *testing.T) {
			e := openEmbedding(t, m, "wide-a", sized{"ollama:wide-a", 4}, nil)
			err := e.lib.SetEmbedModel(t.Context(), tt.model)
			if err == nil || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("SetEmbedModel(%.20q) = %v, want it to say %q", tt.model, err, tt.says)
			}
			if e.saved.Load() != nil || e.idx.Target() != "" || e.state(t).Embedding.Model != "wide-a" {
				t.Errorf("a refused choice changed something: saved %v, target %q", e.saved.Load(), e.idx.Target())
			}
		})
	}
}

// TestAModelThatComesBackIsUsedWithoutARestart: Ollama down at start, so the
// offline embedder is in use and the panel says why; a search checks again
// only once the back-off has passed (each failure doubles it), and the
// check that finds the model switches to it in the background.
func TestAModelThatComesBackIsUsedWithoutARestart(t *testing.T) {
	m := &models{installed: map[string]int{}, down: true}
	startErr := fmt.Errorf("dial: %w", library.ErrOllamaUnreachable)
	e := openEmbedding(t, m, "wide-b", nil, startErr)
	dir := folder(t)
	if err := e.lib.Add(t.Context(), []string{dir}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitIndexed(t, e.lib, 3)
	got := *e.state(t).Embedding
	if got.Status != protocol.EmbedUnreachable || !strings.Contains(got.Problem, "Start Ollama") || !strings.Contains(got.InUse, "offline") {
		t.Fatalf("Ollama down at start: %+v", got)
	}

	steps := []struct {
		advance time.Duration
		down    bool
		checks  int64 // checks made so far
	}{
		{0, true, 1},                // the first search checks
		{time.Second, true, 1},      // within the back-off (5 s): none
		{5 * time.Second, true, 2},  // past it: checks, fails, waits 10 s
		{9 * time.Second, false, 2}, // Ollama is back, but the wait is not over
	}
	for i, s := range steps {
		e.clock.Add(s.advance)
		m.set(s.down, "wide-b", 7)
		e.lib.Recheck(t.Context())
		if n := m.checks.Load(); n != s.checks {
			t.Fatalf("step %d: %d checks, want %d", i, n, s.checks)
		}
	}
	if e.idx.Target() != "" {
		t.Fatalf("switched before a check found the model")
	}
	e.clock.Add(time.Second)
	e.lib.Recheck(t.Context())
	st := e.waitReembedded(t, "ollama:wide-b")
	if st.Embedding.Status != protocol.EmbedReady || st.Embedding.Dimensions != 7 || st.Embedding.Problem != "" {
		t.Errorf("after Ollama came back: %+v", st.Embedding)
	}
	hits, err := e.idx.Search(t.Context(), "basil water", 3)
	if err != nil || len(hits) == 0 || hits[0].VectorRank == 0 {
		t.Errorf("search after the switch: %+v, %v", hits, err)
	}
	before := m.checks.Load()
	e.clock.Add(time.Hour)
	e.lib.Recheck(t.Context())
	if m.checks.Load() != before {
		t.Errorf("a model in use is checked again on every search")
	}
}

// TestThePanelChecksAgainWithoutASearch: Ollama down at start, back
// later; the panel's next look (past the back-off) says so, though nothing
// searched. It said "Ollama is not answering" minutes after a chat through
// Ollama worked (issue 31).
func TestThePanelChecksAgainWithoutASearch(t *testing.T) {
	m := &models{installed: map[string]int{}, down: true}
	e := openEmbedding(t, m, "wide-b", nil, fmt.Errorf("dial: %w", library.ErrOllamaUnreachable))
	if got := e.state(t).Embedding; got.Status != protocol.EmbedUnreachable {
		t.Fatalf("Ollama down at start: %+v", got)
	}
	m.set(false, "wide-b", 7)
	if got := e.state(t).Embedding; got.Status != protocol.EmbedUnreachable {
		t.Fatalf("checked again within the back-off: %+v", got)
	}
	e.clock.Add(recheckAfterFailure)
	if got := e.state(t).Embedding; got.Status != protocol.EmbedReady || got.Problem != "" {
		t.Errorf("Ollama is back, and the panel says %+v", got)
	}
}

// TestAReembeddingThatFailsSaysWhatHappens: Ollama going away mid-switch
// ends the re-embedding with a sentence; searches keep the old vectors, the
// switch stays pending, and the next check that finds the model resumes it.
func TestAReembeddingThatFailsSaysWhatHappens(t *testing.T) {
	m := &models{installed: map[string]int{"wide-a": 4}}
	e := openEmbedding(t, m, "", nil, nil)
	dir := folder(t)
	if err := e.lib.Add(t.Context(), []string{dir}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitIndexed(t, e.lib, 3)
	offline := e.idx.Embedder()
	m.embedFails.Store(true)
	ch := e.lib.Watch(t.Context())
	if err := e.lib.SetEmbedModel(t.Context(), "wide-a"); err != nil {
		t.Fatal(err)
	}
	final := waitReembedEnd(t, ch)
	if final.Phase != protocol.PhaseFailed || !strings.Contains(final.Error, "goes on with the vectors it had") {
		t.Fatalf("final progress %+v", final)
	}
	st := *e.state(t).Embedding
	if st.InUse != offline || st.Target != "ollama:wide-a" || st.Status != protocol.EmbedUnreachable {
		t.Errorf("after the failure: %+v", st)
	}
	m.embedFails.Store(false)
	e.clock.Add(recheckAfterFailure)
	e.lib.Recheck(t.Context())
	e.waitReembedded(t, "ollama:wide-a")
}

// recheckAfterFailure is more than the first back-off.
const recheckAfterFailure = 6 * time.Second
