package store

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestTheDatabaseIsPrivate: a new database, its WAL and its index are the
// user's only (0600), whatever the umask lets SQLite make.
func TestTheDatabaseIsPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "quire.db")
	w, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, _, err := w.CreateSession(t.Context(), "a", "Kept", t0, nil, nil); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s is %v, want -rw-------", filepath.Base(p), st.Mode().Perm())
		}
	}
}

// TestOpenNeverFollowsALink: a link planted where the database, its WAL or
// its index go is refused, and the file it names is left as it was.
func TestOpenNeverFollowsALink(t *testing.T) {
	for _, name := range []string{"quire.db", "quire.db-wal", "quire.db-shm"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			victim := filepath.Join(t.TempDir(), "victim.txt")
			if err := os.WriteFile(victim, []byte("the user's own file\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(victim, filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
			s, err := Open(t.Context(), filepath.Join(dir, "quire.db"))
			if err == nil {
				s.Close()
			}
			if !errors.Is(err, ErrLink) {
				t.Errorf("Open with %s a link: %v, want ErrLink", name, err)
			}
			if b, _ := os.ReadFile(victim); string(b) != "the user's own file\n" {
				t.Errorf("the linked file now holds %q", b)
			}
		})
	}
}
