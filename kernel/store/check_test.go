package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestACheckBesideWritersFindsNoDamage: the owner's doctor checks the
// whole file while its chats write, and a reader's doctor while the owner
// writes. SQLite's check of an FTS5 index on a connection that cached the
// index's segments before other connections merged them away reports a
// sound file damaged (check.go), which would refuse every later write: CI
// met it in the browser suite. Three writers add and delete what was said
// (the said_fts index) while the check runs after each of their commits.
func TestACheckBesideWritersFindsNoDamage(t *testing.T) {
	for _, who := range []string{"owner", "reader"} {
		t.Run(who, func(t *testing.T) {
			s := open(t)
			ctx := t.Context()
			checker := s
			if who == "reader" {
				r, err := OpenReadOnly(ctx, s.Path())
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				checker = r
			}
			stop := make(chan struct{})
			wrote := make(chan struct{}, 1)
			var wg sync.WaitGroup
			for w := range 3 {
				wg.Go(func() {
					for i := 0; ; i++ {
						select {
						case <-stop:
							return
						default:
						}
						id := fmt.Sprintf("w%d-%d", w, i)
						if _, _, err := s.CreateSession(ctx, id, id, t0, nil, nil); err != nil {
							t.Errorf("create %s: %v", id, err)
							return
						}
						for j := range 4 {
							if _, err := s.Append(ctx, id, user(fmt.Sprintf("where is the zeppelin budget %d %d", i, j)),
								reply("the zeppelin budget of "+id+" is in plan.md")); err != nil {
								t.Errorf("append to %s: %v", id, err)
								return
							}
							select {
							case wrote <- struct{}{}:
							default:
							}
						}
						if _, err := s.DeleteSession(ctx, id, nil); err != nil {
							t.Errorf("delete %s: %v", id, err)
							return
						}
					}
				})
			}
			const checks = 150
			var failed error
			for k := 0; k < checks && failed == nil && !t.Failed(); k++ {
				<-wrote
				if err := checker.Check(ctx, true); err != nil {
					failed = fmt.Errorf("check %d of %d: %w", k+1, checks, err)
				}
			}
			close(stop)
			wg.Wait()
			if failed != nil {
				t.Fatalf("a sound file was called damaged while it was written: %v", failed)
			}
			if _, _, err := s.CreateSession(ctx, "after", "after", t0, nil, nil); err != nil {
				t.Fatalf("the log refuses writes after the checks: %v", err)
			}
		})
	}
}

// TestTheFullCheckRunsOnlyAfterAnUncleanEnd: the owner's open checks the
// whole file only when the last run did not close it (issue 30: the check
// is linear in the file's size, and it made every start wait for it).
func TestTheFullCheckRunsOnlyAfterAnUncleanEnd(t *testing.T) {
	cases := []struct {
		name  string
		last  func(t *testing.T, path string) string // leaves a file as the last run ended; returns its path
		check int64
	}{
		{"a new file", func(t *testing.T, path string) string { return path }, 0},
		{"a clean close", func(t *testing.T, path string) string {
			s := openAt(t, path)
			if _, err := s.Append(t.Context(), "s", user("hello")); err != nil {
				t.Fatal(err)
			}
			s.Close()
			return path
		}, 0},
		{"a killed owner", func(t *testing.T, path string) string {
			s := openAt(t, path)
			defer s.Close()
			if _, err := s.Append(t.Context(), "s", user("hello")); err != nil {
				t.Fatal(err)
			}
			// The file and its WAL as a killed owner leaves them.
			crashed := path + ".crashed"
			for _, suffix := range []string{"", "-wal"} {
				b, err := os.ReadFile(path + suffix)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(crashed+suffix, b, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			return crashed
		}, 1},
		{"a file of schema 2 (no mark)", func(t *testing.T, path string) string {
			s := openAt(t, path)
			if _, err := s.DB().Exec("DROP INDEX events_by_type; DROP TABLE store_state; PRAGMA user_version = 2"); err != nil {
				t.Fatal(err)
			}
			s.Close()
			return path
		}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := c.last(t, filepath.Join(t.TempDir(), "quire.db"))
			s, err := Open(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			if n := s.Checks(); n != c.check {
				t.Errorf("the open ran %d whole-file checks, want %d", n, c.check)
			}
			s.Close()
			// Whatever came before, this run ended cleanly.
			again, err := Open(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			defer again.Close()
			if n := again.Checks(); n != 0 {
				t.Errorf("the open after a clean close ran %d checks, want none", n)
			}
		})
	}
}

// openAt opens the store at path with a session "s".
func openAt(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.CreateSession(t.Context(), "s", "S", t0, nil, nil); err != nil && !errors.Is(err, ErrSessionExists) {
		t.Fatal(err)
	}
	return s
}

// TestAStoppedCheckIsNotDamage: a check whose context ends (a browser tab
// closed during doctor's check, issue 31 item 1) found nothing: it is
// ErrCheckStopped, never ErrCorrupt, and the log still takes writes.
// Stopped before the check started and while it reads the file.
func TestAStoppedCheckIsNotDamage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "quire.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fillSessions(t, s, 3000)
	cases := []struct {
		name string
		ctx  func() context.Context
	}{
		{"before", func() context.Context {
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			return ctx
		}},
		{"during", func() context.Context {
			ctx, cancel := context.WithCancel(t.Context())
			go cancel() // somewhere in the check, whichever step it reached
			return ctx
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for range 20 {
				err := s.Check(c.ctx(), true)
				if errors.Is(err, ErrCorrupt) {
					t.Fatalf("a stopped check was called damage: %v", err)
				}
				if err != nil && !(errors.Is(err, ErrCheckStopped) && errors.Is(err, context.Canceled)) {
					t.Fatalf("a stopped check: %v, want ErrCheckStopped with its cause", err)
				}
				if _, err := s.Append(t.Context(), "sess-0", user("still written")); err != nil {
					t.Fatalf("the log refuses writes after a stopped check: %v", err)
				}
			}
		})
	}
}

// TestAPassedFullCheckIsRecorded: an owner's full check that passes
// records when (LastFullCheck, what a start reads to skip its background
// check); a quick check, a reader's check and a stopped one record nothing.
func TestAPassedFullCheckIsRecorded(t *testing.T) {
	s := open(t)
	ctx := t.Context()
	last := func(st *Store) time.Time {
		t.Helper()
		at, err := st.LastFullCheck(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return at
	}
	if at := last(s); !at.IsZero() {
		t.Fatalf("a new file says it was checked at %v", at)
	}
	stopped, cancel := context.WithCancel(ctx)
	cancel()
	s.Check(stopped, true)
	if err := s.Check(ctx, false); err != nil {
		t.Fatal(err)
	}
	if at := last(s); !at.IsZero() {
		t.Fatalf("a quick or stopped check recorded %v", at)
	}
	reader, err := OpenReadOnly(ctx, s.path)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	if err := reader.Check(ctx, true); err != nil {
		t.Fatal(err)
	}
	if at := last(s); !at.IsZero() {
		t.Fatalf("a reader's check recorded %v", at)
	}
	before := time.Now().Add(-time.Second)
	if err := s.Check(ctx, true); err != nil {
		t.Fatal(err)
	}
	if at := last(s); at.Before(before) {
		t.Fatalf("after a full check: %v, want about now", at)
	}
}
