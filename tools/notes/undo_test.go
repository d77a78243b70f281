package notes

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"quire/kernel/tool"
)

func TestUndoRestoresThePreviousState(t *testing.T) {
	k := newKit(t)
	undo := func(c Change) Change {
		t.Helper()
		res := k.ok("undo", map[string]any{"changeId": c.ID})
		u := change(t, res)
		if u.Undoes != c.ID || u.Tool != "undo" {
			t.Fatalf("undo change %+v", u)
		}
		return u
	}

	created := change(t, k.ok("create_note", map[string]any{"path": "new/idea.md", "content": "idea"}))
	uncreated := undo(created)
	if k.exists("new/idea.md") {
		t.Fatal("undoing a create left the note")
	}
	undo(uncreated)
	if k.read("new/idea.md") != "idea" {
		t.Fatal("undoing the undo of a create did not make the note again")
	}

	k.write("plan.md", "old text\n")
	edited := change(t, k.ok("edit_note", map[string]any{"path": "plan.md", "find": "old", "replace": "new"}))
	u := undo(edited)
	if k.read("plan.md") != "old text\n" {
		t.Fatalf("undoing an edit: %q", k.read("plan.md"))
	}
	undo(u) // an undo is a change too: undoing it redoes the edit
	if k.read("plan.md") != "new text\n" {
		t.Fatalf("undoing the undo: %q", k.read("plan.md"))
	}

	moved := change(t, k.ok("move_note", map[string]any{"from": "plan.md", "to": "archive/plan.md"}))
	undo(moved)
	if !k.exists("plan.md") || k.exists("archive/plan.md") || k.read("plan.md") != "new text\n" {
		t.Fatal("undoing a move did not move it back")
	}

	for _, step := range []struct{ tool string }{{"append_note"}, {"set_tags"}, {"link_notes"}} {
		k.write("other.md", "other")
		before := k.read("plan.md")
		var args map[string]any
		switch step.tool {
		case "append_note":
			args = map[string]any{"path": "plan.md", "text": "more"}
		case "set_tags":
			args = map[string]any{"path": "plan.md", "tags": []string{"a"}}
		case "link_notes":
			args = map[string]any{"from": "plan.md", "to": "other.md"}
		}
		undo(change(t, k.ok(step.tool, args)))
		if k.read("plan.md") != before {
			t.Errorf("undoing %s: %q, want %q", step.tool, k.read("plan.md"), before)
		}
	}

	folder := change(t, k.ok("make_folder", map[string]any{"path": "empty"}))
	removed := undo(folder)
	if k.exists("empty") {
		t.Fatal("undoing make_folder left the folder")
	}
	undo(removed)
	if !k.exists("empty") {
		t.Fatal("undoing the removal did not make the folder again")
	}
	noTemps(t, k.dir)
}

// TestUndoRefusesWhenTheNoteChangedSince: later work is never lost.
func TestUndoRefusesWhenTheNoteChangedSince(t *testing.T) {
	k := newKit(t)
	k.write("plan.md", "v1\n")
	edit := change(t, k.ok("edit_note", map[string]any{"path": "plan.md", "find": "v1", "replace": "v2"}))
	k.write("plan.md", "v3 by the user\n")
	contains(t, k.fails("undo", map[string]any{"changeId": edit.ID}, "changed"), "has changed since", "edit_note")
	if k.read("plan.md") != "v3 by the user\n" {
		t.Fatal("a refused undo changed the note")
	}

	created := change(t, k.ok("create_note", map[string]any{"path": "c.md", "content": "c"}))
	k.ok("append_note", map[string]any{"path": "c.md", "text": "more"})
	k.fails("undo", map[string]any{"changeId": created.ID}, "changed")
	if !k.exists("c.md") {
		t.Fatal("undo removed a note that changed since it was created")
	}

	k.write("m.md", "m")
	moved := change(t, k.ok("move_note", map[string]any{"from": "m.md", "to": "n.md"}))
	k.write("n.md", "m, edited")
	k.fails("undo", map[string]any{"changeId": moved.ID}, "changed")
	k.write("n.md", "m")
	k.write("m.md", "a new m")
	contains(t, k.fails("undo", map[string]any{"changeId": moved.ID}, "exists"), "would replace it")
	if k.read("m.md") != "a new m" || k.read("n.md") != "m" {
		t.Fatal("a refused undo of a move changed something")
	}

	folder := change(t, k.ok("make_folder", map[string]any{"path": "f"}))
	k.write("f/x.md", "x")
	contains(t, k.fails("undo", map[string]any{"changeId": folder.ID}, "changed"), "no longer empty")

	k.write("d.md", "1")
	twice := change(t, k.ok("edit_note", map[string]any{"path": "d.md", "find": "1", "replace": "2"}))
	k.ok("undo", map[string]any{"changeId": twice.ID})
	contains(t, k.fails("undo", map[string]any{"changeId": twice.ID}, "changed"), "already undone")

	contains(t, k.fails("undo", map[string]any{"changeId": "chg_nope"}, "not_found"), "change id")
}

