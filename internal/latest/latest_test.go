package latest_test

import (
	"context"
	"testing"

	"quire/internal/latest"
)

// TestASlowReaderGetsTheNewest: states offered while the reader does not
// read replace each other; the reader gets the newest, then nothing stale.
func TestASlowReaderGetsTheNewest(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	in := make(chan int, 1)
	stopped := make(chan struct{})
	out := latest.Relay(ctx, in, func() { close(stopped) })
	for i := 1; i <= 100; i++ {
		latest.Offer(in, i)
	}
	got := <-out
	for got != 100 {
		got = <-out // at most the one the relay held when 100 arrived
	}
	select {
	case v := <-out:
		t.Fatalf("a stale state %d followed the newest", v)
	default:
	}
	latest.Offer(in, 101)
	if v := <-out; v != 101 {
		t.Fatalf("after the newest, %d", v)
	}
	cancel()
	<-stopped
	if _, ok := <-out; ok {
		t.Fatal("the channel stayed open after ctx ended")
	}
}

// TestDrainDeliversWhatIsTakenInOrderThenEnds: each wake delivers what take
// returns, in order; the end of ctx runs done and closes the channel.
func TestDrainDeliversWhatIsTakenInOrderThenEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	wake := make(chan struct{}, 1)
	batches := [][]int{{1, 2}, {3}}
	take := func() []int { b := batches[0]; batches = batches[1:]; return b }
	ended := make(chan struct{})
	out := latest.Drain(ctx, wake, take, func() { close(ended) })
	var got []int
	wake <- struct{}{}
	got = append(got, <-out, <-out)
	wake <- struct{}{}
	got = append(got, <-out)
	if len(got) != 3 || got[0] != 1 || got[1] != 2 || got[2] != 3 {
		t.Fatalf("delivered %v, want [1 2 3]", got)
	}
	cancel()
	<-ended
	if _, open := <-out; open {
		t.Fatal("the channel is open after ctx ended")
	}
}
