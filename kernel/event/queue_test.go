package event_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"quire/kernel/event"
)

func TestQueueKeepsOrderWithinItsBound(t *testing.T) {
	strlen := func(s string) int { return len(s) }
	cases := []struct {
		name    string
		bound   event.Bound
		pushes  [][]string // each Push, in order, before the first Take
		want    []string   // what Take returns, when it does not lag
		lagging bool
	}{
		{"no bound keeps everything", event.Bound{}, [][]string{{"a", "b"}, {"c"}}, []string{"a", "b", "c"}, false},
		{"exactly at the item bound", event.Bound{Items: 3}, [][]string{{"a"}, {"b"}, {"c"}}, []string{"a", "b", "c"}, false},
		{"one past the item bound", event.Bound{Items: 3}, [][]string{{"a"}, {"b"}, {"c"}, {"d"}}, nil, true},
		{"past the item bound inside one push", event.Bound{Items: 2}, [][]string{{"a", "b", "c"}}, nil, true},
		{"exactly at the byte bound", event.Bound{Bytes: 6}, [][]string{{"aa", "bb"}, {"cc"}}, []string{"aa", "bb", "cc"}, false},
		{"one byte past the byte bound", event.Bound{Bytes: 6}, [][]string{{"aa", "bb"}, {"ccc"}}, nil, true},
		{"an oversized item into an empty queue fits", event.Bound{Bytes: 2}, [][]string{{"toolong"}}, []string{"toolong"}, false},
		{"an item after an oversized one does not", event.Bound{Bytes: 2}, [][]string{{"toolong"}, {"a"}}, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := event.NewQueue(c.bound, strlen)
			lagged := false
			for _, p := range c.pushes {
				if !q.Push(p...) {
					lagged = true
				}
			}
			if lagged != c.lagging {
				t.Fatalf("Push reported lagging=%v, want %v", lagged, c.lagging)
			}
			got, err := q.Take(t.Context())
			if c.lagging {
				if !errors.Is(err, event.ErrLagging) || got != nil {
					t.Fatalf("Take after overflow: %q, %v; want nothing and ErrLagging", got, err)
				}
				if q.Push("later") {
					t.Fatal("a push after overflow was accepted; the queue must stay ended")
				}
				return
			}
			if err != nil || !slices.Equal(got, c.want) {
				t.Fatalf("Take: %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

// The batch a consumer took is memory it still holds until it comes back
// for more, so it counts against the bound.
func TestQueueCountsTheBatchInTheConsumersHands(t *testing.T) {
	q := event.NewQueue[int](event.Bound{Items: 3}, nil)
	q.Push(1, 2)
	if got, err := q.Take(t.Context()); err != nil || !slices.Equal(got, []int{1, 2}) {
		t.Fatalf("first take: %v, %v", got, err)
	}
	q.Push(3) // into an empty queue: fits
	if q.Push(4) {
		t.Fatal("2 in hand + 2 queued fitted a bound of 3")
	}
	if _, err := q.Take(t.Context()); !errors.Is(err, event.ErrLagging) {
		t.Fatalf("take after overflow: %v", err)
	}

	// Once the consumer came back, its old batch no longer counts.
	q = event.NewQueue[int](event.Bound{Items: 3}, nil)
	q.Push(1, 2)
	q.Take(t.Context())
	q.Push(3)
	q.Take(t.Context())
	if !q.Push(4, 5) {
		t.Fatal("1 in hand + 2 queued did not fit a bound of 3")
	}
}

func TestQueueTakeEndsWithTheContextsCause(t *testing.T) {
	why := errors.New("the window closed")
	ctx, cancel := context.WithCancelCause(t.Context())
	q := event.NewQueue[int](event.DefaultBound, nil)
	done := make(chan error)
	go func() {
		_, err := q.Take(ctx)
		done <- err
	}()
	cancel(why)
	if err := <-done; !errors.Is(err, why) {
		t.Fatalf("take on an ended context: %v, want its cause", err)
	}
}
