package queue

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"quire/kernel/protocol"
	"quire/kernel/store"
)

// tablesAt is the queue's tables over a new database, on a clock the test
// moves, with one running batch of n tasks.
func tablesAt(t *testing.T, n int) (*tables, *time.Time, string) {
	t.Helper()
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "quire.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := migrate(t.Context(), st.DB()); err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	tb := &tables{db: st.DB(), now: func() time.Time { return now }}
	var notes []string
	for i := range n {
		notes = append(notes, fmt.Sprintf("inbox/%02d.md", i))
	}
	ids := 0
	b := protocol.Batch{ID: "batch_1", Folder: "inbox", Title: "t", State: protocol.BatchRunning, Workers: 2}
	if err := tb.create(t.Context(), b, notes, "", func() string { ids++; return fmt.Sprint(ids) }); err != nil {
		t.Fatal(err)
	}
	return tb, &now, b.ID
}

// Claims are atomic: eight workers claiming at once never get the same
// task, and between them get every task once.
func TestClaimsNeverOverlap(t *testing.T) {
	tb, _, _ := tablesAt(t, 40)
	var mu sync.Mutex
	got := map[string]string{}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			owner := fmt.Sprintf("w%d", w)
			for {
				c, ok, _, err := tb.claim(context.Background(), owner, time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				if !ok {
					return
				}
				mu.Lock()
				if other, dup := got[c.Task]; dup {
					t.Errorf("task %s claimed by %s and %s", c.Task, other, owner)
				}
				got[c.Task] = owner
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(got) != 40 {
		t.Fatalf("%d tasks claimed, want 40", len(got))
	}
}

// A claim's lease runs out: the task is claimed again, the first claim can
// no longer put a result (done once), and after MaxAttempts claims that
// ran out the task fails with the reason and the batch goes to review.
func TestLeasesRunOutAndAttemptsAreBounded(t *testing.T) {
	tb, now, batch := tablesAt(t, 1)
	ctx := t.Context()
	first, ok, _, err := tb.claim(ctx, "a", time.Minute)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if _, ok, _, _ := tb.claim(ctx, "b", time.Minute); ok {
		t.Fatal("a task under a lease was claimed again")
	}
	*now = now.Add(2 * time.Minute)
	second, ok, _, err := tb.claim(ctx, "b", time.Minute)
	if err != nil || !ok || second.Task != first.Task || second.Attempt != 2 {
		t.Fatalf("after the lease ran out: %+v %v %v", second, ok, err)
	}
	if err := tb.finish(ctx, first, &protocol.Proposal{Reason: "late"}, ""); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("the first claim put a result: %v", err)
	}
	if err := tb.renew(ctx, first, time.Minute); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("the first claim renewed: %v", err)
	}
	*now = now.Add(2 * time.Minute)
	if _, ok, _, _ := tb.claim(ctx, "c", time.Minute); !ok {
		t.Fatal("the third attempt was not claimed")
	}
	*now = now.Add(2 * time.Minute)
	if _, ok, expired, _ := tb.claim(ctx, "d", time.Minute); ok || !slices.Equal(expired, []string{batch}) {
		t.Fatalf("a task was claimed more than %d times (%v), or its batch was not given to be told: %v", MaxAttempts, ok, expired)
	}
	tasks, _ := tb.tasks(ctx, batch)
	if k := tasks[0]; k.State != protocol.TaskFailed || k.Attempts != MaxAttempts || k.Error == "" {
		t.Fatalf("the task after %d lapsed claims: %+v", MaxAttempts, k)
	}
	if b, _ := tb.batch(ctx, batch); b.State != protocol.BatchReviewing || b.Failed != 1 {
		t.Fatalf("the batch: %+v", b)
	}
}

// A result is put once: the claim that holds the task puts it, a second
// finish of the same claim is refused, and the count of completions is 1.
func TestATaskIsDoneOnce(t *testing.T) {
	tb, _, batch := tablesAt(t, 1)
	ctx := t.Context()
	c, _, _, _ := tb.claim(ctx, "a", time.Minute)
	if err := tb.finish(ctx, c, &protocol.Proposal{Path: "p/00.md", Reason: "r"}, ""); err != nil {
		t.Fatal(err)
	}
	if err := tb.finish(ctx, c, &protocol.Proposal{Path: "q/00.md", Reason: "again"}, ""); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("a second finish: %v", err)
	}
	counts, _ := tb.doneCounts(ctx, batch)
	tasks, _ := tb.tasks(ctx, batch)
	if counts[c.Task] != 1 || tasks[0].Proposal.Path != "p/00.md" {
		t.Fatalf("done %d times, proposal %+v", counts[c.Task], tasks[0].Proposal)
	}
}

// At start the claims of a stopped process go back to the queue (its
// attempt counted); the starting process's own are left as they are.
func TestReleaseReturnsAStoppedProcesssClaims(t *testing.T) {
	tb, _, batch := tablesAt(t, 2)
	ctx := t.Context()
	dead, _, _, _ := tb.claim(ctx, "proc_dead/w0", time.Hour)
	mine, _, _, _ := tb.claim(ctx, "proc_me/w0", time.Hour)
	if err := tb.release(ctx, "proc_me/w0"); err != nil {
		t.Fatal(err)
	}
	tasks, _ := tb.tasks(ctx, batch)
	state := map[string]protocol.BatchTask{}
	for _, k := range tasks {
		state[k.ID] = k
	}
	if k := state[dead.Task]; k.State != protocol.TaskQueued || k.Attempts != 1 {
		t.Fatalf("the stopped process's claim: %+v", k)
	}
	if k := state[mine.Task]; k.State != protocol.TaskClaimed {
		t.Fatalf("this process's claim: %+v", k)
	}
	again, ok, _, _ := tb.claim(ctx, "proc_me/w1", time.Hour)
	if !ok || again.Task != dead.Task || again.Attempt != 2 {
		t.Fatalf("the released task claimed again: %+v %v", again, ok)
	}
}
