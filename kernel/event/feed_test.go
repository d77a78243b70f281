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
