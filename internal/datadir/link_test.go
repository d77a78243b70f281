package datadir

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestTheLockNeverFollowsALink: a link planted where quire.lock goes (a
// synced or restored folder) is refused by the owner and by a reader
// asking who holds the folder, and the file it names keeps its text.
func TestTheLockNeverFollowsALink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim.txt")
	if err := os.WriteFile(victim, []byte("the user's own file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, LockFile)); err != nil {
		t.Fatal(err)
	}
	l, err := Acquire(dir, holder(Serve))
	if err == nil {
		l.Release()
	}
	if !errors.Is(err, ErrLink) {
		t.Errorf("Acquire over a link: %v, want ErrLink", err)
	}
	if _, _, err := Held(dir); !errors.Is(err, ErrLink) {
		t.Errorf("Held over a link: %v, want ErrLink", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "the user's own file\n" {
		t.Errorf("the linked file now holds %q", b)
	}
}
