//go:build unix

package notes

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"quire/kernel/tool"
	"quire/test/testkit"
)

// A FIFO, socket or device named like a note is no note to move: move_note
// refuses it at once. It read the file's content first (its SHA-256 for
// undo), and opening a FIFO waits for a writer that never comes — under
// the write lock, so every later write of every conversation hung too.
func TestMoveRefusesAFIFONamedLikeANote(t *testing.T) {
	k := newKit(t)
	if err := syscall.Mkfifo(filepath.Join(k.dir, "pipe.md"), 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	done := make(chan tool.Result, 1)
	go func() { done <- k.run("move_note", map[string]any{"from": "pipe.md", "to": "moved.md"}) }()
	select {
	case res := <-done:
		if f, _ := res.Data.(Failure); res.Status != tool.Failure || f.Error != "not_note" {
			t.Fatalf("move_note of a FIFO: %s %s", res.Status, res.Content)
		}
	case <-time.After(testkit.Patience):
		t.Fatal("move_note of a FIFO did not answer (it waits to read it, holding the write lock)")
	}
	// The write lock is free: another note can be written.
	k.ok("create_note", map[string]any{"path": "after.md", "content": "x"})
}

// A moved note replaced since by a FIFO is a note changed since, for the
// Changes list and for undo, answered at once: both read the file's hash,
// and waiting on the FIFO hung the Notes panel's list (and an undo, under
// the write lock).
func TestAMovedNoteNowAFIFOIsChanged(t *testing.T) {
	k := newKit(t)
	k.write("a.md", "# A\n")
	c := change(t, k.ok("move_note", map[string]any{"from": "a.md", "to": "b.md"}))
	if err := os.Remove(filepath.Join(k.dir, "b.md")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(k.dir, "b.md"), 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	type answer struct {
		stand Standing
		res   tool.Result
	}
	done := make(chan answer, 1)
	go func() {
		s := k.root.Standing(c)
		done <- answer{s, k.run("undo", map[string]any{"changeId": c.ID})}
	}()
	select {
	case a := <-done:
		if a.stand == Applied || a.res.Status != tool.Failure {
			t.Fatalf("standing %v, undo %s %s", a.stand, a.res.Status, a.res.Content)
		}
	case <-time.After(testkit.Patience):
		t.Fatal("the standing or the undo of a move whose note is now a FIFO did not answer")
	}
}
