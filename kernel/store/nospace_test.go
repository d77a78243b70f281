package store

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"quire/kernel/event"
	"quire/test/testkit/smalldisk"
)

// TestAFullFileIsErrNoSpaceAndLosesNothing: an append the file has no room
// for (SQLite's own SQLITE_FULL, from a page cap at the file's current
// size) is event.ErrNoSpace, stores nothing of its batch and leaves what
// was stored before it whole; once there is room again the same append
// succeeds with the next seq, no gap.
func TestAFullFileIsErrNoSpaceAndLosesNothing(t *testing.T) {
	s := open(t)
	ctx := t.Context()
	if _, _, err := s.CreateSession(ctx, "a", "First", t0, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, "a", user("one"), user("two")); err != nil {
		t.Fatal(err)
	}
	var pages int64
	if err := s.DB().QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	s.LimitPages(pages)
	big := user(strings.Repeat("a long reply that needs new pages ", 2000)) // ~68 KB: more pages than the file has
	_, err := s.Append(ctx, "a", user("three"), big)
	if !errors.Is(err, event.ErrNoSpace) {
		t.Fatalf("append to a full file: %v, want event.ErrNoSpace", err)
	}
	evs, err := s.Events(ctx, "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 3 {
		t.Fatalf("%d events after the failed append, want the 3 stored before it", len(evs))
	}

	s.LimitPages(0)
	got, err := s.Append(ctx, "a", user("three"), big)
	if err != nil {
		t.Fatalf("append once there is room: %v", err)
	}
	if got[0].Seq != 3 || got[1].Seq != 4 {
		t.Fatalf("seqs %d,%d after the fault, want 3,4", got[0].Seq, got[1].Seq)
	}
}

// TestNoSpaceKeepsOtherErrorsApart: only a write that found no room is
// ErrNoSpace; a missing session stays ErrNoSession.
func TestNoSpaceKeepsOtherErrorsApart(t *testing.T) {
	s := open(t)
	_, err := s.Append(t.Context(), "nobody", user("hi"))
	if !errors.Is(err, event.ErrNoSession) || errors.Is(err, event.ErrNoSpace) {
		t.Fatalf("append to a missing session: %v, want ErrNoSession and not ErrNoSpace", err)
	}
}

// TestAFullDiskAtOpenIsNoSpaceNotDamage: a database closed cleanly (no WAL,
// no WAL index left) on a disk that has since filled cannot be opened for
// writing — SQLite has no room for the WAL index. That is event.ErrNoSpace,
// never ErrCorrupt: the file is whole, and being told it is damaged (set it
// aside) would have had the user move their conversations away. It still
// opens to read, with everything in it.
func TestAFullDiskAtOpenIsNoSpaceNotDamage(t *testing.T) {
	disk := smalldisk.Mount(t, "4m")
	path := filepath.Join(disk, "quire.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.CreateSession(t.Context(), "a", "First", t0, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(t.Context(), "a", user("kept")); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	free := smalldisk.Fill(t, filepath.Join(disk, "ballast"))

	_, err = Open(t.Context(), path)
	if !errors.Is(err, event.ErrNoSpace) || errors.Is(err, ErrCorrupt) {
		t.Fatalf("open on a full disk: %v, want event.ErrNoSpace and not ErrCorrupt", err)
	}
	r, err := OpenReadOnly(t.Context(), path)
	if err != nil {
		t.Fatalf("read on a full disk: %v", err)
	}
	evs, err := r.Events(t.Context(), "a", 0)
	r.Close()
	if err != nil || len(evs) == 0 || !strings.Contains(string(evs[len(evs)-1].Payload), "kept") {
		t.Fatalf("the log read on a full disk: %d events, %v", len(evs), err)
	}

	free()
	s, err = Open(t.Context(), path)
	if err != nil {
		t.Fatalf("open once there is room: %v", err)
	}
	s.Close()
}
