package runtime_test

import (
	"errors"
	"testing"

	"quire/kernel/protocol"
	"quire/kernel/runtime"
)

// A session's kind is recorded at its creation and listed with it; a kind
// the kernel does not know is refused and creates nothing.
func TestSessionKind(t *testing.T) {
	cases := []struct {
		name, kind string
		refused    bool
	}{
		{"a chat", "", false},
		{"a batch worker's session", protocol.SessionWorker, false},
		{"an unknown kind", "robot", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := kit(t)
			s, err := protocol.Run[protocol.Session](t.Context(), k.Runtime, "", protocol.CreateSession,
				protocol.CreateSessionPayload{Title: "Organise inbox/a.md", Kind: c.kind})
			if c.refused {
				if !errors.Is(err, protocol.ErrBadPayload) {
					t.Fatalf("kind %q: %v, want ErrBadPayload", c.kind, err)
				}
			} else if err != nil || s.Kind != c.kind {
				t.Fatalf("created %+v, %v; want kind %q", s, err, c.kind)
			}
			list, err := k.Runtime.Sessions(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if c.refused {
				if len(list) != 0 {
					t.Fatalf("a refused kind created %+v", list)
				}
				return
			}
			if len(list) != 1 || list[0].Kind != c.kind {
				t.Fatalf("listed %+v, want one session of kind %q", list, c.kind)
			}
		})
	}
}

// TestARuntimeDrivesOnlyItsKindOfSession: the chats' runtime takes no input
// (a message, an edit, a continue) into a worker's session, so a worker's
// conversation is never run with the chats' write tools; it says so as a
// conflict and writes nothing.
func TestARuntimeDrivesOnlyItsKindOfSession(t *testing.T) {
	k := kit(t)
	w, err := protocol.Run[protocol.Session](t.Context(), k.Runtime, "", protocol.CreateSession,
		protocol.CreateSessionPayload{Title: "Organise inbox/a.md", Kind: protocol.SessionWorker})
	if err != nil {
		t.Fatal(err)
	}
	cmds := []struct {
		name, typ string
		payload   any
	}{
		{"a message", protocol.SendMessage, protocol.SendMessagePayload{Session: w.ID, Text: "write a note"}},
		{"an edit", protocol.EditMessage, protocol.EditMessagePayload{Session: w.ID, Seq: 0, Text: "write a note"}},
		{"a continue", protocol.ContinueRun, protocol.SessionRef{Session: w.ID}},
	}
	for _, c := range cmds {
		if err := runCmd(t, k.Runtime, c.typ, c.payload); !errors.Is(err, protocol.ErrConflict) || !errors.Is(err, runtime.ErrOtherKind) {
			t.Errorf("%s into a worker's session: %v, want a conflict naming its kind", c.name, err)
		}
	}
	if evs := logOf(t, k, w.ID); len(evs) != 1 {
		t.Fatalf("the worker's session has %d events after the refusals, want only its session.created", len(evs))
	}
}
