package queue_test

import (
	"context"
	"path/filepath"
	"testing"

	"quire/kernel/protocol"
	"quire/queue"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

// gate holds the first worker request for one note until released.
type gate struct {
	note    string
	arrived chan struct{}
	release chan struct{}
}

func newGate(note string) *gate {
	return &gate{note: note, arrived: make(chan struct{}), release: make(chan struct{})}
}

// script is the filing worker, whose first request for g.note waits for
// g.release (or answers with a hang, cut only by a cancel, when hang).
func (g *gate) script(hang bool) ollamatest.Option {
	first := true
	return scriptTurns(func(note string) ollamatest.Turn {
		if note == g.note && first {
			first = false
			close(g.arrived)
			if hang {
				return ollamatest.Turn{Fail: ollamatest.Failure{Kind: ollamatest.FailHang}}
			}
			<-g.release
		}
		return ollamatest.Turn{ToolCalls: fileUnder(note)}
	})
}

func gatedWorld(t *testing.T, g *gate, hang bool, n int) *world {
	t.Helper()
	fake := ollamatest.New(t, g.script(hang))
	fake.AddModel(ollamatest.DefaultModel())
	dir := t.TempDir()
	inbox(t, dir, n)
	return open(t, fake, filepath.Join(t.TempDir(), "quire.db"), dir, queue.WithWorkers(1))
}

func arrived(t *testing.T, g *gate) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Patience)
	defer cancel()
	select {
	case <-g.arrived:
	case <-ctx.Done():
		t.Fatalf("the worker of %s never asked the model", g.note)
	}
}

// Pause stops new claims while the task in hand finishes; Resume goes on
// to the review with every task done.
func TestPauseLetsTheTaskInHandFinish(t *testing.T) {
	g := newGate("inbox/n00.md")
	w := gatedWorld(t, g, false, 3)
	b, err := w.Q.Start(t.Context(), "inbox")
	if err != nil {
		t.Fatal(err)
	}
	arrived(t, g)
	if p, err := w.Q.Pause(t.Context(), b.ID); err != nil || p.State != protocol.BatchPaused {
		t.Fatalf("pause: %+v %v", p, err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Patience)
	defer cancel()
	stream := w.Q.Watch(ctx)
	close(g.release)
	for p := range stream {
		if p.Task != nil && p.Task.Note == "inbox/n00.md" && p.Task.State == protocol.TaskDone {
			break
		}
	}
	r, _ := w.Q.Get(t.Context(), b.ID)
	if r.Batch.State != protocol.BatchPaused || r.Batch.Done != 1 {
		t.Fatalf("paused batch after its task in hand: %+v", r.Batch)
	}
	for _, k := range r.Tasks[1:] {
		if k.State != protocol.TaskQueued || k.Attempts != 0 {
			t.Fatalf("a paused batch's task was claimed: %+v", k)
		}
	}
	if _, err := w.Q.Resume(t.Context(), b.ID); err != nil {
		t.Fatal(err)
	}
	if end := until(t, w.Q, b.ID, protocol.BatchReviewing); end.Done != 3 {
		t.Fatalf("resumed batch: %+v", end)
	}
}

// Cancel stops the run of the task in hand (its model reply hangs), the
// task fails saying so, no other task is claimed, and it never applies.
func TestCancelStopsTheTaskInHand(t *testing.T) {
	g := newGate("inbox/n00.md")
	w := gatedWorld(t, g, true, 3)
	b, err := w.Q.Start(t.Context(), "inbox")
	if err != nil {
		t.Fatal(err)
	}
	arrived(t, g)
	if c, err := w.Q.Cancel(t.Context(), b.ID); err != nil || c.State != protocol.BatchCancelled {
		t.Fatalf("cancel: %+v %v", c, err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Patience)
	defer cancel()
	stream := w.Q.Watch(ctx)
	r, _ := w.Q.Get(ctx, b.ID)
	for r.Tasks[0].State == protocol.TaskClaimed {
		if _, ok := <-stream; !ok {
			t.Fatalf("the task in hand never ended: %+v", r.Tasks[0])
		}
		r, _ = w.Q.Get(ctx, b.ID)
	}
	if k := r.Tasks[0]; k.State != protocol.TaskFailed || k.Error != "cancelled with the batch" {
		t.Fatalf("the task in hand: %+v", k)
	}
	for _, k := range r.Tasks[1:] {
		if k.State != protocol.TaskQueued {
			t.Fatalf("a cancelled batch's task ran: %+v", k)
		}
	}
	testkit.WaitRuns(t, w.K.Runtime, r.Tasks[0].Session, 1)
	if _, err := w.Q.Apply(t.Context(), b.ID, protocol.BatchDecision{}); err == nil {
		t.Fatal("a cancelled batch applied")
	}
}
