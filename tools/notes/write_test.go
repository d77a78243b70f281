package notes

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"quire/kernel/tool"
)

func TestCreateNoteNeverOverwrites(t *testing.T) {
	k := newKit(t)
	res := k.ok("create_note", map[string]any{"path": "projects/new/plan.md", "content": "# Plan\n", "requestId": "r1"})
	c := change(t, res)
	if k.read("projects/new/plan.md") != "# Plan\n" || c.Before != nil || *c.After != "# Plan\n" || c.Path != "projects/new/plan.md" || c.RequestID != "r1" {
		t.Fatalf("created %+v", c)
	}
	contains(t, res.Content, "Created projects/new/plan.md", c.ID)

	msg := k.fails("create_note", map[string]any{"path": "projects/new/plan.md", "content": "other", "requestId": "r2"}, "exists")
	contains(t, msg, "never overwrites", "edit_note")
	contains(t, k.fails("create_note", map[string]any{"path": "projects/new/plan.md", "content": "# Plan\n", "requestId": "r3"}, "exists"), "exactly this content")
	if k.read("projects/new/plan.md") != "# Plan\n" {
		t.Fatal("create_note overwrote a note")
	}
	k.fails("create_note", map[string]any{"path": "projects/new", "content": "x"}, "not_note")
	contains(t, k.fails("create_note", map[string]any{"path": "script.sh", "content": "rm -rf"}, "not_note"), ".md")
	k.fails("create_note", map[string]any{"path": "nul.md.md", "content": "a\x00b"}, "bad_path") // NUL.md.md is a device name
	k.fails("create_note", map[string]any{"path": "zero.md", "content": "a\x00b"}, "invalid_args")
	k.fails("append_note", map[string]any{"path": "projects/new/plan.md", "text": "a\x00b"}, "invalid_args")
	noTemps(t, k.dir)
}

// TestCreateNoteRetriedMakesOneNote: the same requestId again, even
// concurrently (the runtime may retry while a slow first try still runs),
// makes one note and gives every try the same change.
func TestCreateNoteRetriedMakesOneNote(t *testing.T) {
	k := newKit(t)
	args := map[string]any{"path": "idea.md", "content": "an idea\n", "requestId": "req-7"}
	var wg sync.WaitGroup
	results := make([]tool.Result, 8)
	for i := range results {
		wg.Go(func() { results[i] = k.run("create_note", args) })
	}
	wg.Wait()
	first := change(t, results[0])
	for _, res := range results {
		if res.Status != tool.Success || change(t, res).ID != first.ID {
			t.Fatalf("a retry gave %s %s (change %v), want the first change %s", res.Status, res.Content, res.Data, first.ID)
		}
	}
	entries, _ := os.ReadDir(k.dir)
	if len(entries) != 1 || k.read("idea.md") != "an idea\n" {
		t.Fatalf("%d entries after the retries", len(entries))
	}
	// The id cannot be reused for another note.
	contains(t, k.fails("create_note", map[string]any{"path": "other.md", "content": "x", "requestId": "req-7"}, "request_reused"), "new requestId")
	// Without a requestId the call's id keys the retry.
	raw := json.RawMessage(`{"path": "b.md", "content": "b"}`)
	b1, b2 := k.runRaw("create_note", "call-b", raw), k.runRaw("create_note", "call-b", raw)
	if b1.Status != tool.Success || b2.Status != tool.Success || change(t, b2).ID != change(t, b1).ID {
		t.Fatalf("a retry of the same call: %s, then %s", b1.Content, b2.Content)
	}
	// Another call with the same arguments is another request: the note exists.
	k.fails("create_note", map[string]any{"path": "b.md", "content": "b"}, "exists")
}

func TestAppendNote(t *testing.T) {
	k := newKit(t)
	k.write("log.md", "first")
	c := change(t, k.ok("append_note", map[string]any{"path": "log.md", "text": "second"}))
	if got := k.read("log.md"); got != "first\nsecond\n" {
		t.Fatalf("appended: %q", got)
	}
	if *c.Before != "first" || *c.After != "first\nsecond\n" {
		t.Errorf("change %+v", c)
	}
	k.write("crlf.md", "a\r\n")
	k.ok("append_note", map[string]any{"path": "crlf.md", "text": "b"})
	if got := k.read("crlf.md"); got != "a\r\nb\r\n" {
		t.Errorf("CRLF note: %q", got)
	}
	contains(t, k.fails("append_note", map[string]any{"path": "missing.md", "text": "x"}, "not_found"), "does not exist")
	k.fails("append_note", map[string]any{"path": "log.md", "text": ""}, "invalid_args")
	noTemps(t, k.dir)
}

func TestAppendKeepsTheNotesMode(t *testing.T) {
	k := newKit(t)
	k.write("private.md", "x")
	p := filepath.Join(k.dir, "private.md")
	os.Chmod(p, 0o600)
	k.ok("append_note", map[string]any{"path": "private.md", "text": "y"})
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v after the write, want 0600", fi.Mode().Perm())
	}
}

