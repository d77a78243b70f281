package testkit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"quire/kernel/event"
	"quire/kernel/protocol"
)

// Patience bounds every wait of a test on the kernel. It is only ever spent
// when the awaited thing never happens, so it is generous: a loaded 2-core
// machine under the race detector must not fail a healthy test.
const Patience = 60 * time.Second

// Wait follows the session's log until until holds for the events so far,
// and returns them as the store holds them. It wakes on each append
// (Runtime.Follow, which is event.Feed.Follow: every event once, in order,
// with no gap), never on a timer. It fails the test when Patience passes
// first, naming what it waited for and the types in the log, or when the
// stream ends (the runtime was closed) before until holds.
func (k *Kernel) Wait(t testing.TB, session, what string, until func([]event.Event) bool) []event.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), Patience)
	defer cancel()
	stream, errp := k.Runtime.Follow(ctx, session, 0)
	for {
		evs := k.Log(t, session)
		if until(evs) {
			return evs
		}
		if appended(stream) {
			continue
		}
		if evs = k.Log(t, session); until(evs) {
			return evs
		}
		switch err := errp(); {
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			t.Fatalf("waited %s for %s; log: %s", Patience, what, Types(evs))
		case err != nil:
			t.Fatalf("waiting for %s: %v; log: %s", what, err, Types(evs))
		default:
			t.Fatalf("the log stopped (the kernel closed or the test ended) before %s; log: %s", what, Types(evs))
		}
		return nil
	}
}

// appended blocks until the stream delivers an event, then takes every
// event already waiting too, so a burst of deltas costs one read of the
// log, not one each. It is false once the stream has closed.
func appended[E any](stream <-chan E) bool {
	if _, ok := <-stream; !ok {
		return false
	}
	for {
		select {
		case _, ok := <-stream:
			if !ok {
				return false
			}
		default:
			return true
		}
	}
}

// WaitRuns waits until the session's log has n run.finished events.
func (k *Kernel) WaitRuns(t testing.TB, session string, n int) []event.Event {
	t.Helper()
	return k.Wait(t, session, fmt.Sprintf("%d finished runs", n), func(evs []event.Event) bool {
		return Count(evs, event.RunFinished) >= n
	})
}

// Log is the session's log as the store holds it.
func (k *Kernel) Log(t testing.TB, session string) []event.Event {
	t.Helper()
	evs, err := k.Store.Events(context.Background(), session, 0)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// Count is how many events of type typ evs holds.
func Count(evs []event.Event, typ event.Type) int {
	n := 0
	for _, e := range evs {
		if e.Type == typ {
			n++
		}
	}
	return n
}

// Types lists the events' types, for a failure message.
func Types(evs []event.Event) string {
	ts := make([]string, len(evs))
	for i, e := range evs {
		ts[i] = string(e.Type)
	}
	return strings.Join(ts, " ")
}

// Until follows a session through any host's kernel (the composition
// root's, not a testkit Kernel) until until holds for the events so far,
// and returns them. It wakes on each event, never on a timer, and fails the
// test, naming what it waited for, when Patience passes or the stream ends
// first.
func Until(t testing.TB, k protocol.Kernel, session, what string, until func([]protocol.Event) bool) []protocol.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), Patience)
	defer cancel()
	stream, errp := k.Follow(ctx, session, 0)
	var evs []protocol.Event
	for e := range stream {
		if evs = append(evs, e); until(evs) {
			return evs
		}
	}
	t.Fatalf("no %s in %s's log after %d events (%v)", what, session, len(evs), errp())
	return nil
}

// WaitRuns waits, as Until does, until n runs of the session have finished.
func WaitRuns(t testing.TB, k protocol.Kernel, session string, n int) {
	t.Helper()
	Until(t, k, session, fmt.Sprintf("%d finished runs", n), func(evs []protocol.Event) bool {
		count := 0
		for _, e := range evs {
			if e.Type == string(event.RunFinished) {
				count++
			}
		}
		return count >= n
	})
}

// Documents is what WaitIndexed watches: a documents panel's state and its
// progress (host.Documents, as the library and the composition root give it).
type Documents interface {
	State(ctx context.Context) (protocol.DocumentsState, error)
	Watch(ctx context.Context) <-chan protocol.IndexProgress
}

// WaitIndexed wakes on each change of d's progress (Watch: the current
// state first) until a pass is done with n documents listed, and returns
// that state; it fails the test when Patience passes first.
func WaitIndexed(t testing.TB, d Documents, n int) protocol.DocumentsState {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), Patience)
	defer cancel()
	changes := d.Watch(ctx)
	for {
		st, err := d.State(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !st.Progress.Running && st.Progress.Phase == protocol.PhaseDone && len(st.Documents) == n {
			return st
		}
		select {
		case <-changes:
		case <-ctx.Done():
			t.Fatalf("waited %s for indexing to finish with %d documents: %+v", Patience, n, st)
		}
	}
}
