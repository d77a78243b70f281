package notes

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// relinkFixture is a small folder and a relinking move over it, made by
// hand so the apply, its journal and its undo are tested on their own.
func relinkFixture(t *testing.T, dir string) func(r *Root) *relink {
	t.Helper()
	files := map[string]string{
		"a.md":        "# A\n",
		"b.md":        "one\nsee [[a]]\nthree\n",
		"sub/c.md":    "[A](../a.md)\n",
		"sub/d.md":    "untouched\n",
		"keep/e.md":   "[[a|the A]] and ![[a]]\n",
		".trash/f.md": "[[a]]\n",
	}
	for rel, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return func(r *Root) *relink {
		return &relink{id: r.newID(), from: "a.md", to: "done/z.md", made: []string{"done"}, edits: []noteEdit{
			{at: "b.md", moved: "b.md", before: files["b.md"], after: "one\nsee [[z]]\nthree\n", links: 1},
			{at: "keep/e.md", moved: "keep/e.md", before: files["keep/e.md"], after: "[[z|the A]] and ![[z]]\n", links: 2},
			{at: "sub/c.md", moved: "sub/c.md", before: files["sub/c.md"], after: "[A](../done/z.md)\n", links: 1},
		}}
	}
}

// snapshot is every file under dir, hidden ones included, with its bytes
// and mode.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			b.WriteString("\n" + filepath.ToSlash(rel) + "/")
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, _ := d.Info()
		b.WriteString("\n" + filepath.ToSlash(rel) + " " + fi.Mode().String() + "=" + string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestRelinkAppliesWholeAndUndoRestoresEveryByte(t *testing.T) {
	k := newKit(t)
	plan := relinkFixture(t, k.dir)
	before := snapshot(t, k.dir)
	m := plan(k.root)
	if err := k.root.apply(m); err != nil {
		t.Fatal(err)
	}
	c := Change{ID: m.id, Tool: "move_note", Kind: KindMove, From: m.from, Path: m.to, SHA256: digest("# A\n"), Edits: m.fileEdits(), Made: m.made}
	k.log.changes[c.ID] = c
	if got := k.read("sub/c.md"); got != "[A](../done/z.md)\n" || !k.exists("done/z.md") || k.exists("a.md") {
		t.Fatalf("not applied: c.md %q", got)
	}
	if k.read(".trash/f.md") != "[[a]]\n" {
		t.Fatal("a note in a hidden folder was rewritten")
	}
	if k.exists(journalFolder) {
		t.Fatal("the journal folder was left in the notes folder")
	}
	noTemps(t, k.dir)
	if s := k.root.Standing(c); s != Applied {
		t.Fatalf("standing %s after the move", s)
	}
	text := UndoText(c)
	contains(t, text, "move done/z.md back to a.md", "3 notes", "- see [[z]]", "+ see [[a]]", "sub/c.md:")
	res := k.ok("undo", map[string]any{"changeId": c.ID})
	if got := snapshot(t, k.dir); got != before {
		t.Fatalf("undo did not restore every file byte for byte:\n%s\nwant\n%s", got, before)
	}
	if s := k.root.Standing(c); s != Reverted {
		t.Fatalf("standing %s after the undo", s)
	}
	u := change(t, res)
	if len(u.Edits) != 3 || u.Edits[0].After != "one\nsee [[a]]\nthree\n" {
		t.Fatalf("the undo's change: %+v", u.Edits)
	}
	k.ok("undo", map[string]any{"changeId": u.ID}) // a redo
	if k.read("b.md") != "one\nsee [[z]]\nthree\n" || !k.exists("done/z.md") {
		t.Fatal("undoing the undo did not redo the move with its links")
	}
}

func TestRelinkIsRefusedWholeWhenANoteCannotBeWritten(t *testing.T) {
	k := newKit(t)
	plan := relinkFixture(t, k.dir)
	os.Chmod(filepath.Join(k.dir, "sub", "c.md"), 0o444)
	before := snapshot(t, k.dir)
	err := k.root.apply(plan(k.root))
	if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), "sub/c.md") {
		t.Fatalf("apply = %v, want a refusal naming sub/c.md", err)
	}
	if got := snapshot(t, k.dir); got != before {
		t.Fatalf("a refused move changed the folder:\n%s", got)
	}
}

