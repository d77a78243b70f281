package queue

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"quire/kernel/protocol"
	"quire/kernel/store"
	"quire/kernel/tool"
	"quire/tools/notes"
)

type rootNotes struct{ root *notes.Root }

func (n rootNotes) Tools(log notes.ChangeLog) []tool.Tool { return notes.Tools(n.root, log) }
func (n rootNotes) Resolve(rel string) (string, error)    { return n.root.Resolve(rel) }

// A stop while applying (here: two of four steps made) is put back at the
// next start: the steps made are undone, and the batch waits for review
// again, saying why.
func TestAStopWhileApplyingIsPutBack(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"inbox/a.md", "inbox/b.md"} {
		if err := os.MkdirAll(filepath.Join(dir, "inbox"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), []byte("# "+n+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := notes.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "quire.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := t.Context()
	q, err := Open(ctx, st.DB(), rootNotes{root})
	if err != nil {
		t.Fatal(err)
	}
	b := protocol.Batch{ID: "batch_1", Folder: "inbox", Title: "t", State: protocol.BatchRunning, Workers: 1}
	if err := q.t.create(ctx, b, []string{"inbox/a.md", "inbox/b.md"}, "", randomID); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		c, _, _, _ := q.t.claim(ctx, "w", time.Minute)
		to := "projects/" + filepath.Base(c.Note)
		if err := q.t.finish(ctx, c, &protocol.Proposal{Path: to, Tags: []string{"p"}, Reason: "r"}, ""); err != nil {
			t.Fatal(err)
		}
	}
	r, _ := q.Get(ctx, b.ID)
	steps, _, err := q.plan(r.Tasks, protocol.BatchDecision{Items: r.Items})
	if err != nil || len(steps) != 4 {
		t.Fatalf("plan: %d steps, %v", len(steps), err)
	}
	if _, err := q.t.transition(ctx, b.ID, []string{protocol.BatchReviewing}, protocol.BatchApplying, ""); err != nil {
		t.Fatal(err)
	}
	if err := q.run(ctx, b.ID, steps[:2]); err != nil { // both moves; then the stop
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "projects", "a.md")); err != nil {
		t.Fatal("the first step was not made:", err)
	}

	again, err := Open(ctx, st.DB(), rootNotes{root})
	if err != nil {
		t.Fatal(err)
	}
	if err := again.Attach(ctx, protocol.Unavailable{Err: ErrStopped}); err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	got, _ := again.Get(ctx, b.ID)
	if got.Batch.State != protocol.BatchReviewing || !strings.Contains(got.Batch.Error, "stopped while applying") || got.Batch.Applied != 0 {
		t.Fatalf("after the restart: %+v", got.Batch)
	}
	for _, n := range []string{"inbox/a.md", "inbox/b.md"} {
		if text, err := os.ReadFile(filepath.Join(dir, n)); err != nil || string(text) != "# "+n+"\n" {
			t.Fatalf("%s after the restart: %q %v", n, text, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "projects", "a.md")); !os.IsNotExist(err) {
		t.Fatalf("projects/a.md is still there: %v", err)
	}
	// Applied again, whole this time.
	if done, err := again.Apply(ctx, b.ID, protocol.BatchDecision{Items: got.Items}); err != nil || done.Applied != 2 {
		t.Fatalf("applying again: %+v %v", done, err)
	}
}

// A batch is told to the watchers as a restart finds it, whatever moment
// the kill caught: its state changed in a process that was gone before it
// could say so, or the restart changed it itself. Before, a restart that
// found its batch reviewing had nothing to claim and said nothing, and a
// watcher waited for ever (the crash test's silent child).
func TestARestartTellsEachOpenBatchAsItStands(t *testing.T) {
	for _, c := range []struct {
		name string
		// kill leaves the two-note batch as a SIGKILL at that moment would.
		kill         func(t *testing.T, tb *tables)
		state        string
		done, failed int
	}{
		{"after the last result was put, before it was told", func(t *testing.T, tb *tables) {
			for range 2 {
				finishNext(t, tb)
			}
		}, protocol.BatchReviewing, 2, 0},
		{"holding the last task on its last attempt", func(t *testing.T, tb *tables) {
			finishNext(t, tb)
			for i := range MaxAttempts {
				if _, ok, _, err := tb.claim(t.Context(), "proc_dead/w0", time.Hour); !ok || err != nil {
					t.Fatalf("claim %d: %v %v", i+1, ok, err)
				}
				if i < MaxAttempts-1 {
					if err := tb.release(t.Context(), "proc_next"); err != nil { // an earlier restart
						t.Fatal(err)
					}
				}
			}
		}, protocol.BatchReviewing, 1, 1},
		{"while paused", func(t *testing.T, tb *tables) {
			finishNext(t, tb)
			if _, err := tb.transition(t.Context(), "batch_1", []string{protocol.BatchRunning}, protocol.BatchPaused, ""); err != nil {
				t.Fatal(err)
			}
		}, protocol.BatchPaused, 1, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "quire.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			ctx := t.Context()
			killed, err := Open(ctx, st.DB(), rootNotes{})
			if err != nil {
				t.Fatal(err)
			}
			b := protocol.Batch{ID: "batch_1", Folder: "inbox", Title: "t", State: protocol.BatchRunning, Workers: 1}
			if err := killed.t.create(ctx, b, []string{"inbox/a.md", "inbox/b.md"}, "", randomID); err != nil {
				t.Fatal(err)
			}
			c.kill(t, killed.t)

			again, err := Open(ctx, st.DB(), rootNotes{})
			if err != nil {
				t.Fatal(err)
			}
			// A watcher of the new process, read without waiting: Attach
			// tells before it returns, and no worker has a task to claim.
			w := watching(again)
			if err := again.Attach(ctx, protocol.Unavailable{Err: ErrStopped}); err != nil {
				t.Fatal(err)
			}
			defer again.Close()
			told := w.take()
			if len(told) != 1 {
				t.Fatalf("the restart told %d batches, want 1: %+v", len(told), told)
			}
			if got := told[0].Batch; got.ID != b.ID || got.State != c.state || got.Done != c.done || got.Failed != c.failed {
				t.Fatalf("the restart told %s %s (%d done, %d failed), want %s (%d done, %d failed)",
					got.ID, got.State, got.Done, got.Failed, c.state, c.done, c.failed)
			}
		})
	}
}

