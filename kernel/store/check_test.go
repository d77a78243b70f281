package store

import (
	"fmt"
	"sync"
	"testing"
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
