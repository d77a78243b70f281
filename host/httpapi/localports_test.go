package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"quire/doctor"
	"quire/host"
	"quire/host/httpapi"
	"quire/kernel/protocol"
	"quire/test/testkit"
)

// recorder keeps what a back end was asked, in order, each call with
// what it was given.
type recorder struct {
	mu    sync.Mutex
	calls []string
}

func (r *recorder) called(f string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, fmt.Sprint(append([]any{f}, args...)...))
}

// taken is what was asked since the last taken.
func (r *recorder) taken() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.calls
	r.calls = nil
	return c
}

// recordingNotes is the owner's Notes panel back end as the routes see it:
// each call recorded, answered from what it was given.
type recordingNotes struct{ recorder }

func (n *recordingNotes) Tree(_ context.Context, path string) (protocol.NoteFolder, error) {
	n.called("Tree ", path)
	return protocol.NoteFolder{Root: "/notes", Path: path}, nil
}
func (n *recordingNotes) Read(_ context.Context, path string) (protocol.NoteText, error) {
	n.called("Read ", path)
	return protocol.NoteText{Path: path, Text: "# " + path}, nil
}
func (n *recordingNotes) Changes(context.Context) (protocol.ChangeList, error) {
	n.called("Changes")
	return protocol.ChangeList{Changes: []protocol.ChangeRecord{{ID: "chg_1", Path: "plan.md", Session: "s1"}}, UndoAll: map[string][]string{"s1": {"chg_1"}}}, nil
}
func (n *recordingNotes) Undo(_ context.Context, id string) (protocol.UndoOutcome, error) {
	n.called("Undo ", id)
	if id == "gone" {
		return protocol.UndoOutcome{}, fmt.Errorf("no change %s: %w", id, protocol.ErrNotFound)
	}
	return protocol.UndoOutcome{Undone: []string{id}}, nil
}
func (n *recordingNotes) UndoAll(_ context.Context, session string, ids []string) (protocol.UndoOutcome, error) {
	n.called("UndoAll ", session, " ", ids)
	return protocol.UndoOutcome{Undone: ids}, nil
}
func (n *recordingNotes) Versions(_ context.Context, id string) (protocol.NoteVersions, error) {
	n.called("Versions ", id)
	return protocol.NoteVersions{ID: id}, nil
}
func (n *recordingNotes) Links(_ context.Context, path string) (protocol.NoteLinks, error) {
	n.called("Links ", path)
	return protocol.NoteLinks{Path: path, Indexed: true}, nil
}
func (n *recordingNotes) Preview(_ context.Context, tool string, args json.RawMessage) (protocol.WritePreview, error) {
	n.called("Preview ", tool, " ", string(args))
	return protocol.WritePreview{Tool: tool}, nil
}

// ownerSocket serves b — with a kernel and a doctor when it has none — on
// a local channel of its own until the test ends, and dials it.
func ownerSocket(t *testing.T, b httpapi.Backend) *httpapi.Local {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "quire.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	if b.Kernel == nil {
		b.Kernel = testkit.New(t).Runtime
	}
	if b.Doctor == nil {
		b.Doctor = func(context.Context) doctor.Report { return doctor.Report{OK: true} }
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- httpapi.ServeSocket(ctx, ln, b, slog.New(slog.DiscardHandler)) }()
	local := httpapi.DialLocal(sock)
	t.Cleanup(func() {
		local.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeSocket: %v", err)
		}
	})
	return local
}

// A terminal reaches the owner's Notes panel back end over the local
// channel (the /api/notes routes), so its /undo reverts a change the way
// the window's Changes list does; the owner's refusal keeps its sentinel.
func TestLocalNotesReachTheOwner(t *testing.T) {
	owner := &recordingNotes{}
	var n host.Notes = ownerSocket(t, httpapi.Backend{Notes: owner}).Notes()
	cases := []struct {
		name, call string
		do         func() (any, error)
		want       any
	}{
		{"the tree", "Tree inbox/a b", func() (any, error) { return n.Tree(t.Context(), "inbox/a b") }, protocol.NoteFolder{Root: "/notes", Path: "inbox/a b"}},
		{"a note", "Read plan.md", func() (any, error) { return n.Read(t.Context(), "plan.md") }, protocol.NoteText{Path: "plan.md", Text: "# plan.md"}},
		{"the changes", "Changes", func() (any, error) { return n.Changes(t.Context()) },
			protocol.ChangeList{Changes: []protocol.ChangeRecord{{ID: "chg_1", Path: "plan.md", Session: "s1"}}, UndoAll: map[string][]string{"s1": {"chg_1"}}}},
		{"an undo", "Undo chg_1", func() (any, error) { return n.Undo(t.Context(), "chg_1") }, protocol.UndoOutcome{Undone: []string{"chg_1"}}},
		{"undo all", "UndoAll s1 [chg_2 chg_1]", func() (any, error) { return n.UndoAll(t.Context(), "s1", []string{"chg_2", "chg_1"}) },
			protocol.UndoOutcome{Undone: []string{"chg_2", "chg_1"}}},
		{"both versions", "Versions chg_1", func() (any, error) { return n.Versions(t.Context(), "chg_1") }, protocol.NoteVersions{ID: "chg_1"}},
		{"links", "Links a b/plan.md", func() (any, error) { return n.Links(t.Context(), "a b/plan.md") }, protocol.NoteLinks{Path: "a b/plan.md", Indexed: true}},
		{"a preview", `Preview edit_note {"path":"a.md"}`, func() (any, error) { return n.Preview(t.Context(), "edit_note", json.RawMessage(`{"path":"a.md"}`)) },
			protocol.WritePreview{Tool: "edit_note"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			owner.taken()
			got, err := c.do()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
			if calls := owner.taken(); len(calls) != 1 || calls[0] != c.call {
				t.Errorf("the owner was called %q, want %q", calls, c.call)
			}
		})
	}
	if _, err := n.Undo(t.Context(), "gone"); !errors.Is(err, protocol.ErrNotFound) {
		t.Errorf("an unknown change: %v, want ErrNotFound", err)
	}
}
