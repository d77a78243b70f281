package standing

import (
	"context"
	"sync"
	"time"

	"quire/kernel/event"
)

// Writer appends plain events to a session's log (the runtime's
// AppendPlain, so hosts following the session see them).
type Writer interface {
	AppendPlain(ctx context.Context, session string, drafts ...event.Draft) ([]event.Event, error)
}

// Opener gives the id of the hidden session of kind standing, making it
// the first time (the composition root sends the kernel's create-session
// command under one idempotency key, so two starts never make two).
type Opener func(ctx context.Context) (string, error)

// LogJournal records each firing's step as a standing.firing event in the
// hidden session open gives.
func LogJournal(w Writer, open Opener, now func() time.Time) Journal {
	var mu sync.Mutex
	var session string
	return func(ctx context.Context, p event.StandingFiringPayload) error {
		mu.Lock()
		defer mu.Unlock()
		if session == "" {
			id, err := open(ctx)
			if err != nil {
				return err
			}
			session = id
		}
		_, err := w.AppendPlain(ctx, session, event.Draft{Type: event.StandingFiring, Time: now(), Payload: p})
		return err
	}
}
