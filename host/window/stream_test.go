package window

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"quire/kernel/protocol"
	"quire/test/testkit"
)

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
	got.wait(t, "run.finished emitted to the window", func(es []emitted) bool {
		for _, e := range es {
			if e.name != eventEvents {
				continue
			}
			for _, ev := range e.data[0].([]protocol.Event) {
				if ev.Type == "run.finished" {
					return true
				}
			}
		}
		return false
	})
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
}

// logged signals each record with a given message (the test's log handler).
type logged struct {
	msg  string
	seen chan struct{}
}

func (l logged) Enabled(context.Context, slog.Level) bool { return true }
func (l logged) Handle(_ context.Context, r slog.Record) error {
	if r.Message == l.msg {
		l.seen <- struct{}{}
	}
	return nil
}
func (l logged) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l logged) WithGroup(string) slog.Handler      { return l }

// A page that stops taking updates is sent at most windowBound of them, then
// nothing until it has caught up, and then told to resync; updates flow again.
func TestAWindowThatFallsBehindIsSentNothingMoreUntilItCatchesUp(t *testing.T) {
	a, _, got := newTestApp(t, "")
	fellBehind := logged{msg: "the window fell behind its updates; it will reload what it missed", seen: make(chan struct{}, 8)}
	a.log = slog.New(fellBehind)
	var mu sync.Mutex
	page := map[string]func(...any){}
	registered := make(chan struct{}, 2)
	a.listen = func(_ context.Context, name string, cb func(...any)) func() {
		mu.Lock()
		page[name] = cb
		mu.Unlock()
		registered <- struct{}{}
		return func() {}
	}
	tell := func(name string, data ...any) {
		mu.Lock()
		cb := page[name]
		mu.Unlock()
		cb(data...)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	a.startup(ctx)
	<-registered
	<-registered
	tell(eventListening)
	if _, err := a.Handshake(protocol.Version); err != nil {
		t.Fatal(err)
	}
	s, err := a.NewSession("chat")
	if err != nil {
		t.Fatal(err)
	}
	numbered := func(es []emitted) (n int, last float64) {
		for _, e := range es {
			if (e.name == eventEvents || e.name == eventSessions) && len(e.data) == 2 {
				n++
				last = float64(e.data[1].(int64))
			}
		}
		return n, last
	}
	// Each rename is one update of two emits (its event, the list); the page
	// takes none of them.
	const renames = windowBound/2 + 10
	for i := range renames {
		if _, err := a.RenameSession(s.ID, fmt.Sprintf("title %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-fellBehind.seen:
	case <-time.After(testkit.Patience):
		t.Fatalf("the window was never found behind; %d updates were emitted", len(got.all()))
	}
	sent, last := numbered(got.all())
	if sent > windowBound+1 { // the two emits of one update may straddle the bound
		t.Fatalf("%d updates were sent to a page that took none; the bound is %d", sent, windowBound)
	}
	if hasResync(got.all()) {
		t.Fatal("the page was told to resync before it caught up")
	}
	tell(eventTaken, last)
	got.wait(t, "a resync once the page caught up", hasResync)
	before := len(got.all())
	if _, err := a.RenameSession(s.ID, "after the resync"); err != nil {
		t.Fatal(err)
	}
	got.wait(t, "updates flowing again after the resync", func(es []emitted) bool {
		for _, e := range es[before:] {
			if e.name == eventSessions && strings.Contains(fmt.Sprint(e.data[0]), "after the resync") {
				return true
			}
		}
		return false
	})
}

func hasResync(es []emitted) bool {
	for _, e := range es {
		if e.name == eventResync {
			return true
		}
	}
	return false
}
