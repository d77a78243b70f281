package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/runtime"
	"quire/test/testkit"
)

// A watcher that stops reading is dropped at its bound, with a cause the host
// can read, while a watcher that keeps up sees every update; the host that
// was dropped watches again and catches up from the log.
func TestWatchDropsAStalledWatcherAtItsBound(t *testing.T) {
	cases := []struct {
		name  string
		bound event.Bound
	}{
		{"by count", event.Bound{Items: 6}},
		{"by bytes", event.Bound{Bytes: 6 << 10}}, // an update with its sessions list is some hundred bytes
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := testkit.New(t, runtime.WithQueueBound(c.bound))
			s, err := newSession(t, k.Runtime, "first")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), testkit.Patience)
			defer cancel()
			stalled, stalledErr := k.Runtime.Watch(ctx)
			reading, readingErr := k.Runtime.Watch(ctx)
			// Enough renames that the stalled watcher must overflow: it holds
			// at most one batch and its bound, and 60 updates of a long title
			// are ten times either bound. Each rename is one update, read in
			// lock step by the watcher that keeps up.
			const renames = 60
			for i := range renames {
				title := fmt.Sprintf("%03d %s", i, strings.Repeat("t", 70))
				if err := runCmd(t, k.Runtime, protocol.RenameSession, protocol.RenameSessionPayload{Session: s.ID, Title: title}); err != nil {
					t.Fatal(err)
				}
				u, ok := <-reading
				if !ok {
					t.Fatalf("the watcher that keeps up was dropped after %d renames: %v", i+1, readingErr())
				}
				if len(u.Sessions) != 1 || u.Sessions[0].Title != title {
					t.Fatalf("the watcher that keeps up got %+v after rename %d", u.Sessions, i+1)
				}
			}
			got := 0
			for range stalled {
				got++
			}
			if !errors.Is(stalledErr(), protocol.ErrLagging) {
				t.Fatalf("the stalled watcher's channel ended with %v, want protocol.ErrLagging", stalledErr())
			}
			if got >= renames {
				t.Fatalf("the stalled watcher was handed all %d updates: it was never dropped", got)
			}
			if err := readingErr(); err != nil {
				t.Fatalf("the watcher that keeps up: %v", err)
			}
			// Watching again works, and the log has every rename to reload from.
			again, _ := k.Runtime.Watch(ctx)
			title := "after the drop"
			if err := runCmd(t, k.Runtime, protocol.RenameSession, protocol.RenameSessionPayload{Session: s.ID, Title: title}); err != nil {
				t.Fatal(err)
			}
			if u := <-again; len(u.Sessions) != 1 || u.Sessions[0].Title != title {
				t.Fatalf("the new watcher got %+v", u)
			}
			if n := testkit.Count(k.Log(t, s.ID), event.SessionRenamed); n != renames+1 {
				t.Fatalf("the log has %d renames, want %d", n, renames+1)
			}
		})
	}
}
