// Package testkit assembles the real kernel for tests of the layers above
// it: the runtime over a temporary SQLite file, talking through the real
// Ollama client to the fake Ollama server. Like main, it picks concrete parts,
// so only tests import it.
package testkit

import (
	"net/http"
	"net/url"
	"path/filepath"
	"testing"

	"quire/kernel/provider/ollama"
	"quire/kernel/provider/ollama/ollamatest"
	"quire/kernel/runtime"
	"quire/kernel/store"
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
// to fake; it is closed when the test ends (closing it earlier is fine).
func Open(t testing.TB, fake *ollamatest.Server, path string, opts ...runtime.Option) *Kernel {
	t.Helper()
	st, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(fake.URL())
	if err != nil {
		t.Fatal(err)
	}
	model := ollama.New(u, &http.Client{})
	rt := runtime.New(st, model, runtime.Settings{Model: Model, NumCtx: 8192}, opts...)
	t.Cleanup(func() { rt.Close(); st.Close() })
	return &Kernel{Runtime: rt, Store: st, Ollama: fake, Model: model, Path: path}
}
