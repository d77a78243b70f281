package store

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"quire/test/testkit/rofs"
)

// written makes a database with one session at path and closes it cleanly.
func written(t *testing.T, path string) {
	t.Helper()
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.CreateSession(t.Context(), "a", "Kept", t0, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestReadOnlyFolderIsReadOnlyNotDamaged: an owner on a read-only folder is
// told it is read-only (not that the file is damaged), and a reader still
// reads the sessions.
func TestReadOnlyFolderIsReadOnlyNotDamaged(t *testing.T) {
	dir, readOnly := rofs.Folder(t)
	path := filepath.Join(dir, "quire.db")
	written(t, path)
	readOnly()

	if s, err := Open(t.Context(), path); !errors.Is(err, ErrReadOnly) || errors.Is(err, ErrCorrupt) {
		if err == nil {
			s.Close()
		}
		t.Fatalf("owner open of a read-only folder: %v, want ErrReadOnly", err)
	}
	r, err := OpenReadOnly(t.Context(), path)
	if err != nil {
		t.Fatalf("reader on a read-only folder: %v", err)
	}
	defer r.Close()
	if list, err := r.Sessions(t.Context()); err != nil || len(list) != 1 || list[0].Title != "Kept" {
		t.Fatalf("sessions %+v, %v", list, err)
	}
	if err := r.Check(t.Context(), true); err != nil {
		t.Fatalf("full check on a read-only folder: %v", err)
	}

	// A new database in a read-only folder: read-only too, and nothing made.
	if _, err := Open(t.Context(), filepath.Join(dir, "new.db")); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("new database in a read-only folder: %v, want ErrReadOnly", err)
	}
}

// TestReadOnlyFileIsRefusedForWriting: a read-only database file in a
// writable folder is refused by an owner (before, it opened, and the first
// write failed) and read by a reader.
func TestReadOnlyFileIsRefusedForWriting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "quire.db")
	written(t, path)
	rofs.File(t, path)

	if s, err := Open(t.Context(), path); !errors.Is(err, ErrReadOnly) {
		if err == nil {
			s.Close()
		}
		t.Fatalf("owner open of a read-only file: %v, want ErrReadOnly", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		if e.Name() != "quire.db" {
			t.Fatalf("the refused open left %s behind", e.Name())
		}
	}
	r, err := OpenReadOnly(t.Context(), path)
	if err != nil {
		t.Fatalf("reader on a read-only file: %v", err)
	}
	defer r.Close()
	if list, err := r.Sessions(t.Context()); err != nil || len(list) != 1 {
		t.Fatalf("sessions %+v, %v", list, err)
	}
}

// TestCrashCopyInAReadOnlyFolderIsNotReadWithoutItsWAL: a file with a WAL
// left beside it, in a folder that takes no WAL index, cannot be read
// through the WAL; opening it as immutable would hide the WAL's commits, so
// the reader refuses it as read-only (the remedy, making the folder
// writable, is the one that lets it read everything).
func TestCrashCopyInAReadOnlyFolderIsNotReadWithoutItsWAL(t *testing.T) {
	dir, readOnly := rofs.Folder(t)
	live := filepath.Join(t.TempDir(), "live.db")
	s, err := Open(t.Context(), live)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, _, err := s.CreateSession(t.Context(), "a", "Only in the WAL", t0, nil, nil); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "quire.db")
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(live + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path+suffix, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	readOnly()
	if r, err := OpenReadOnly(t.Context(), path); !errors.Is(err, ErrReadOnly) {
		if err == nil {
			list, _ := r.Sessions(t.Context())
			r.Close()
			t.Fatalf("read a crash copy without its WAL index: %d sessions, want ErrReadOnly", len(list))
		}
		t.Fatalf("crash copy in a read-only folder: %v, want ErrReadOnly", err)
	}
}
