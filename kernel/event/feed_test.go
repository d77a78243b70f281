package event_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"quire/kernel/event"
	"quire/kernel/store"
)

var t1 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func user(text string) event.Draft {
	return event.Draft{Type: event.UserMessage, Time: t1, Payload: event.UserMessagePayload{Text: text}}
}

func TestAppendFromInsideANotificationIsRefused(t *testing.T) {
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "q.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	st.CreateSession(t.Context(), "s", "S", t1, nil, nil)
	feed := event.NewFeed(st)
	var reentrant error
	calls := 0
	feed.Listen(func(ctx context.Context, evs []event.Event) {
		calls++
		_, reentrant = feed.Append(ctx, "s", user("echo"))
		// A context derived from the notification is refused too.
		derived, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		if _, err := feed.Append(derived, "s", user("echo")); !errors.Is(err, event.ErrReentrantAppend) {
			t.Errorf("derived context: %v", err)
		}
	})
	if _, err := feed.Append(t.Context(), "s", user("hello")); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(reentrant, event.ErrReentrantAppend) {
		t.Fatalf("re-entrant append: %v", reentrant)
	}
	evs, err := st.Events(t.Context(), "s", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || calls != 1 {
		t.Fatalf("log has %d events after %d notifications; the re-entrant append must not land", len(evs), calls)
	}
}

func TestListenersSeeAppendsInOrder(t *testing.T) {
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "q.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	st.CreateSession(t.Context(), "s", "S", t1, nil, nil)
	feed := event.NewFeed(st)
	var seen []int64
	stop := feed.Listen(func(_ context.Context, evs []event.Event) {
		for _, e := range evs {
			seen = append(seen, e.Seq)
		}
	})
	done := make(chan struct{})
	for range 4 {
		go func() {
			for range 10 {
				feed.Append(t.Context(), "s", user("a"), user("b"))
			}
			done <- struct{}{}
		}()
	}
	for range 4 {
		<-done
	}
	stop()
	feed.Append(t.Context(), "s", user("after stop"))
	if len(seen) != 80 {
		t.Fatalf("saw %d events", len(seen))
	}
	for i, s := range seen {
		if s != int64(i+1) {
			t.Fatalf("out of order at %d: %v", i, seen[:i+1])
		}
	}
}

// A follower that stops reading is cut off at its bound and the others keep
// receiving; the one cut off resumes from its last seq with no gap.
func TestFollowCutsOffAReaderThatFallsBehind(t *testing.T) {
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "q.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	st.CreateSession(t.Context(), "s", "S", t1, nil, nil) // seq 0
	const bound = 8
	feed := event.NewFeed(st, event.WithBound(event.Bound{Items: bound}))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	stalled, stalledErr := feed.Follow(ctx, "s", 1)
	reading, readingErr := feed.Follow(ctx, "s", 1)
	// Enough appends that the stalled follower must overflow whatever it
	// took before it stopped: one batch in hand, and the bound queued.
	const appends = 2*bound + 2
	for i := range appends {
		if _, err := feed.Append(t.Context(), "s", user("x")); err != nil {
			t.Fatal(err)
		}
		// In lock step, so the reader that keeps up never has more than one waiting.
		if e, ok := <-reading; !ok || e.Seq != int64(i+1) {
			t.Fatalf("the reader that keeps up got seq %d (open %v), want %d: %v", e.Seq, ok, i+1, readingErr())
		}
	}
	var got []int64
	for e := range stalled {
		got = append(got, e.Seq)
	}
	if !errors.Is(stalledErr(), event.ErrLagging) {
		t.Fatalf("the stalled follower's stream ended with %v, want ErrLagging", stalledErr())
	}
	for i, seq := range got {
		if seq != int64(i+1) {
			t.Fatalf("the stalled follower got seqs %v: not a prefix without gaps", got)
		}
	}
	// Resuming from the seq after the last one it got leaves nothing out.
	next := int64(len(got) + 1)
	resumed, _ := feed.Follow(ctx, "s", next)
	for want := next; want <= appends; want++ {
		if e := <-resumed; e.Seq != want {
			t.Fatalf("resumed follower got seq %d, want %d", e.Seq, want)
		}
	}
	if err := readingErr(); err != nil {
		t.Fatalf("the reader that kept up: %v", err)
	}
}
