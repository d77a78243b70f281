package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/test/ollamatest"
)

func TestIdempotentCommands(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	path := filepath.Join(t.TempDir(), "quire.db")
	h := attach(t, fake, path)
	ctx := t.Context()

	create := protocol.CreateSessionPayload{Title: "Plans"}
	first, err := protocol.Run[protocol.Session](ctx, h.rt, "create-1", protocol.CreateSession, create)
	if err != nil {
		t.Fatal(err)
	}
	again, err := protocol.Run[protocol.Session](ctx, h.rt, "create-1", protocol.CreateSession, create)
	if err != nil || again.ID != first.ID {
		t.Fatalf("repeat create: %+v %v (first %s)", again, err, first.ID)
	}
	send := protocol.SendMessagePayload{Session: first.ID, Text: "hi"}
	h.fake.Script(ollamatest.Turn{Content: []string{"slow", " reply"}, Delay: 100 * time.Millisecond})
	r1, err := protocol.Run[protocol.SendResult](ctx, h.rt, "send-1", protocol.SendMessage, send)
	if err != nil {
		t.Fatal(err)
	}
	// While the run is going, the same key with another message is a reused
	// key, not a busy session.
	if _, err := protocol.Run[protocol.SendResult](ctx, h.rt, "send-1", protocol.SendMessage,
		protocol.SendMessagePayload{Session: first.ID, Text: "other"}); !errors.Is(err, protocol.ErrIdempotencyConflict) {
		t.Fatalf("reused key while busy: %v", err)
	}
	// While the run is going and after it ended, a repeat is the same send.
	r2, err := protocol.Run[protocol.SendResult](ctx, h.rt, "send-1", protocol.SendMessage, send)
	if err != nil || r2 != r1 {
		t.Fatalf("repeat send: %+v %v, first %+v", r2, err, r1)
	}
	h.waitFinished(t, first.ID, 1)

	// Keys survive a restart.
	h.k.Close(t)
	h = attach(t, fake, path)
	r3, err := protocol.Run[protocol.SendResult](ctx, h.rt, "send-1", protocol.SendMessage, send)
	if err != nil || r3 != r1 {
		t.Fatalf("repeat after restart: %+v %v", r3, err)
	}
	other := protocol.SendMessagePayload{Session: first.ID, Text: "something else"}
	if _, err := protocol.Run[protocol.SendResult](ctx, h.rt, "send-1", protocol.SendMessage, other); !errors.Is(err, protocol.ErrIdempotencyConflict) {
		t.Fatalf("same key, other payload: %v", err)
	}
	if _, err := protocol.Run[protocol.Session](ctx, h.rt, "send-1", protocol.CreateSession, create); !errors.Is(err, protocol.ErrIdempotencyConflict) {
		t.Fatalf("same key, other type: %v", err)
	}
	list, err := h.rt.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := h.store.Events(ctx, first.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	users := only[event.UserMessagePayload](t, evs, event.UserMessage)
	if len(list) != 1 || len(users) != 1 || len(fake.Requests()) != 1 {
		t.Fatalf("second effects: %d sessions, %d user messages, %d model calls", len(list), len(users), len(fake.Requests()))
	}
}

func TestCommandValidation(t *testing.T) {
	h := newHarness(t)
	cases := []struct {
		name string
		cmd  protocol.Command
		want error
	}{
		{"older major", protocol.Command{Type: protocol.CreateSession, Payload: []byte(`{}`), Version: "0.3"}, protocol.ErrIncompatible},
		{"newer major", protocol.Command{Type: protocol.CreateSession, Payload: []byte(`{}`), Version: "2.0"}, protocol.ErrIncompatible},
		{"no version", protocol.Command{Type: protocol.CreateSession, Payload: []byte(`{}`)}, protocol.ErrIncompatible},
		{"unknown type", protocol.Command{Type: "session.explode", Payload: []byte(`{}`), Version: protocol.Version}, protocol.ErrUnknownCommand},
		{"unknown field", protocol.Command{Type: protocol.RenameSession, Payload: []byte(`{"sesion":"x"}`), Version: protocol.Version}, protocol.ErrBadPayload},
		{"payload not JSON", protocol.Command{Type: protocol.CreateSession, Payload: []byte(`{`), Version: protocol.Version, IdempotencyKey: "k"}, protocol.ErrBadPayload},
		{"missing session", protocol.Command{Type: protocol.SendMessage, Payload: []byte(`{"session":"nope","text":"x"}`), Version: protocol.Version}, protocol.ErrNotFound},
		{"branch from nowhere", protocol.Command{Type: protocol.CreateSession, Payload: []byte(`{"parent":"nope","parentSeq":0}`), Version: protocol.Version}, protocol.ErrBadPayload},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := h.rt.Execute(t.Context(), tc.cmd); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
	list, err := h.rt.Sessions(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 0 {
		t.Fatalf("refused commands created %d sessions", len(list))
	}
}

func TestBranchSeesItsParentUpToTheBranchPoint(t *testing.T) {
	h := newHarness(t)
	h.fake.Script(ollamatest.Turn{Content: []string{"first answer"}}, ollamatest.Turn{Content: []string{"second answer"}})
	root, _ := newSession(t, h.rt, "root")
	if _, err := submit(t, h.rt, root.ID, "one"); err != nil {
		t.Fatal(err)
	}
	evs := h.waitFinished(t, root.ID, 1)
	branchAt := evs[len(evs)-1].Seq // after the first exchange
	if _, err := submit(t, h.rt, root.ID, "two"); err != nil {
		t.Fatal(err)
	}
	h.waitFinished(t, root.ID, 2)

	branch, err := protocol.Run[protocol.Session](t.Context(), h.rt, "", protocol.CreateSession,
		protocol.CreateSessionPayload{Title: "what if", Parent: root.ID, ParentSeq: branchAt})
	if err != nil {
		t.Fatal(err)
	}
	if branch.Parent != root.ID || branch.ParentSeq != branchAt {
		t.Fatalf("branch %+v", branch)
	}
	h.fake.Script(ollamatest.Turn{Content: []string{"branch answer"}})
	if _, err := submit(t, h.rt, branch.ID, "instead"); err != nil {
		t.Fatal(err)
	}
	h.waitFinished(t, branch.ID, 1)
	reqs := h.fake.Requests()
	var got []string
	for _, m := range reqs[len(reqs)-1].Chat.Messages {
		got = append(got, m.Role+":"+m.Content)
	}
	if want := "user:one|assistant:first answer|user:instead"; strings.Join(got, "|") != want {
		t.Fatalf("branch request %q, want %q", strings.Join(got, "|"), want)
	}
}

// TestFollowHasNoGapsOrDuplicates runs several writers and several readers
// that join at different cursors while appends go on.
func TestFollowHasNoGapsOrDuplicates(t *testing.T) {
	h := newHarness(t)
	s, _ := newSession(t, h.rt, "busy")
	const writers, perWriter, readers = 4, 60, 5
	total := int64(1 + writers*perWriter)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()

	var wg sync.WaitGroup
	results := make([][]int64, readers)
	for r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Join while writing: reader r starts once the log has reached
			// seq 40r, seen through a first stream it then drops.
			if r > 0 {
				early, drop := context.WithCancel(ctx)
				first, _ := h.rt.Follow(early, s.ID, 0)
				for e := range first {
					if e.Seq >= int64(r*40) {
						break
					}
				}
				drop()
			}
			from := int64(r * 7)
			evs, errp := h.rt.Follow(ctx, s.ID, from)
			for e := range evs {
				results[r] = append(results[r], e.Seq)
				if e.Seq == total-1 {
					break
				}
			}
			if err := errp(); err != nil {
				t.Error(err)
			}
			results[r] = append([]int64{from}, results[r]...)
		}()
	}
	var writing sync.WaitGroup
	for w := range writers {
		writing.Add(1)
		go func() {
			defer writing.Done()
			for i := range perWriter {
				if _, err := protocol.Run[protocol.Session](ctx, h.rt, "", protocol.RenameSession,
					protocol.RenameSessionPayload{Session: s.ID, Title: fmt.Sprintf("w%d-%d", w, i)}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	writing.Wait()
	wg.Wait()
	for r, seqs := range results {
		from, got := seqs[0], seqs[1:]
		if int64(len(got)) != total-from {
			t.Fatalf("reader %d from %d saw %d events, want %d", r, from, len(got), total-from)
		}
		for i, seq := range got {
			if seq != from+int64(i) {
				t.Fatalf("reader %d: gap or duplicate at position %d: seq %d", r, i, seq)
			}
		}
	}
}
