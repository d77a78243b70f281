package event

import (
	"context"
	"sync"
)

// Queue is an unbounded first-in, first-out hand-off between a producer that
// must never block (a Feed listener runs inside an append) and a consumer that
// may be slow (a webview, an SSE connection). Nothing is dropped; order is
// kept. Safe for one or more producers and one consumer.
type Queue[T any] struct {
	mu     sync.Mutex
	items  []T
	signal chan struct{}
}

// NewQueue returns an empty queue.
func NewQueue[T any]() *Queue[T] { return &Queue[T]{signal: make(chan struct{}, 1)} }

// Push adds items at the end; it never blocks.
func (q *Queue[T]) Push(items ...T) {
	q.mu.Lock()
	q.items = append(q.items, items...)
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

// Take waits for at least one item and returns everything queued, oldest
// first; ok is false when ctx ended first.
func (q *Queue[T]) Take(ctx context.Context) (items []T, ok bool) {
	for {
		q.mu.Lock()
		items, q.items = q.items, nil
		q.mu.Unlock()
		if len(items) > 0 {
			return items, true
		}
		select {
		case <-q.signal:
		case <-ctx.Done():
			return nil, false
		}
	}
}
