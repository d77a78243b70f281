package store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestReadOnlyStoreNeverWrites: a reader sees what the owner committed and
// cannot change the file in any way — not with an append, a session, a
// migration or a journal-mode switch — even when the file is writable.
func TestReadOnlyStoreNeverWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "quire.db")
	w, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.CreateSession(t.Context(), "a", "Kept", t0, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Append(t.Context(), "a", user("hello")); err != nil {
		t.Fatal(err)
	}

	// While the owner is open (its appends may still sit in the WAL).
	r, err := OpenReadOnly(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := r.Events(t.Context(), "a", 0)
	if err != nil || len(evs) != 2 {
		t.Fatalf("reader sees %d events, %v", len(evs), err)
	}
	if _, err := r.Append(t.Context(), "a", user("sneaked in")); err == nil {
		t.Fatal("a read-only store accepted an append")
	}
	if _, _, err := r.CreateSession(t.Context(), "b", "New", t0, nil, nil); err == nil {
		t.Fatal("a read-only store created a session")
	}
	r.Close()
	w.Close()

	// After the owner closed: the file, now read-only on disk too, stays byte for byte.
	if err := os.Chmod(path, 0o400); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err = OpenReadOnly(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if list, err := r.Sessions(t.Context()); err != nil || len(list) != 1 || list[0].Title != "Kept" {
		t.Fatalf("sessions %+v %v", list, err)
	}
	if _, err := r.Append(t.Context(), "a", user("again")); err == nil {
		t.Fatal("a read-only store accepted an append")
	}
	r.Close()
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Fatal("the reader changed the database file")
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		if b, _ := os.ReadFile(path + "-wal"); len(b) > 0 {
			t.Fatalf("the reader left a %d-byte WAL", len(b))
		}
	}
}

func TestReadOnlyStoreRefusesWhatItCannotRead(t *testing.T) {
	dir := t.TempDir()
	if _, err := OpenReadOnly(t.Context(), filepath.Join(dir, "none.db")); !errors.Is(err, ErrNoDatabase) {
		t.Fatalf("missing file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "none.db")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the reader created the database file")
	}
	garbage := filepath.Join(dir, "garbage.db")
	os.WriteFile(garbage, bytes.Repeat([]byte("garbage!"), 2000), 0o600)
	if _, err := OpenReadOnly(t.Context(), garbage); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("garbage: %v", err)
	}
	old := filepath.Join(dir, "old.db")
	s, err := Open(t.Context(), old)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().Exec("PRAGMA user_version = 0"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := OpenReadOnly(t.Context(), old); !errors.Is(err, ErrOlderDatabase) {
		t.Fatalf("older schema: %v", err)
	}
}