// jsonLog keeps results as the event log does, as JSON, and finds changes
// with DecodeChange: the way a log-backed ChangeLog works.
type jsonLog struct {
	mu      sync.Mutex
	results []json.RawMessage
}

func (l *jsonLog) add(t *testing.T, res tool.Result) {
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	l.mu.Lock()
	l.results = append(l.results, raw)
	l.mu.Unlock()
}

func (l *jsonLog) Change(_ context.Context, id string) (Change, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, raw := range l.results {
		var res struct{ Data any }
		json.Unmarshal(raw, &res)
		if c, ok := DecodeChange(res.Data); ok && c.ID == id {
			return c, nil
		}
	}
	return Change{}, fail(ErrNotFound, "no change %s", id)
}

func TestUndoFindsChangesInAJSONLog(t *testing.T) {
	r, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	log := &jsonLog{}
	tools := map[string]tool.Tool{}
	for _, tl := range Tools(r, log) {
		tools[tl.Spec().Name] = tl
	}
	run := func(name, args string) tool.Result {
		res, _ := tools[name].Run(t.Context(), tool.Call{ID: name, Name: name, Arguments: json.RawMessage(args)})
		log.add(t, res)
		return res
	}
	os.WriteFile(filepath.Join(r.Dir(), "a.md"), []byte("café\n"), 0o644)
	res := run("edit_note", `{"path":"a.md","find":"café","replace":"tea"}`)
	id := change(t, res).ID
	if res := run("undo", `{"changeId":"`+id+`"}`); res.Status != tool.Success {
		t.Fatalf("undo: %s", res.Content)
	}
	if b, _ := os.ReadFile(filepath.Join(r.Dir(), "a.md")); string(b) != "café\n" {
		t.Fatalf("restored %q", b)
	}
	if _, ok := DecodeChange(map[string]any{"error": "no_match"}); ok {
		t.Error("a failure decoded as a change")
	}
}

// TestUndoChecksTheLoggedPaths: a change read from the log is confined like
// any argument.
func TestUndoChecksTheLoggedPaths(t *testing.T) {
	k := newKit(t)
	evil := "x"
	for _, c := range []Change{
		{ID: "chg_a", Kind: KindWrite, Path: "../outside.md", Before: &evil, After: &evil},
		{ID: "chg_b", Kind: KindMove, From: "/etc/passwd", Path: "p.md"},
	} {
		k.log.changes[c.ID] = c
		res := k.run("undo", map[string]any{"changeId": c.ID})
		if res.Status != tool.Failure || res.Data.(Failure).Error != "outside_root" {
			t.Errorf("%s: %s %s", c.ID, res.Status, res.Content)
		}
	}
}

func TestToolsWithoutALogHaveNoUndo(t *testing.T) {
	r, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, tl := range Tools(r, nil) {
		if tl.Spec().Name == "undo" {
			t.Fatal("undo offered without a change log")
		}
	}
	var l ChangeLog = NewMemoryLog()
	if _, err := l.Change(t.Context(), "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("MemoryLog: %v", err)
	}
}
