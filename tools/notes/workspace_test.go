package notes

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"quire/kernel/event"
	"quire/kernel/store"
	"quire/kernel/tool"
)

// TestDirectUndoRefusesANoteChangedSince: the Changes list's undo is the
// tool's own code, so a note the user edited after Quire wrote it is left
// alone, and the standing says so; an unchanged one comes back.
func TestDirectUndoRefusesANoteChangedSince(t *testing.T) {
	k := newKit(t)
	k.write("plan.md", "one\n")
	edited := change(t, k.ok("edit_note", map[string]any{"path": "plan.md", "find": "one", "replace": "two"}))
	if got := k.root.Standing(edited); got != Applied {
		t.Fatalf("standing after the edit = %s", got)
	}
	k.write("plan.md", "two, and the user's line\n")
	if got := k.root.Standing(edited); got != ChangedSince {
		t.Fatalf("standing after the user's edit = %s", got)
	}
	_, err := k.root.Undo(t.Context(), k.log, edited.ID)
	if !errors.Is(err, ErrChanged) {
		t.Fatalf("undo of a note changed since: %v", err)
	}
	if k.read("plan.md") != "two, and the user's line\n" {
		t.Fatal("a refused undo changed the note")
	}
	k.write("plan.md", "two\n")
	res, err := k.root.Undo(t.Context(), k.log, edited.ID)
	if err != nil {
		t.Fatal(err)
	}
	if u := change(t, res); u.Undoes != edited.ID || k.read("plan.md") != "one\n" {
		t.Fatalf("undo %+v left %q", u, k.read("plan.md"))
	}
	if got := k.root.Standing(edited); got != Reverted {
		t.Fatalf("standing after the undo = %s", got)
	}
}

// TestUndoAllGoesNewestFirstAndStopsAtTheFirstRefusal: three changes to one
// note undo in reverse order back to the start; when the oldest's note was
// changed by hand, the newer ones are undone and the run stops there.
func TestUndoAllGoesNewestFirstAndStopsAtTheFirstRefusal(t *testing.T) {
	for _, tc := range []struct {
		name     string
		tamper   bool // the first note is changed by hand before the undo
		wantDone int
		want     map[string]string
	}{
		{"all undone", false, 3, map[string]string{"a.md": "a\n", "b.md": ""}},
		{"stops at the changed note", true, 2, map[string]string{"a.md": "a by hand\n", "b.md": ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := newKit(t)
			k.write("a.md", "a\n")
			first := change(t, k.ok("append_note", map[string]any{"path": "a.md", "text": "more"}))
			second := change(t, k.ok("create_note", map[string]any{"path": "b.md", "content": "b"}))
			third := change(t, k.ok("append_note", map[string]any{"path": "b.md", "text": "bb"}))
			if tc.tamper {
				// The user rewrote a.md after Quire's append: its undo must be refused.
				k.write("a.md", "a by hand\n")
			}
			var order []string
			done, err := k.root.UndoAll(t.Context(), k.log, []string{third.ID, second.ID, first.ID}, func(id string, res tool.Result) error {
				k.log.Record(res)
				order = append(order, id)
				return nil
			})
			if len(done) != tc.wantDone || strings.Join(order, ",") != strings.Join(done, ",") {
				t.Fatalf("done %v, recorded %v, want %d", done, order, tc.wantDone)
			}
			if tc.tamper != (err != nil) || tc.tamper && !errors.Is(err, ErrChanged) {
				t.Fatalf("err = %v", err)
			}
			if done[0] != third.ID {
				t.Fatalf("the newest change was not undone first: %v", done)
			}
			for rel, want := range tc.want {
				if want == "" {
					if k.exists(rel) {
						t.Errorf("%s is still there", rel)
					}
				} else if got := k.read(rel); got != want {
					t.Errorf("%s = %q, want %q", rel, got, want)
				}
			}
		})
	}
}

