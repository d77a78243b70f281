package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"quire/kernel/event"
	"quire/kernel/protocol"
)

// WithQueueBound sets how much each Watch and each Follow may queue for a
// reader that has not taken it yet (event.DefaultBound without it); a
// reader that lets more wait is cut off with protocol.ErrLagging.
func WithQueueBound(b event.Bound) Option { return func(r *Runtime) { r.queueBound = b } }

// Watch returns a channel of every later update, for hosts that forward
// updates over a slow link (a webview, an SSE connection). Updates are queued
// so the appending goroutine never waits on a host, and are delivered in
// order, none dropped, until ctx ends — or until the host lets more than the
// runtime's queue bound wait: then the queue is let go, the channel closes
// and errp says protocol.ErrLagging, so the host can watch again and reload
// from the last seq it saw (nothing is lost: the log has it all). errp is
// nil when ctx ended.
func (r *Runtime) Watch(ctx context.Context) (<-chan Update, func() error) {
	out := make(chan Update)
	queue := event.NewQueue(r.queueBound, updateSize)
	// Once dropped, a watcher costs its appends nothing more (no sessions
	// list is built for it) while its goroutine waits for the host to take
	// what it already holds.
	var dropped atomic.Bool
	unsubscribe := r.feed.Listen(func(ctx context.Context, evs []event.Event) {
		if dropped.Load() {
			return
		}
		if u, ok := r.update(ctx, evs); ok && !queue.Push(u) {
			dropped.Store(true)
		}
	})
	var (
		mu    sync.Mutex
		cause error
	)
	go func() {
		defer close(out)
		defer unsubscribe()
		for {
			batch, err := queue.Take(ctx)
			if errors.Is(err, event.ErrLagging) {
				mu.Lock()
				cause = lagging(err)
				mu.Unlock()
			}
			if err != nil {
				return
			}
			for _, u := range batch {
				select {
				case out <- u:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out, func() error {
		mu.Lock()
		defer mu.Unlock()
		return cause
	}
}

// lagging is the kernel's ErrLagging as hosts know it; both stay in the chain.
func lagging(err error) error { return fmt.Errorf("%w: %w", protocol.ErrLagging, err) }

// updateSize is what an update costs a watcher's queue: its events' payloads
// and envelopes, and the sessions list when it carries one.
func updateSize(u Update) int {
	n := 0
	for _, e := range u.Events {
		n += len(e.Payload) + len(e.Session) + len(e.Type) + len(e.RunID) + 8*len(e.Sources) + 96
	}
	for _, s := range u.Sessions {
		n += len(s.ID) + len(s.Title) + len(s.Status) + len(s.RunStatus) + len(s.Parent) + 96
	}
	return n
}