func TestRelinkUndoIsRefusedWholeWhenANoteChangedSince(t *testing.T) {
	k := newKit(t)
	plan := relinkFixture(t, k.dir)
	m := plan(k.root)
	if err := k.root.apply(m); err != nil {
		t.Fatal(err)
	}
	c := Change{ID: m.id, Tool: "move_note", Kind: KindMove, From: m.from, Path: m.to, SHA256: digest("# A\n"), Edits: m.fileEdits(), Made: m.made}
	k.log.changes[c.ID] = c
	k.write("keep/e.md", "rewritten by hand\n")
	before := snapshot(t, k.dir)
	msg := k.fails("undo", map[string]any{"changeId": c.ID}, "changed")
	contains(t, msg, "keep/e.md", "nothing was changed")
	if got := snapshot(t, k.dir); got != before {
		t.Fatalf("a refused undo changed the folder:\n%s", got)
	}
	if s := k.root.Standing(c); s != ChangedSince {
		t.Fatalf("standing %s", s)
	}
}

// TestRelinkInterruptedRecoversAllOrNothing stops an apply at each of its
// steps as a crash would (the goroutine ends there: no deferred rollback,
// the journal left), then opens the folder again: the tree is the whole
// before, byte for byte — after the last step too, since the call's result
// never reached a log — and the recovery says so.
func TestRelinkInterruptedRecoversAllOrNothing(t *testing.T) {
	for _, stop := range []applyStep{"journal", "staged", "edit 1", "edit 2", "edit 3", "renamed", "moved"} {
		t.Run(stop, func(t *testing.T) {
			dir, journals := t.TempDir(), t.TempDir()
			plan := relinkFixture(t, dir)
			before := snapshot(t, dir)
			r, err := Open(dir, WithJournal(journals), withPID(-1), withApplyHook(func(s applyStep) {
				if s == stop {
					runtime.Goexit()
				}
			}))
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				r.apply(plan(r))
				t.Error("the apply went past the step it was stopped at")
			}()
			<-done
			r.Close()
			if entries, _ := os.ReadDir(journals); len(entries) != 1 {
				t.Fatalf("%d journals left by the interrupted apply, want 1", len(entries))
			}
			again, err := Open(dir, WithJournal(journals))
			if err != nil {
				t.Fatal(err)
			}
			defer again.Close()
			rec := again.Recovered()
			if len(rec) != 1 || len(rec[0].Problems) > 0 {
				t.Fatalf("recovered %+v", rec)
			}
			if got := snapshot(t, dir); got != before {
				t.Fatalf("after recovery the folder is not the whole before:\n%s", got)
			}
			contains(t, rec[0].Sentence(), "rolled back", "a.md", "done/z.md", "3 notes")
			if entries, _ := os.ReadDir(journals); len(entries) != 0 {
				t.Fatalf("the journal was left after recovery")
			}
		})
	}
}

// TestRelinkNeverReplacesANoteSavedDuringIt: a note another program saves
// after the plan, while the new texts are staged, is not replaced; the
// move is put back whole and the sentence names the note.
func TestRelinkNeverReplacesANoteSavedDuringIt(t *testing.T) {
	dir := t.TempDir()
	plan := relinkFixture(t, dir)
	r, err := Open(dir, WithJournal(t.TempDir()), withApplyHook(func(s applyStep) {
		if s == "staged" {
			os.WriteFile(filepath.Join(dir, "keep", "e.md"), []byte("saved elsewhere\n"), 0o644)
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	os.WriteFile(filepath.Join(dir, "keep", "e.md"), []byte("saved elsewhere\n"), 0o644)
	want := snapshot(t, dir)
	os.WriteFile(filepath.Join(dir, "keep", "e.md"), []byte("[[a|the A]] and ![[a]]\n"), 0o644)
	err = r.apply(plan(r))
	if !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "keep/e.md") {
		t.Fatalf("apply = %v, want a refusal naming keep/e.md", err)
	}
	if got := snapshot(t, dir); got != want {
		t.Fatalf("after the refusal:\n%s\nwant\n%s", got, want)
	}
}
