//go:build linux

package store

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// tmpfs mounts a small tmpfs for the test and returns its folder and a
// function that remounts it read-only. Root ignores permission bits, so a
// read-only mount is the only honest read-only folder; the test is skipped,
// saying why, where mounting is not allowed.
func tmpfs(t *testing.T) (dir string, readOnly func()) {
	t.Helper()
	dir = t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=16m"); err != nil {
		t.Skipf("cannot mount a tmpfs to make a read-only folder (%v); run as root or with CAP_SYS_ADMIN", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir, func() {
		t.Helper()
		if err := syscall.Mount("", dir, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
			t.Fatalf("remount read-only: %v", err)
		}
	}
}

// bindReadOnly makes one file read-only in place (a read-only bind mount of
// it over itself) while its folder stays writable.
func bindReadOnly(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mount(path, path, "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("cannot bind-mount %s to make it read-only (%v); run as root or with CAP_SYS_ADMIN", path, err)
	}
	t.Cleanup(func() { syscall.Unmount(path, syscall.MNT_DETACH) })
	if err := syscall.Mount("", path, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY, ""); err != nil {
		t.Fatalf("remount %s read-only: %v", path, err)
	}
}

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
	dir, readOnly := tmpfs(t)
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
	bindReadOnly(t, path)

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