// finishNext claims the next task and puts a proposal in it.
func finishNext(t *testing.T, tb *tables) {
	t.Helper()
	c, ok, _, err := tb.claim(t.Context(), "proc_dead/w0", time.Hour)
	if !ok || err != nil {
		t.Fatalf("claim: %v %v", ok, err)
	}
	if err := tb.finish(t.Context(), c, &protocol.Proposal{Path: "projects/" + filepath.Base(c.Note), Reason: "r"}, ""); err != nil {
		t.Fatal(err)
	}
}

// watching is a watcher of q read without waiting (take), for tests that
// know every change was offered before they look.
func watching(q *Queue) *watcher {
	w := &watcher{pending: map[string]protocol.BatchProgress{}, signal: make(chan struct{}, 1)}
	q.mu.Lock()
	q.watchers[w] = struct{}{}
	q.mu.Unlock()
	return w
}

// A task whose last lease ran out fails at the next claim, and when it was
// the batch's last open task, that claim tells the batch is reviewing: no
// worker holds the task any more, so no one else would.
func TestALastLeaseRunningOutIsTold(t *testing.T) {
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "quire.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := t.Context()
	now := time.Unix(1_800_000_000, 0)
	q, err := Open(ctx, st.DB(), rootNotes{}, WithClock(func() time.Time { return now }), WithLease(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	b := protocol.Batch{ID: "batch_1", Folder: "inbox", Title: "t", State: protocol.BatchRunning, Workers: 1}
	if err := q.t.create(ctx, b, []string{"inbox/a.md"}, "", randomID); err != nil {
		t.Fatal(err)
	}
	w := watching(q)
	for i := range MaxAttempts { // each worker stuck past its lease
		if _, ok := q.next(ctx, "proc_me/w0"); !ok {
			t.Fatalf("claim %d found no task", i+1)
		}
		now = now.Add(2 * time.Minute)
	}
	if told := w.take(); len(told) != 0 {
		t.Fatalf("told before the task failed: %+v", told)
	}
	if _, ok := q.next(ctx, "proc_me/w1"); ok {
		t.Fatalf("the task was claimed more than %d times", MaxAttempts)
	}
	told := w.take()
	if len(told) != 1 || told[0].Batch.State != protocol.BatchReviewing || told[0].Batch.Failed != 1 {
		t.Fatalf("after the last lease ran out, told %+v; want batch_1 reviewing with 1 failed", told)
	}
}
