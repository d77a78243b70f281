package testkit

import (
	"context"
	"sync"
	"testing"
	"time"
)

// RunSubscriber is the runtime's lifecycle subscriber as a post-run step
// (memory's learner, evolve's observer) implements it.
type RunSubscriber interface {
	RunFinished(ctx context.Context, session, runID, reason string)
}

// PostRun stands between the runtime and a post-run step: it hands each
// finished run to Next and then tells the test that run's step is over, so
// nothing polls for what the step writes. Set Next before the first run.
type PostRun struct {
	Next RunSubscriber
	mu   sync.Mutex
	done map[string]chan struct{}
}

// RunFinished runs Next's step, then marks runID settled.
func (p *PostRun) RunFinished(ctx context.Context, session, runID, reason string) {
	p.Next.RunFinished(ctx, session, runID, reason)
	close(p.of(runID))
}

func (p *PostRun) of(runID string) chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done == nil {
		p.done = map[string]chan struct{}{}
	}
	if p.done[runID] == nil {
		p.done[runID] = make(chan struct{})
	}
	return p.done[runID]
}

// Settled waits until the post-run step of run runID is over, at most Patience.
func (p *PostRun) Settled(t testing.TB, runID string) {
	t.Helper()
	select {
	case <-p.of(runID):
	case <-time.After(Patience):
		t.Fatalf("the post-run step of run %s did not end in %s", runID, Patience)
	}
}
