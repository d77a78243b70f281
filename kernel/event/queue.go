package event

import (
	"context"
	"errors"
	"sync"
)

// ErrLagging: a consumer let its queue fill past its Bound, so it was cut
// off rather than let it hold memory without end. Nothing is lost: the log
// has every event, and the consumer resumes from the last seq it saw
// (Follow replays without a gap).
var ErrLagging = errors.New("the reader fell too far behind and was disconnected")

// Bound is how much a Queue may hold for one consumer before that consumer
// counts as lagging. A zero field sets no limit of that kind.
type Bound struct {
	Items int // items queued or in the consumer's hands
	Bytes int // their size, as the queue's size function counts it
}

// DefaultBound is each watcher's and follower's bound unless a host says
// otherwise: far above what a reader that keeps up ever holds (streamed text
// is appended in batches every 40 ms), and small enough that twenty stalled
// browser tabs cannot take more than some tens of MB.
var DefaultBound = Bound{Items: 1024, Bytes: 1 << 20}

// Queue is a bounded first-in, first-out hand-off between a producer that
// must never block (a Feed listener runs inside an append) and a consumer that
// may be slow (a webview, an SSE connection). Order is kept and nothing is
// dropped while the consumer keeps within the bound; a push that would take
// it past the bound frees everything queued and ends the queue instead, so
// a stalled consumer costs at most its bound (plus one item: a push into an
// empty queue always fits, so one oversized item is delivered, not a cut).
// Take then reports ErrLagging. Safe for one or more producers and one
// consumer.
type Queue[T any] struct {
	bound Bound
	size  func(T) int

	mu      sync.Mutex
	items   []T
	bytes   int // of items
	held    int // items handed out by the last Take: the consumer holds them until it comes back
	heldB   int // their bytes
	lagging bool
	signal  chan struct{}
}

// NewQueue returns an empty queue bounded by b; size measures an item's
// bytes for b.Bytes (nil counts every item as zero bytes).
func NewQueue[T any](b Bound, size func(T) int) *Queue[T] {
	if size == nil {
		size = func(T) int { return 0 }
	}
	return &Queue[T]{bound: b, size: size, signal: make(chan struct{}, 1)}
}

// Push adds items at the end; it never blocks. It is false when the queue
// has ended because its consumer fell behind (these items were not kept).
func (q *Queue[T]) Push(items ...T) bool {
	q.mu.Lock()
	if q.lagging {
		q.mu.Unlock()
		return false
	}
	for _, it := range items {
		n := q.size(it)
		if len(q.items) > 0 && q.over(1, n) {
			// Let go of everything at once: the consumer will read it from
			// the log when it resumes.
			q.items, q.bytes, q.lagging = nil, 0, true
			break
		}
		q.items = append(q.items, it)
		q.bytes += n
	}
	ok := !q.lagging
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default:
	}
	return ok
}

// over reports whether adding items of n bytes passes the bound. The
// consumer's last batch counts too: it is memory held until it returns.
func (q *Queue[T]) over(items, n int) bool {
	b := q.bound
	return (b.Items > 0 && len(q.items)+q.held+items > b.Items) ||
		(b.Bytes > 0 && q.bytes+q.heldB+n > b.Bytes)
}

// Take waits for at least one item and returns everything queued, oldest
// first (the caller has finished with the previous batch when it calls
// Take again). The error is ErrLagging once the consumer fell behind, or
// the cause of ctx when ctx ended first.
func (q *Queue[T]) Take(ctx context.Context) ([]T, error) {
	for {
		q.mu.Lock()
		if q.lagging {
			q.held, q.heldB = 0, 0
			q.mu.Unlock()
			return nil, ErrLagging
		}
		items := q.items
		q.items, q.held, q.heldB, q.bytes = nil, len(items), q.bytes, 0
		q.mu.Unlock()
		if len(items) > 0 {
			return items, nil
		}
		select {
		case <-q.signal:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
}
