package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"quire/doctor"
	"quire/internal/ollamatest"
	"quire/internal/testkit"
	"quire/kernel/protocol"
	"quire/kernel/runtime"
	"quire/kernel/tool"
)

type emitted struct {
	name string
	data []any
}

// newTestApp builds the App over a real store and runtime against the fake
// Ollama server, with the Wails event emitter replaced by a recorder.
func newTestApp(t *testing.T, probePath string) (*App, *ollamatest.Server, func() []emitted) {
	t.Helper()
	k := testkit.New(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	a := newApp(k.Runtime, func(context.Context) doctor.Report { return doctor.Report{OK: true} }, probePath, log)
	var mu sync.Mutex
	var got []emitted
	a.emit = func(_ context.Context, name string, data ...any) {
		mu.Lock()
		got = append(got, emitted{name, data})
		mu.Unlock()
	}
	return a, k.Ollama, func() []emitted {
		mu.Lock()
		defer mu.Unlock()
		return append([]emitted(nil), got...)
	}
}

func TestAppForwardsEventsToTheWindow(t *testing.T) {
	a, _, got := newTestApp(t, "")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	a.startup(ctx)
	if _, err := a.Handshake(protocol.Version); err != nil {
		t.Fatal(err)
	}
	s, err := a.NewSession("chat")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Send(s.ID, "hello", "key-1"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, e := range got() {
			if e.name != eventEvents {
				continue
			}
			for _, ev := range e.data[0].([]protocol.Event) {
				if ev.Type == "run.finished" {
					evs, err := a.Events(s.ID, 0)
					if err != nil {
						t.Fatal(err)
					}
					var reply string
					for _, e := range evs {
						if e.Type == "assistant.message" {
							var p struct{ Content string }
							json.Unmarshal(e.Payload, &p)
							reply = p.Content
						}
					}
					if reply != "You said: hello" {
						t.Fatalf("reply %q", reply)
					}
					return
				}
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("run.finished was never emitted to the window")
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
	path := filepath.Join(t.TempDir(), "view.json")
	a, _, _ := newTestApp(t, path)
	if err := a.ReportView(map[string]any{"messages": []any{}}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), "messages") {
		t.Fatalf("probe file %q, %v", b, err)
	}
	silent, _, _ := newTestApp(t, "")
	if err := silent.ReportView(map[string]any{"x": 1}); err != nil {
		t.Fatal(err)
	}
}

func TestUnavailableDatabaseStillAnswers(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "quire.db")
	if err := os.WriteFile(dbPath, []byte(strings.Repeat("garbage!", 2000)), 0o600); err != nil {
		t.Fatal(err)
	}
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	s, err := openServices(t.Context(), configFor(dir, fake.URL()), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.kernel().Sessions(t.Context()); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("sessions on a damaged database: %v", err)
	}
	r := s.doctor(t.Context())
	if r.OK {
		t.Fatal("doctor passed with a damaged database")
	}
	last := r.Checks[len(r.Checks)-1]
	if last.Name != "Database" || last.OK || !strings.Contains(last.Remedy, "Move it aside") {
		t.Fatalf("database check %+v", last)
	}
}

func TestPermissionDialogAsksOnceForAllCalls(t *testing.T) {
	a, _, _ := newTestApp(t, "")
	var asked []string
	a.dialog = func(_ context.Context, title, message string) (bool, error) {
		asked = append(asked, title+"\n"+message)
		return true, nil
	}
	q := runtime.Question{Calls: []tool.Call{
		{ID: "1", Name: "move_note", Arguments: []byte(`{"from":"a.md","to":"100% done/a.md"}`)},
		{ID: "2", Name: "create_note", Arguments: []byte(`{"path":"b.md"}`)},
	}}
	// Before the window is up, the question waits for the run's deadline.
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := a.Ask(ctx, q); err == nil {
		t.Fatal("a question before the window existed was answered")
	}
	a.startup(t.Context())
	ans, err := a.Ask(t.Context(), q)
	if err != nil || !ans.Allowed {
		t.Fatalf("answer %+v, %v", ans, err)
	}
	if len(asked) != 1 {
		t.Fatalf("%d dialogs for one question", len(asked))
	}
	for _, want := range []string{"these 2 actions", "move_note", `"to":"100% done/a.md"`, "create_note"} {
		if !strings.Contains(asked[0], want) {
			t.Errorf("dialog lacks %q:\n%s", want, asked[0])
		}
	}
	a.dialog = func(context.Context, string, string) (bool, error) { return false, nil }
	if ans, _ := a.Ask(t.Context(), q); ans.Allowed {
		t.Fatal("No was read as yes")
	}
}
