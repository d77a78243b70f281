// Package testkit assembles the real kernel for tests of the layers above
// it: the runtime over a temporary SQLite file, talking through the real
// Ollama client to the fake Ollama server. Like main, it picks concrete parts,
// so only tests import it.
package testkit

import (
	"context"
	"net/http"
	"net/url"
	"path/filepath"
	"testing"

	"quire/kernel/core"
	"quire/kernel/provider/ollama"
	"quire/kernel/runtime"
	"quire/kernel/store"
	"quire/test/ollamatest"
)

// Model is the chat model the fake server has installed.
const Model = "qwen3:4b"

// Kernel is a running kernel and the parts it was built from.
type Kernel struct {
	Runtime *runtime.Runtime
	Store   *store.Store
	Ollama  *ollamatest.Server
	Model   *ollama.Provider
	Path    string // the database file

	closed bool
}

// New starts a fake Ollama server with the default model and a kernel over a
// new database; both are closed when the test ends.
func New(t testing.TB, opts ...runtime.Option) *Kernel {
	t.Helper()
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	return Open(t, fake, filepath.Join(t.TempDir(), "quire.db"), opts...)
}

// Open starts a kernel over the database at path (new or existing) talking
// to fake; it is closed when the test ends, or earlier by Close.
func Open(t testing.TB, fake *ollamatest.Server, path string, opts ...runtime.Option) *Kernel {
	t.Helper()
	return OpenWith(t, fake, path, func(*store.Store) []runtime.Option { return opts })
}

// OpenWith is Open for parts built over the store before the runtime (such
// as memory, whose facets the runtime takes): with returns the options.
func OpenWith(t testing.TB, fake *ollamatest.Server, path string, with func(st *store.Store) []runtime.Option) *Kernel {
	t.Helper()
	st, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	opts := with(st)
	u, err := url.Parse(fake.URL())
	if err != nil {
		t.Fatal(err)
	}
	model := ollama.New(u, &http.Client{})
	rt := runtime.New(st, model, runtime.Settings{Model: Model, NumCtx: 8192}, opts...)
	k := &Kernel{Runtime: rt, Store: st, Ollama: fake, Model: model, Path: path}
	t.Cleanup(func() { k.Close(t) })
	return k
}

// Close stops the runtime, checks the log (Check) and closes the store. A
// test that reopens the database calls it first; the cleanup at the end of
// the test then has nothing left to do.
func (k *Kernel) Close(t testing.TB) {
	t.Helper()
	if k.closed {
		return
	}
	k.closed = true
	k.Runtime.Close()
	k.Check(t)
	k.Store.Close()
}

// Check runs the log checker over every session: the run and step
// invariants (core.Verify), and that re-running Update over the facts
// reproduces the records (core.Replay). Every test that uses a Kernel gets
// it when it ends.
func (k *Kernel) Check(t testing.TB) {
	t.Helper()
	CheckLog(t, k.Store)
}

// CheckFile runs the log checker over every session of the database file
// at path, opened read-only (the file of a process that has stopped, or of
// an owner still running: a reader never writes); it returns how many
// sessions it checked.
func CheckFile(t testing.TB, path string) int {
	t.Helper()
	st, err := store.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatalf("the log checker cannot open %s: %v", path, err)
	}
	defer st.Close()
	return CheckLog(t, st)
}

// CheckLog runs the log checker over every session st holds; it returns
// how many sessions it checked.
func CheckLog(t testing.TB, st *store.Store) int {
	t.Helper()
	list, err := st.Sessions(context.Background())
	if err != nil {
		// A store closed behind the kit's back would go unchecked: close
		// through Kernel.Close, which checks first.
		t.Errorf("the log checker cannot read the sessions: %v", err)
		return 0
	}
	for _, s := range list {
		evs, err := st.Events(context.Background(), s.ID, 0)
		if err != nil {
			t.Errorf("session %s: %v", s.ID, err)
			continue
		}
		if err := core.Verify(evs); err != nil {
			t.Errorf("session %s: %v", s.ID, err)
		}
		if err := core.Replay(evs); err != nil {
			t.Errorf("session %s: %v", s.ID, err)
		}
	}
	return len(list)
}
