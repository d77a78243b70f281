package window

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"quire/assembly"
	"quire/config"
	"quire/doctor"
	"quire/kernel/protocol"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

type emitted struct {
	name string
	data []any
}

// window records what the Host emits to the page, in place of Wails'
// emitter; a test waits on it for an emit (wait), never on a timer.
type window struct {
	mu      sync.Mutex
	got     []emitted
	changed chan struct{} // closed and replaced on each emit
	onEmit  func(name string, data []any)
}

func (w *window) emit(_ context.Context, name string, data ...any) {
	w.mu.Lock()
	w.got = append(w.got, emitted{name, data})
	close(w.changed)
	w.changed = make(chan struct{})
	on := w.onEmit
	w.mu.Unlock()
	if on != nil {
		on(name, data)
	}
}

// all is everything emitted so far, oldest first.
func (w *window) all() []emitted {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]emitted(nil), w.got...)
}

// wait wakes on each emit until until holds for what was emitted so far,
// and fails the test when testkit.Patience passes first.
func (w *window) wait(t *testing.T, what string, until func([]emitted) bool) []emitted {
	t.Helper()
	timeout := time.After(testkit.Patience)
	for {
		w.mu.Lock()
		got, changed := append([]emitted(nil), w.got...), w.changed
		w.mu.Unlock()
		if until(got) {
			return got
		}
		select {
		case <-changed:
		case <-timeout:
			t.Fatalf("waited %s for %s; emitted %+v", testkit.Patience, what, got)
		}
	}
}

// newTestApp builds the Host over a real store and runtime against the fake
// Ollama server, with the Wails event emitter replaced by a recorder.
func newTestApp(t *testing.T, probePath string) (*Host, *ollamatest.Server, *window) {
	t.Helper()
	k := testkit.New(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	a := newHost(k.Runtime, func(context.Context) doctor.Report { return doctor.Report{OK: true} }, probePath, log)
	w := &window{changed: make(chan struct{})}
	a.emit = w.emit
	return a, k.Ollama, w
}

func TestAppRefusesCallsBeforeAHandshake(t *testing.T) {
	a, _, _ := newTestApp(t, "")
	if _, err := a.ListSessions(); !errors.Is(err, errNoHandshake) {
		t.Fatalf("before handshake: %v", err)
	}
	if _, err := a.Handshake("2.0"); !errors.Is(err, protocol.ErrIncompatible) {
		t.Fatalf("incompatible major: %v", err)
	}
	if _, err := a.NewSession("x"); !errors.Is(err, errNoHandshake) {
		t.Fatalf("after a refused handshake: %v", err)
	}
	if v, err := a.Handshake("1.0"); err != nil || v != protocol.Version {
		t.Fatalf("handshake: %q %v", v, err)
	}
	if _, err := a.ListSessions(); err != nil {
		t.Fatal(err)
	}
}

func TestReportViewWritesProbeOnlyWhenAsked(t *testing.T) {
	tests := []struct {
		name  string
		probe bool
	}{
		{"a test's probe is set: written, keep reporting", true},
		{"no probe: nothing written, the page is told to stop", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := ""
			if tt.probe {
				path = filepath.Join(t.TempDir(), "view.json")
			}
			a, _, _ := newTestApp(t, path)
			probing, err := a.ReportView(map[string]any{"messages": []any{}})
			if err != nil {
				t.Fatal(err)
			}
			if probing != tt.probe {
				t.Fatalf("ReportView says probing %v, want %v", probing, tt.probe)
			}
			if !tt.probe {
				return
			}
			b, err := os.ReadFile(path)
			if err != nil || !strings.Contains(string(b), "messages") {
				t.Fatalf("probe file %q, %v", b, err)
			}
		})
	}
}

// openOwner opens the composition root's parts as the data folder's owner,
// as main does for the window.
func openOwner(t *testing.T, dataDir, ollamaURL string) *assembly.Parts {
	t.Helper()
	cfg := config.Config{DataDir: dataDir, OllamaHost: ollamaURL, Model: "qwen3:4b", NumCtx: 4096}
	p, err := assembly.Open(t.Context(), config.NewStore(cfg), slog.New(slog.DiscardHandler), assembly.Owner)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
