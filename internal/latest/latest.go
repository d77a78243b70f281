// Package latest relays a stream of states to a reader that may be slow,
// lossily: while the reader has not taken the state it holds, a newer one
// replaces it, so the reader never works through a queue of stale states
// and always ends up with the newest. The library's indexing progress and
// the health watcher's reports both reach their hosts through it.
//
// It owns that delivery rule only. It must never import anything but the
// standard library.
package latest

import "context"

// Relay delivers what arrives on in until ctx ends, then runs done and
// closes the channel it returned. The sender offers each state to in
// (a channel of capacity 1) replacing one still waiting there, and the
// relay holds one more, replaced too while the reader is slow: when a new
// state and the reader are ready at once, the new one is taken first, so
// a stale state is not sent after it.
func Relay[T any](ctx context.Context, in <-chan T, done func()) <-chan T {
	out := make(chan T)
	go func() {
		defer close(out)
		defer done()
		var held T
		holding := false
		for {
			select { // a newer state first
			case v := <-in:
				held, holding = v, true
			default:
			}
			var send chan T
			if holding {
				send = out
			}
			select {
			case v := <-in:
				held, holding = v, true
			case send <- held:
				holding = false
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// Offer puts v on ch (of capacity 1), replacing what the relay has not
// taken yet; the caller serialises offers to one channel.
func Offer[T any](ch chan T, v T) {
	select {
	case <-ch:
	default:
	}
	ch <- v
}

// Drain delivers, in order, what take returns each time wake fires, until
// ctx ends; then it runs done and closes the channel it returned. It is the
// reader's side of a watcher that keeps its own pending states (each with
// its rule for what a newer state replaces) and signals wake, a channel of
// capacity 1, when it holds some.
func Drain[T any](ctx context.Context, wake <-chan struct{}, take func() []T, done func()) <-chan T {
	out := make(chan T)
	go func() {
		defer close(out)
		defer done()
		for {
			select {
			case <-ctx.Done():
				return
			case <-wake:
			}
			for _, v := range take() {
				select {
				case out <- v:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out
}
