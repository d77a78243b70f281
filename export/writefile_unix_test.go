//go:build unix

package export

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"quire/test/testkit"
)

// WriteFile writes where the path leads, as a shell's > does: a link keeps
// leading to its target, which gets the export (`-o /dev/stdout` must never
// replace the link itself); a FIFO or a device is written to, not replaced
// by a file; a file that is there keeps its mode, and a new one is readable
// like any file the user makes (0644), not private to root.
func TestWriteFileWritesWhereThePathLeads(t *testing.T) {
	body := []byte("# a conversation\n")
	t.Run("a link", func(t *testing.T) {
		dir := t.TempDir()
		target, link := filepath.Join(dir, "target.md"), filepath.Join(dir, "link.md")
		if err := os.WriteFile(target, []byte("old\n"), 0o640); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("target.md", link); err != nil {
			t.Fatal(err)
		}
		if err := WriteFile(link, body); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
		}
		got, err := os.ReadFile(target)
		if err != nil || string(got) != string(body) {
			t.Fatalf("the target holds %q (%v)", got, err)
		}
		if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o640 {
			t.Fatalf("the target's mode is %v, want 0640 kept", fi.Mode().Perm())
		}
	})
	t.Run("a FIFO", func(t *testing.T) {
		fifo := filepath.Join(t.TempDir(), "pipe")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skipf("no FIFO here: %v", err)
		}
		read := make(chan []byte, 1)
		go func() {
			f, err := os.Open(fifo)
			if err != nil {
				read <- nil
				return
			}
			defer f.Close()
			b, _ := io.ReadAll(f)
			read <- b
		}()
		if err := WriteFile(fifo, body); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-read:
			if string(got) != string(body) {
				t.Fatalf("the reader got %q", got)
			}
		case <-time.After(testkit.Patience):
			t.Fatalf("nothing was written into the FIFO in %s", testkit.Patience)
		}
		if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Fatalf("the FIFO was replaced: %v %v", fi.Mode(), err)
		}
	})
	t.Run("a folder", func(t *testing.T) {
		if err := WriteFile(t.TempDir(), body); !errors.Is(err, ErrFolder) {
			t.Fatalf("err = %v, want ErrFolder", err)
		}
	})
	t.Run("a new file", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "new.md")
		if err := WriteFile(p, body); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != 0o644 {
			t.Fatalf("mode %v (%v), want 0644", fi.Mode().Perm(), err)
		}
	})
}
