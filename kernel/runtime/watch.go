package runtime

import (
	"context"

	"quire/kernel/event"
)

// Watch returns a channel of every later update, for hosts that forward
// updates over a slow link (a webview, an SSE connection). Updates are queued
// without bound so the appending goroutine never waits on a host, and are
// delivered in order, none dropped, until ctx ends; then the channel closes.
func (r *Runtime) Watch(ctx context.Context) <-chan Update {
	out := make(chan Update)
	queue := event.NewQueue[Update]()
	unsubscribe := r.Subscribe(func(u Update) { queue.Push(u) })
	go func() {
		defer close(out)
		defer unsubscribe()
		for {
			batch, ok := queue.Take(ctx)
			if !ok {
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
	return out
}
