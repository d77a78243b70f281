package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"quire/kernel/event"
	"quire/test/testkit/pagedamage"
)

// fillSessions writes n deltas into each of the sessions sess-0..sess-3, in
// batches, as a long conversation log looks.
func fillSessions(t testing.TB, s *Store, n int) {
	t.Helper()
	ctx := context.Background()
	for k := range 4 {
		id := fmt.Sprintf("sess-%d", k)
		if _, _, err := s.CreateSession(ctx, id, id, t0, nil, nil); err != nil {
			t.Fatal(err)
		}
		var batch []event.Draft
		for i := range n {
			batch = append(batch, event.Draft{Type: event.AssistantDelta, Time: t0, RunID: "r",
				Payload: event.AssistantDeltaPayload{Content: fmt.Sprintf("token %d of a long answer ", i)}})
			if len(batch) == 1000 || i == n-1 {
				if _, err := s.Append(ctx, id, batch...); err != nil {
					t.Fatal(err)
				}
				batch = batch[:0]
			}
		}
	}
}

// TestCleanCloseLeavesNoWAL is the premise of OpenReadOnly's refusal of a
// crash copy on a read-only folder: the WAL is gone after a clean close, and
// there while the owner runs (so a crash leaves it).
func TestCleanCloseLeavesNoWAL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "quire.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.CreateSession(t.Context(), "a", "A", t0, nil, nil); err != nil {
		t.Fatal(err)
	}
	if !uncleanlyClosed(path) {
		t.Fatal("an open owner has no WAL: the rule could not tell a crash from a clean close")
	}
	s.Close()
	if uncleanlyClosed(path) {
		t.Fatal("a clean close left a WAL: a reader of a read-only copy would refuse every file")
	}
}

// TestFlippedPagesAreFoundAfterACrash reproduces issue 13's damage: 30
// pages of a real log with flipped bytes that SQLite's quick_check passes
// and its integrity_check does not. Opened for writing after a crash (a WAL
// left beside it) the full check runs and the file is refused without a
// byte of it, or of its WAL, changing; the full check (doctor's) names the
// problem.
func TestFlippedPagesAreFoundAfterACrash(t *testing.T) {
	dir := t.TempDir()
	live := filepath.Join(dir, "live.db")
	s, err := Open(t.Context(), live)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fillSessions(t, s, 3000)
	// The log so far goes into the file, as SQLite's automatic checkpoints do.
	if _, err := s.DB().Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(t.Context(), "sess-0", user("written after the checkpoint")); err != nil {
		t.Fatal(err)
	}
	// A crash copy: the file and its WAL as a killed owner leaves them.
	crashed := filepath.Join(dir, "quire.db")
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(live + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(crashed+suffix, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if n := pagedamage.FlipKeys(t, crashed, "sess-", 30); n != 30 {
		t.Fatalf("flipped %d pages, want 30", n)
	}
	before := map[string][]byte{}
	for _, suffix := range []string{"", "-wal"} {
		before[suffix], _ = os.ReadFile(crashed + suffix)
	}

	// The quick check alone passes: this is the damage it cannot see.
	r, err := OpenReadOnly(t.Context(), crashed)
	if err != nil {
		t.Fatalf("the quick check of a reader refused the file (the test no longer reproduces the issue): %v", err)
	}
	fullErr := r.Check(t.Context(), true)
	r.Close()
	if !errors.Is(fullErr, ErrCorrupt) || !strings.Contains(fullErr.Error(), "row not in PRIMARY KEY order") {
		t.Fatalf("full check: %v, want ErrCorrupt naming rows out of key order", fullErr)
	}

	if w, err := Open(t.Context(), crashed); !errors.Is(err, ErrCorrupt) {
		if err == nil {
			w.Close()
		}
		t.Fatalf("opening the damaged file after a crash: %v, want ErrCorrupt", err)
	}
	for suffix, b := range before {
		after, _ := os.ReadFile(crashed + suffix)
		if !bytes.Equal(b, after) {
			t.Fatalf("the refused file%s was written", suffix)
		}
	}
}

// TestBackupsListsTheCopiesMadeBeforeMigrating: what a damaged file's
// remedy names.
func TestBackupsListsTheCopiesMadeBeforeMigrating(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "quire.db")
	for _, name := range []string{"quire.db", "quire.db.backup-v0", "quire.db.backup-v3", "quire.db-wal", "other.db.backup-v0"} {
		os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600)
	}
	got := Backups(path)
	want := []string{filepath.Join(dir, "quire.db.backup-v0"), filepath.Join(dir, "quire.db.backup-v3")}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Backups = %v, want %v", got, want)
	}
}