func TestEditNoteReplacesExactlyOneMatch(t *testing.T) {
	k := newKit(t)
	k.write("plan.md", "# Plan\n- buy seeds\n- water\n- water\n")
	c := change(t, k.ok("edit_note", map[string]any{"path": "plan.md", "find": "- buy seeds", "replace": "- buy tomato seeds"}))
	if got := k.read("plan.md"); got != "# Plan\n- buy tomato seeds\n- water\n- water\n" {
		t.Fatalf("edited: %q", got)
	}
	if *c.Before != "# Plan\n- buy seeds\n- water\n- water\n" {
		t.Errorf("before: %q", *c.Before)
	}

	msg := k.fails("edit_note", map[string]any{"path": "plan.md", "find": "- water", "replace": "- water daily"}, "ambiguous")
	contains(t, msg, "occurs 2 times", "lines 3, 4", "include more of the surrounding text")
	msg = k.fails("edit_note", map[string]any{"path": "plan.md", "find": "- prune", "replace": "x"}, "no_match")
	contains(t, msg, "does not occur in plan.md", "read_note")
	msg = k.fails("edit_note", map[string]any{"path": "plan.md", "find": "# PLAN", "replace": "x"}, "no_match")
	contains(t, msg, "different capitals at line 1")
	if got := k.read("plan.md"); got != "# Plan\n- buy tomato seeds\n- water\n- water\n" {
		t.Fatalf("a failed edit changed the note: %q", got)
	}
	k.fails("edit_note", map[string]any{"path": "plan.md", "find": "", "replace": "x"}, "invalid_args")
}

func TestEditNoteMatchesAcrossWindowsLineEndings(t *testing.T) {
	k := newKit(t)
	k.write("win.md", "one\r\ntwo\r\nthree\r\n")
	k.ok("edit_note", map[string]any{"path": "win.md", "find": "one\ntwo", "replace": "1\n2"})
	if got := k.read("win.md"); got != "1\r\n2\r\nthree\r\n" {
		t.Fatalf("edited: %q", got)
	}
}

func TestMoveNoteNeverOverwritesAndMovesOnce(t *testing.T) {
	k := newKit(t)
	k.write("inbox/idea.md", "idea")
	k.write("projects/taken.md", "taken")
	args := map[string]any{"from": "inbox/idea.md", "to": "projects/2026/idea.md", "requestId": "mv-1"}
	c := change(t, k.ok("move_note", args))
	if k.exists("inbox/idea.md") || k.read("projects/2026/idea.md") != "idea" {
		t.Fatal("not moved")
	}
	if c.From != "inbox/idea.md" || c.Path != "projects/2026/idea.md" || c.SHA256 != digest("idea") {
		t.Errorf("change %+v", c)
	}
	again := k.run("move_note", args)
	if again.Status != tool.Success || change(t, again).ID != c.ID {
		t.Fatalf("the retry: %s %s", again.Status, again.Content)
	}
	contains(t, again.Content, "already moved")
	contains(t, k.fails("move_note", map[string]any{"from": "inbox/idea.md", "to": "x.md", "requestId": "mv-2"}, "not_found"), "does not exist")

	msg := k.fails("move_note", map[string]any{"from": "projects/2026/idea.md", "to": "projects/taken.md"}, "exists")
	contains(t, msg, "never replaces")
	if k.read("projects/taken.md") != "taken" || k.read("projects/2026/idea.md") != "idea" {
		t.Fatal("a refused move changed something")
	}
	k.fails("move_note", map[string]any{"from": "projects/taken.md", "to": "taken.sh"}, "not_note")
	k.fails("move_note", map[string]any{"from": "projects", "to": "projects/2026/inner"}, "bad_path")
	k.fails("move_note", map[string]any{"from": ".", "to": "x"}, "bad_path")
	noTemps(t, k.dir)
}

func TestMoveNoteIntoAFolderAndRenames(t *testing.T) {
	k := newKit(t)
	k.write("a.md", "a")
	k.write("archive/old.md", "old")
	k.ok("move_note", map[string]any{"from": "a.md", "to": "archive"})
	if k.read("archive/a.md") != "a" {
		t.Fatal("not moved into the folder")
	}
	k.ok("move_note", map[string]any{"from": "archive/a.md", "to": "archive/A.md"}) // capitals only: its own name
	if !k.exists("archive/A.md") || k.read("archive/A.md") != "a" {
		t.Fatal("the case-only rename failed")
	}
	k.ok("move_note", map[string]any{"from": "archive", "to": "2025/archive"}) // a folder, with a new parent
	if k.exists("archive") || k.read("2025/archive/old.md") != "old" {
		t.Fatal("the folder did not move")
	}
	k.ok("move_note", map[string]any{"from": "2025/archive/old.md", "to": "2025/archive/old.txt"}) // one note kind to another
}

func TestMakeFolder(t *testing.T) {
	k := newKit(t)
	c := change(t, k.ok("make_folder", map[string]any{"path": "projects/2026"}))
	if fi, err := os.Stat(filepath.Join(k.dir, "projects", "2026")); err != nil || !fi.IsDir() || c.Kind != KindMakeFolder {
		t.Fatalf("made %+v: %v", c, err)
	}
	again := k.ok("make_folder", map[string]any{"path": "projects/2026"})
	if again.Data != nil {
		t.Errorf("making an existing folder recorded a change: %+v", again.Data)
	}
	k.write("file.md", "x")
	k.fails("make_folder", map[string]any{"path": "file.md"}, "exists")
}

// TestMoveNoteRetriedConcurrentlyMovesOnce: tries of one request running at
// once move the note once and all report the same change.
func TestMoveNoteRetriedConcurrentlyMovesOnce(t *testing.T) {
	k := newKit(t)
	k.write("a.md", "a")
	args := map[string]any{"from": "a.md", "to": "b/a.md", "requestId": "mv"}
	var wg sync.WaitGroup
	results := make([]tool.Result, 6)
	for i := range results {
		wg.Go(func() { results[i] = k.run("move_note", args) })
	}
	wg.Wait()
	id := change(t, results[0]).ID
	for _, res := range results {
		if res.Status != tool.Success || change(t, res).ID != id {
			t.Fatalf("a try gave %s: %s", res.Status, res.Content)
		}
	}
	if k.exists("a.md") || k.read("b/a.md") != "a" {
		t.Fatal("not moved exactly once")
	}
}
