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