// TestDamageAtRestIsFoundAfterACleanStart: a file closed cleanly and
// damaged at rest (a failing disk) passes SQLite's quick_check. The open
// after a clean end does not wait for the full check (issue 30: it is
// linear in the file's size); doctor's check (which the window and `quire
// serve` run in the background as they start) finds the damage, from then
// on the log takes no write, and the Close does not mark
// the end clean — so the next start checks in front and refuses the file
// without changing a byte of it.
func TestDamageAtRestIsFoundAfterACleanStart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "quire.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	fillSessions(t, s, 3000)
	s.Close()
	if uncleanlyClosed(path) {
		t.Fatal("the clean close left a WAL: the test would not be about damage at rest")
	}
	if n := pagedamage.FlipKeys(t, path, "sess-", 30); n != 30 {
		t.Fatalf("flipped %d pages, want 30", n)
	}
	r, err := OpenReadOnly(t.Context(), path)
	if err != nil {
		t.Fatalf("the quick check refused the file (the test no longer reproduces the issue): %v", err)
	}
	r.Close()

	w, err := Open(t.Context(), path)
	if err != nil {
		t.Fatalf("the open after a clean end checked in front of the start: %v", err)
	}
	if n := w.Checks(); n != 0 {
		t.Fatalf("the open after a clean end ran %d checks, want none", n)
	}
	if err := w.Check(t.Context(), true); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "row not in PRIMARY KEY order") {
		t.Fatalf("doctor's check: %v, want ErrCorrupt naming rows out of key order", err)
	}
	if _, err := w.Append(t.Context(), "sess-1", user("more")); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("append after the background check found damage: %v, want ErrCorrupt", err)
	}
	w.Close()
	// A reader's look leaves the WAL index it made, as before a refusal.
	if r, err := OpenReadOnly(t.Context(), path); err == nil {
		r.Close()
	}

	before, _ := os.ReadFile(path)
	files := func() string {
		names, _ := filepath.Glob(path + "*")
		return strings.Join(names, " ")
	}
	beside := files()
	if w, err := Open(t.Context(), path); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "row not in PRIMARY KEY order") {
		if err == nil {
			w.Close()
		}
		t.Fatalf("opening a file found damaged for writing: %v, want ErrCorrupt naming rows out of key order", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("the refused file was written")
	}
	if now := files(); now != beside {
		t.Errorf("the refused open changed the files beside the database: %s, then %s", beside, now)
	}
}

// TestAFileThatFailsItsCheckTakesNoMoreWrites: damage that appears while
// the owner runs (found by doctor's full check in the same process) stops
// every write to the log, and the file and its WAL stay as they were.
func TestAFileThatFailsItsCheckTakesNoMoreWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "quire.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fillSessions(t, s, 3000)
	// Everything into the file, every connection closed, so the next one
	// reads the pages from disk — then the disk goes bad under it.
	if _, err := s.DB().Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	s.DB().SetMaxIdleConns(0)
	if n := pagedamage.FlipKeys(t, path, "sess-", 30); n != 30 {
		t.Fatalf("flipped %d pages, want 30", n)
	}
	s.DB().SetMaxIdleConns(2)
	if err := s.Check(t.Context(), true); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("full check: %v, want ErrCorrupt", err)
	}
	before := map[string][]byte{}
	for _, suffix := range []string{"", "-wal"} {
		before[suffix], _ = os.ReadFile(path + suffix)
	}
	writes := map[string]error{
		"append": func() error { _, err := s.Append(t.Context(), "sess-1", user("more")); return err }(),
		"once": func() error {
			_, _, err := s.AppendOnce(t.Context(), Once{Key: "k", Fingerprint: "f"}, "sess-1", user("more"))
			return err
		}(),
		"create": func() error { _, _, err := s.CreateSession(t.Context(), "new", "New", t0, nil, nil); return err }(),
		"delete": func() error { _, err := s.DeleteSession(t.Context(), "sess-2", nil); return err }(),
	}
	for what, err := range writes {
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s into a file that failed its check: %v, want ErrCorrupt", what, err)
		}
	}
	for suffix, b := range before {
		if after, _ := os.ReadFile(path + suffix); !bytes.Equal(b, after) {
			t.Fatalf("the damaged file%s was written after it failed its check", suffix)
		}
	}
}

// TestAReaderChecksTheLogItReads: a reader's open checks the log's tables
// (what `sessions` and `replay` read) and not the rest of the file — the
// document index's and memory's tables, whose FTS5 check made most of
// `quire search`'s start (docs/BENCHMARKS-NOTEBOOK.md, "CLI time to first result").
// A broken page of the log is refused at a reader's open; a broken page
// elsewhere is not, and the full check (doctor's, every owner's open)
// still finds it.
func TestAReaderChecksTheLogItReads(t *testing.T) {
	cases := []struct {
		name       string
		marker     string
		readerOpen bool
	}{
		{"a page of the log", "token 1500 of", false},
		{"a page of another table", "zzdoc-", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "quire.db")
			s, err := Open(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			fillSessions(t, s, 3000)
			if _, err := s.DB().Exec(`CREATE TABLE docs (id INTEGER PRIMARY KEY, text TEXT)`); err != nil {
				t.Fatal(err)
			}
			for i := range 200 {
				if _, err := s.DB().Exec(`INSERT INTO docs(text) VALUES (?)`, fmt.Sprintf("zzdoc-%d %s", i, strings.Repeat("words ", 40))); err != nil {
					t.Fatal(err)
				}
			}
			s.Close()
			if pagedamage.BreakPage(t, path, tc.marker) == 0 {
				t.Fatalf("no page holds %q", tc.marker)
			}
			r, err := OpenReadOnly(t.Context(), path)
			if !tc.readerOpen {
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("a reader opened a file with a broken log page: %v, want ErrCorrupt", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("a reader's open checked more than the log: %v", err)
			}
			defer r.Close()
			if err := r.Check(t.Context(), false); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("the whole file's check: %v, want ErrCorrupt (the test no longer breaks a page)", err)
			}
		})
	}
}
