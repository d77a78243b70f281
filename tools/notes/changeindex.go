package notes

import (
	"context"
	"fmt"
	"sync"

	"quire/kernel/event"
)

// EventLog is what the change index reads of the event log (kernel/store
// is one): the sessions with their last seq, and a session's events of a type.
type EventLog interface {
	Sessions(ctx context.Context) ([]event.SessionSummary, error)
	EventsOfType(ctx context.Context, session string, typ event.Type) ([]event.Event, error)
}

// ChangeIndex is the ChangeLog over the event log: every write's result
// carries its Change, so undo needs no store of its own. It keeps an index
// from change id to the event that holds it (session and seq, never the
// notes' text), extended only with what the log gained since it last
// looked: a session whose last seq has not moved is never read again, and
// a change found once is read from its one session. It is safe for
// concurrent use.
type ChangeIndex struct {
	log EventLog

	mu      sync.Mutex
	at      map[string]changeAt // change id -> where its result is
	scanned map[string]int64    // session -> last seq indexed
}

type changeAt struct {
	session string
	seq     int64
}

// NewChangeIndex indexes the changes in log.
func NewChangeIndex(log EventLog) *ChangeIndex {
	return &ChangeIndex{log: log, at: map[string]changeAt{}, scanned: map[string]int64{}}
}

// Change finds the change with this id, or an error wrapping ErrNotFound.
func (x *ChangeIndex) Change(ctx context.Context, id string) (Change, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	where, ok := x.at[id]
	if !ok {
		if err := x.catchUp(ctx); err != nil {
			return Change{}, err
		}
		if where, ok = x.at[id]; !ok {
			return Change{}, fail(ErrNotFound, "no change %q is in the log; use the change id given in a note tool's result", id)
		}
	}
	evs, err := x.log.EventsOfType(ctx, where.session, event.ToolResult)
	if err != nil {
		return Change{}, fmt.Errorf("reading the change log: %w", err)
	}
	for _, e := range evs {
		if e.Seq != where.seq {
			continue
		}
		if c, ok := changeOf(e); ok && c.ID == id {
			return c, nil
		}
	}
	// The session was deleted since.
	delete(x.at, id)
	return Change{}, fail(ErrNotFound, "the change %q is no longer in the log (its conversation was deleted)", id)
}

// catchUp indexes the tool results appended since the last look, and
// forgets the conversations deleted since, so the index holds only what
// the log holds.
func (x *ChangeIndex) catchUp(ctx context.Context) error {
	sessions, err := x.log.Sessions(ctx)
	if err != nil {
		return fmt.Errorf("reading the change log: %w", err)
	}
	live := make(map[string]bool, len(sessions))
	for _, s := range sessions {
		live[s.ID] = true
	}
	for id := range x.scanned {
		if !live[id] {
			delete(x.scanned, id)
		}
	}
	for id, where := range x.at {
		if !live[where.session] {
			delete(x.at, id)
		}
	}
	for _, s := range sessions {
		from, seen := x.scanned[s.ID]
		if seen && s.LastSeq <= from {
			continue
		}
		evs, err := x.log.EventsOfType(ctx, s.ID, event.ToolResult)
		if err != nil {
			return fmt.Errorf("reading the change log: %w", err)
		}
		for _, e := range evs {
			if seen && e.Seq <= from {
				continue
			}
			if c, ok := changeOf(e); ok {
				x.at[c.ID] = changeAt{s.ID, e.Seq}
			}
		}
		x.scanned[s.ID] = s.LastSeq
	}
	return nil
}

func changeOf(e event.Event) (Change, bool) {
	p, err := event.As[event.ToolResultPayload](e)
	if err != nil {
		return Change{}, false
	}
	return DecodeChange(p.Data)
}