// TestPreviewIsTheWriteWithoutWriting: the preview of a proposed write is
// the change the tool then makes, byte for byte, and nothing on the disk
// moves; a write the tool would refuse is refused the same way.
func TestPreviewIsTheWriteWithoutWriting(t *testing.T) {
	for _, tc := range []struct {
		name string
		tool string
		args map[string]any
		code error
	}{
		{"edit", "edit_note", map[string]any{"path": "plan.md", "find": "old", "replace": "new"}, nil},
		{"append", "append_note", map[string]any{"path": "plan.md", "text": "more"}, nil},
		{"create in a new folder", "create_note", map[string]any{"path": "new/idea.md", "content": "idea"}, nil},
		{"tags", "set_tags", map[string]any{"path": "plan.md", "tags": []string{"work"}}, nil},
		{"move", "move_note", map[string]any{"from": "plan.md", "to": "archive/plan.md"}, nil},
		{"folder", "make_folder", map[string]any{"path": "made"}, nil},
		{"edit with no match", "edit_note", map[string]any{"path": "plan.md", "find": "absent", "replace": "x"}, ErrNoMatch},
		{"create over a note", "create_note", map[string]any{"path": "plan.md", "content": "x"}, ErrExists},
		{"outside the root", "create_note", map[string]any{"path": "../x.md", "content": "x"}, ErrOutsideRoot},
		{"a read", "read_note", map[string]any{"path": "plan.md"}, ErrNotWrite},
		{"undo", "undo", map[string]any{"changeId": "chg_x"}, ErrNotWrite},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := newKit(t)
			k.write("plan.md", "old text\n")
			before := k.tree()
			raw, _ := json.Marshal(tc.args)
			got, err := k.root.Preview(t.Context(), tc.tool, raw)
			if after := k.tree(); after != before || k.exists("new") || k.exists("made") || k.exists("archive") {
				t.Fatalf("the preview changed the folder:%s\nwas:%s", after, before)
			}
			if tc.code != nil {
				if !errors.Is(err, tc.code) {
					t.Fatalf("preview err = %v, want %v", err, tc.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			made := change(t, k.ok(tc.tool, tc.args))
			got.ID, made.ID, got.RequestID, made.RequestID = "", "", "", ""
			if !sameChange(got, made) {
				t.Fatalf("preview %+v, write %+v", got, made)
			}
			if got.Diff() == "" {
				t.Fatal("the preview has no diff")
			}
		})
	}
}

func sameChange(a, b Change) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestFolderShowsOnlyWhatIsInside: the panel's tree lists one folder,
// folders first; hidden files and links that lead out are never shown; a
// name the tools refuse is listed escaped with no path to open; hostile
// paths asked for are refused.
func TestFolderShowsOnlyWhatIsInside(t *testing.T) {
	k := newKit(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.md"), []byte("secret"), 0o644)
	k.write("b.md", "b")
	k.write("A folder/x.md", "x")
	k.write(".hidden.md", "h")
	k.write("ok\u202Egnp.md", "bidi")
	k.write("bell\a.md", "bell")
	k.write("picture.png", "png")
	for name, dest := range map[string]string{"out": outside, "out.md": filepath.Join(outside, "secret.md"), "in.md": filepath.Join(k.dir, "b.md"), "dangling.md": filepath.Join(k.dir, "gone.md")} {
		if err := os.Symlink(dest, filepath.Join(k.dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	f, err := k.root.Folder(t.Context(), ".")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range f.Entries {
		names = append(names, e.Name)
		if e.Refused == "" && e.Path == "" || e.Refused != "" && e.Path != "" {
			t.Errorf("entry %+v: a path exactly when the name is usable", e)
		}
		if strings.ContainsAny(e.Name, "\u202E\a") {
			t.Errorf("entry name %q is not escaped", e.Name)
		}
	}
	if got, want := strings.Join(names, "|"), "A folder|b.md|bell<U+0007>.md|in.md|ok<U+202E>gnp.md|picture.png"; got != want {
		t.Fatalf("entries %s, want %s", got, want)
	}
	for _, e := range f.Entries {
		if e.Name == "in.md" && (!e.Link || !e.Note) || e.Name == "picture.png" && e.Note || e.Name == "A folder" && !e.Folder {
			t.Errorf("entry %+v", e)
		}
	}
	sub, err := k.root.Folder(t.Context(), "A folder")
	if err != nil || len(sub.Entries) != 1 || sub.Entries[0].Path != "A folder/x.md" {
		t.Fatalf("subfolder %+v, %v", sub, err)
	}
	for _, bad := range []string{"..", "../" + filepath.Base(outside), "out", "/etc", "b.md", "A folder/../../x", "nope"} {
		if _, err := k.root.Folder(t.Context(), bad); err == nil {
			t.Errorf("Folder(%q) was not refused", bad)
		}
	}
	for _, bad := range []string{"out.md", "../secret.md", "picture.png", ".git/config", "bell\a.md"} {
		if _, err := k.root.Note(t.Context(), bad); err == nil {
			t.Errorf("Note(%q) was not refused", bad)
		}
	}
}

// TestFolderIsBounded: a folder with more entries than a listing holds
// lists the first ones and counts the rest.
func TestFolderIsBounded(t *testing.T) {
	k := newKit(t)
	for i := range MaxFolderEntries + 7 {
		k.write(filepath.Join("many", strings.Repeat("n", 1+i%5)+string(rune('a'+i%26))+"-"+itoa(i)+".md"), "x")
	}
	f, err := k.root.Folder(t.Context(), "many")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Entries) != MaxFolderEntries || f.Omitted != 7 {
		t.Fatalf("%d entries, %d omitted", len(f.Entries), f.Omitted)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestNotePreviewIsBounded: a huge note shows its first lines up to the
// bound, cut at a line and said; a small one whole.
func TestNotePreviewIsBounded(t *testing.T) {
	k := newKit(t)
	line := strings.Repeat("word ", 19) + "end\n"
	k.write("huge.md", strings.Repeat(line, MaxPreviewBytes/len(line)+100))
	k.write("small.md", "# hi\n")
	n, err := k.root.Note(t.Context(), "huge.md")
	if err != nil {
		t.Fatal(err)
	}
	if !n.Truncated || len(n.Text) > MaxPreviewBytes || !strings.HasSuffix(n.Text, "end\n") || n.Size <= int64(len(n.Text)) {
		t.Fatalf("huge note: truncated %v, %d bytes of %d", n.Truncated, len(n.Text), n.Size)
	}
	s, err := k.root.Note(t.Context(), "small.md")
	if err != nil || s.Truncated || s.Text != "# hi\n" {
		t.Fatalf("small note %+v, %v", s, err)
	}
}

// TestChangeIndexListsEveryChangeWithItsStanding: changes from two
// conversations come newest first; the model's undo and the user's undo
// (a note.undone event) each mark what they reverted, and the user's undo
// is not listed apart; an undo that was undone again leaves its change live.
func TestChangeIndexListsEveryChangeWithItsStanding(t *testing.T) {
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "quire.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for _, s := range []string{"one", "two"} {
		if _, _, err := st.CreateSession(t.Context(), s, s, at, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	text := "a"
	n := 0
	appendChange := func(session string, typ event.Type, c Change) {
		t.Helper()
		n++
		d := event.Draft{Type: typ, Time: at.Add(time.Duration(n) * time.Minute)}
		if typ == event.NoteUndone {
			d.Payload = event.NoteUndonePayload{Undoes: c.Undoes, Change: c, Text: "undone"}
		} else {
			d.Payload = event.ToolResultPayload{Name: c.Tool, Status: "success", Content: "ok", Data: c}
		}
		if _, err := st.Append(t.Context(), session, d); err != nil {
			t.Fatal(err)
		}
	}
	w := func(id string) Change {
		return Change{ID: id, Tool: "create_note", Kind: KindWrite, Path: id + ".md", After: &text}
	}
	appendChange("one", event.ToolResult, w("chg_a"))
	appendChange("two", event.ToolResult, w("chg_b"))
	appendChange("one", event.ToolResult, w("chg_c"))
	appendChange("one", event.ToolResult, Change{ID: "chg_ua", Tool: "undo", Kind: KindWrite, Path: "chg_a.md", Before: &text, Undoes: "chg_a"})
	appendChange("two", event.NoteUndone, Change{ID: "chg_ub", Tool: "undo", Kind: KindWrite, Path: "chg_b.md", Before: &text, Undoes: "chg_b"})
	appendChange("one", event.ToolResult, w("chg_d"))
	appendChange("one", event.NoteUndone, Change{ID: "chg_ud", Tool: "undo", Kind: KindWrite, Path: "chg_d.md", Before: &text, Undoes: "chg_d"})
	appendChange("one", event.ToolResult, Change{ID: "chg_redo", Tool: "undo", Kind: KindWrite, Path: "chg_d.md", After: &text, Undoes: "chg_ud"})

	list, omitted, err := NewChangeIndex(st).List(t.Context())
	if err != nil || omitted != 0 {
		t.Fatal(err, omitted)
	}
	var got []string
	for _, l := range list {
		s := l.Session + ":" + l.Change.ID
		if l.UndoneBy != "" {
			s += " undone by " + l.UndoneBy
			if l.ByUser {
				s += " (user)"
			}
		}
		got = append(got, s)
	}
	want := []string{"one:chg_redo", "one:chg_d", "one:chg_ua", "one:chg_c", "two:chg_b undone by chg_ub (user)", "one:chg_a undone by chg_ua"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("listed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The user's undo is itself a change the log can find (the model may undo it).
	if c, err := NewChangeIndex(st).Change(t.Context(), "chg_ud"); err != nil || c.Undoes != "chg_d" {
		t.Fatalf("the user's undo: %+v, %v", c, err)
	}
}
