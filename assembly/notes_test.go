package assembly

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"quire/config"
	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

// TestUndoFromTheChangesList: a write the user approved in a chat is listed
// with its conversation and diff, previewed writes change nothing, an undo
// of a note changed since is refused with both versions to see, and the
// undo Quire then makes itself restores the note, is recorded in the
// conversation's log and still shows as the user's after a restart.
func TestUndoFromTheChangesList(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.Script(
		ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "c1", Name: "append_note", Arguments: []byte(`{"path":"plan.md","text":"- buy seeds"}`)}}},
		ollamatest.Turn{Content: []string{"Added."}},
	)
	dataDir, notesDir := t.TempDir(), t.TempDir()
	plan := filepath.Join(notesDir, "plan.md")
	if err := os.WriteFile(plan, []byte("# Plan\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	open := func() *Parts {
		cfg := config.Config{DataDir: dataDir, OllamaHost: fake.URL(), Model: "qwen3:4b", NumCtx: 4096, NotesDir: notesDir}
		p, err := Open(t.Context(), config.NewStore(cfg), slog.New(slog.DiscardHandler), Owner)
		if err != nil {
			t.Fatal(err)
		}
		p.SetAsker(func(context.Context, protocol.Question) (protocol.Answer, error) {
			return protocol.Answer{Allowed: true}, nil
		})
		return p
	}
	s := open()
	sess, _ := protocol.Run[protocol.Session](t.Context(), s.Kernel(), "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "garden"})
	if _, err := protocol.Run[protocol.SendResult](t.Context(), s.Kernel(), "", protocol.SendMessage, protocol.SendMessagePayload{Session: sess.ID, Text: "add seeds"}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitRuns(t, s.Kernel(), sess.ID, 1)
	written := read(t, plan)
	if written != "# Plan\n- buy seeds\n" {
		t.Fatalf("the approved write left %q", written)
	}
	n := s.Notes()
	changes, err := n.Changes(t.Context())
	if err != nil || len(changes.Changes) != 1 {
		t.Fatalf("changes %+v, %v", changes, err)
	}
	c := changes.Changes[0]
	if c.Session != sess.ID || c.Title != "garden" || c.State != protocol.ChangeApplied || !strings.Contains(c.Diff, "+ - buy seeds") || !strings.Contains(c.Reverse, "- - buy seeds") {
		t.Fatalf("listed %+v", c)
	}
	if ids := changes.UndoAll[sess.ID]; len(ids) != 1 || ids[0] != c.ID {
		t.Fatalf("undo all would reverse %v", ids)
	}

	tree, err := n.Tree(t.Context(), "")
	if err != nil || len(tree.Entries) != 1 || tree.Entries[0].Path != "plan.md" || !tree.Entries[0].Note {
		t.Fatalf("tree %+v, %v", tree, err)
	}
	if got, err := n.Read(t.Context(), "plan.md"); err != nil || got.Text != written {
		t.Fatalf("read %+v, %v", got, err)
	}
	if _, err := n.Read(t.Context(), "../secret.md"); !errors.Is(err, protocol.ErrBadPayload) {
		t.Fatalf("a path out of the folder: %v", err)
	}
	pre, err := n.Preview(t.Context(), "edit_note", []byte(`{"path":"plan.md","find":"seeds","replace":"bulbs"}`))
	if err != nil || pre.Refused != "" || !strings.Contains(pre.Diff, "+ - buy bulbs") || pre.After == nil || *pre.After != "# Plan\n- buy bulbs\n" {
		t.Fatalf("preview %+v, %v", pre, err)
	}
	if pre, _ := n.Preview(t.Context(), "edit_note", []byte(`{"path":"plan.md","find":"absent","replace":"x"}`)); pre.Refused == "" {
		t.Fatal("a preview of a write the tool would refuse was not refused")
	}
	if read(t, plan) != written {
		t.Fatal("a preview changed the note")
	}

	// The user edits the note after Quire: the undo is refused, nothing lost.
	os.WriteFile(plan, []byte("# Plan\n- buy seeds\n- water\n"), 0o644)
	out, err := n.Undo(t.Context(), c.ID)
	if err != nil || out.Refused == nil || !out.Refused.ChangedSince || len(out.Undone) != 0 || !strings.Contains(out.Refused.Reason, "changed after Quire wrote it") {
		t.Fatalf("undo of a note changed since: %+v, %v", out, err)
	}
	v, err := n.Versions(t.Context(), c.ID)
	if err != nil || v.Quire == nil || *v.Quire != written || v.Now == nil || *v.Now != "# Plan\n- buy seeds\n- water\n" {
		t.Fatalf("versions %+v, %v", v, err)
	}
	if _, err := n.UndoAll(t.Context(), sess.ID, []string{}); !errors.Is(err, protocol.ErrConflict) {
		t.Fatalf("undo all of a list the user was not shown: %v", err)
	}

	os.WriteFile(plan, []byte(written), 0o644)
	out, err = n.Undo(t.Context(), c.ID)
	if err != nil || out.Refused != nil || len(out.Undone) != 1 {
		t.Fatalf("undo: %+v, %v", out, err)
	}
	if got := read(t, plan); got != "# Plan\n" {
		t.Fatalf("the undo left %q", got)
	}
	evs, err := s.Kernel().Events(t.Context(), sess.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var undone int
	for _, e := range evs {
		if e.Type == string(event.NoteUndone) {
			undone++
		}
	}
	if undone != 1 {
		t.Fatalf("%d note.undone events in the conversation's log, want 1", undone)
	}
	s.Close()

	s = open()
	defer s.Close()
	changes, err = s.Notes().Changes(t.Context())
	if err != nil || len(changes.Changes) != 1 || changes.Changes[0].State != protocol.ChangeUndone || !changes.Changes[0].ByYou {
		t.Fatalf("after a restart: %+v, %v", changes, err)
	}
	if ids := changes.UndoAll[sess.ID]; len(ids) != 0 {
		t.Fatalf("undo all would still reverse %v", ids)
	}
	testkit.CheckFile(t, config.Config{DataDir: dataDir}.DatabasePath())
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestUndoAllOfAConversation: two approved writes to one note are undone
// newest first after the one list the user was shown, each recorded in the
// conversation's log, and the note is as it was before the conversation.
func TestUndoAllOfAConversation(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.Script(
		ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "c1", Name: "append_note", Arguments: []byte(`{"path":"plan.md","text":"- buy seeds"}`)}}},
		ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "c2", Name: "edit_note", Arguments: []byte(`{"path":"plan.md","find":"seeds","replace":"bulbs"}`)}}},
		ollamatest.Turn{Content: []string{"Done."}},
	)
	dataDir, notesDir := t.TempDir(), t.TempDir()
	plan := filepath.Join(notesDir, "plan.md")
	if err := os.WriteFile(plan, []byte("# Plan\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := ownerSayingYes(t, fake, dataDir, notesDir)
	sess := say(t, s, "plan")
	if got := read(t, plan); got != "# Plan\n- buy bulbs\n" {
		t.Fatalf("the two writes left %q", got)
	}
	n := s.Notes()
	changes, err := n.Changes(t.Context())
	if err != nil || len(changes.Changes) != 2 {
		t.Fatalf("changes %+v, %v", changes, err)
	}
	ids := changes.UndoAll[sess]
	if len(ids) != 2 || ids[0] != changes.Changes[0].ID || changes.Changes[0].Tool != "edit_note" {
		t.Fatalf("undo all would reverse %v of %+v", ids, changes.Changes)
	}
	if _, err := n.UndoAll(t.Context(), sess, []string{ids[1], ids[0]}); !errors.Is(err, protocol.ErrConflict) {
		t.Fatalf("undo all in another order than the one shown: %v", err)
	}
	out, err := n.UndoAll(t.Context(), sess, ids)
	if err != nil || out.Refused != nil || strings.Join(out.Undone, ",") != strings.Join(ids, ",") {
		t.Fatalf("undo all: %+v, %v", out, err)
	}
	if got := read(t, plan); got != "# Plan\n" {
		t.Fatalf("after undo all the note is %q", got)
	}
	evs, err := s.Kernel().Events(t.Context(), sess, 0)
	if err != nil {
		t.Fatal(err)
	}
	var undone []string
	for _, e := range evs {
		if e.Type == string(event.NoteUndone) {
			p, err := event.As[event.NoteUndonePayload](event.Event{Type: event.NoteUndone, Payload: e.Payload})
			if err != nil {
				t.Fatal(err)
			}
			undone = append(undone, p.Undoes)
		}
	}
	if strings.Join(undone, ",") != strings.Join(ids, ",") {
		t.Fatalf("the log's undos %v, want %v in that order", undone, ids)
	}
}

// ownerSayingYes opens an Owner over dataDir and notesDir with Ollama at
// fake, whose every question is answered Yes; it is closed with the test.
func ownerSayingYes(t *testing.T, fake *ollamatest.Server, dataDir, notesDir string) *Parts {
	t.Helper()
	cfg := config.Config{DataDir: dataDir, OllamaHost: fake.URL(), Model: "qwen3:4b", NumCtx: 4096, NotesDir: notesDir}
	p, err := Open(t.Context(), config.NewStore(cfg), slog.New(slog.DiscardHandler), Owner)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	p.SetAsker(func(context.Context, protocol.Question) (protocol.Answer, error) {
		return protocol.Answer{Allowed: true}, nil
	})
	return p
}

// A note Quire made that was swapped since for a link out of the notes
// folder is an undo refused with the user's sentence, like a note changed
// since — not a server failure — and nothing outside the folder is touched.
func TestUndoOfANoteNowALinkOutIsRefused(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.Script(
		ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "c1", Name: "create_note", Arguments: []byte(`{"path":"made.md","content":"made\n"}`)}}},
		ollamatest.Turn{Content: []string{"Done."}},
	)
	dataDir, notesDir, outside := t.TempDir(), t.TempDir(), filepath.Join(t.TempDir(), "secret.md")
	// The target holds what Quire wrote, so only the link gives it away.
	if err := os.WriteFile(outside, []byte("made\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := ownerSayingYes(t, fake, dataDir, notesDir)
	// Named as the tool is: at num_ctx 4096 a run offers the tools its
	// request needs, not all of them (runtime fitTools).
	say(t, s, "create the note")
	made := filepath.Join(notesDir, "made.md")
	if err := os.Remove(made); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, made); err != nil {
		t.Fatal(err)
	}
	changes, err := s.Notes().Changes(t.Context())
	if err != nil || len(changes.Changes) != 1 {
		t.Fatalf("changes %+v, %v", changes, err)
	}
	id := changes.Changes[0].ID
	out, err := s.Notes().Undo(t.Context(), id)
	if err != nil {
		t.Fatalf("undo: %v, want a refusal in the outcome", err)
	}
	if out.Refused == nil || out.Refused.ID != id || out.Refused.Reason == "" || out.Refused.ChangedSince || len(out.Undone) != 0 {
		t.Fatalf("undo of a note now a link out: %+v", out)
	}
	if got := read(t, outside); got != "made\n" {
		t.Fatalf("the file outside the notes folder is %q", got)
	}
	if fi, err := os.Lstat(made); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was touched: %v", err)
	}
}
