package queue

import (
	"context"
	"sync"

	"quire/internal/latest"
	"quire/kernel/protocol"
)

// watcher is one Watch: the changes not yet taken, at most one per batch
// (a newer one replaces it), in the order the batches first changed.
type watcher struct {
	mu      sync.Mutex
	pending map[string]protocol.BatchProgress
	order   []string
	signal  chan struct{} // one waiting wake-up
}

func (w *watcher) offer(p protocol.BatchProgress) {
	w.mu.Lock()
	if _, ok := w.pending[p.Batch.ID]; !ok {
		w.order = append(w.order, p.Batch.ID)
	}
	w.pending[p.Batch.ID] = p
	w.mu.Unlock()
	select {
	case w.signal <- struct{}{}:
	default:
	}
}

func (w *watcher) take() []protocol.BatchProgress {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]protocol.BatchProgress, 0, len(w.order))
	for _, id := range w.order {
		out = append(out, w.pending[id])
	}
	clear(w.pending)
	w.order = w.order[:0]
	return out
}

// Watch delivers every batch's changes until ctx ends: in order per batch,
// each batch's latest state always (a terminal one is never lost); a slow
// watcher gets the latest change of each batch rather than every step
// between (its Task is the last task that changed; Get has them all).
func (q *Queue) Watch(ctx context.Context) <-chan protocol.BatchProgress {
	w := &watcher{pending: map[string]protocol.BatchProgress{}, signal: make(chan struct{}, 1)}
	q.mu.Lock()
	q.watchers[w] = struct{}{}
	q.mu.Unlock()
	return latest.Drain(ctx, w.signal, w.take, func() {
		q.mu.Lock()
		delete(q.watchers, w)
		q.mu.Unlock()
	})
}

// publish reads the batch (and the task that changed, if any) as it now is
// and offers it to every watcher; it returns the batch. Reads and offers are
// one at a time, so a watcher never gets a batch's older state after a
// newer one.
func (q *Queue) publish(ctx context.Context, id, task string) (protocol.Batch, error) {
	q.pubMu.Lock()
	defer q.pubMu.Unlock()
	b, err := q.t.batch(context.WithoutCancel(ctx), id)
	if err != nil {
		return b, err
	}
	p := protocol.BatchProgress{Batch: b}
	if task != "" {
		if k, err := q.t.task(context.WithoutCancel(ctx), task); err == nil {
			p.Task = &k
		}
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	for w := range q.watchers {
		w.offer(p)
	}
	return b, nil
}
