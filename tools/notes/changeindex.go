package notes

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

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
	typ     event.Type // event.ToolResult (a tool's write) or event.NoteUndone (the user's undo)
}

// changeTypes are the events that carry a Change.
var changeTypes = []event.Type{event.ToolResult, event.NoteUndone}

// NewChangeIndex indexes the changes in log.
func NewChangeIndex(log EventLog) *ChangeIndex {
	return &ChangeIndex{log: log, at: map[string]changeAt{}, scanned: map[string]int64{}}
}

// Change finds the change with this id, or an error wrapping ErrNotFound.
func (x *ChangeIndex) Change(ctx context.Context, id string) (Change, error) {
	c, _, err := x.Find(ctx, id)
	return c, err
}

// Find is Change with the conversation whose log holds it.
func (x *ChangeIndex) Find(ctx context.Context, id string) (Change, string, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	where, ok := x.at[id]
	if !ok {
		if err := x.catchUp(ctx); err != nil {
			return Change{}, "", err
		}
		if where, ok = x.at[id]; !ok {
			return Change{}, "", fail(ErrNotFound, "no change %q is in the log; use the change id given in a note tool's result", id)
		}
	}
	evs, err := x.log.EventsOfType(ctx, where.session, where.typ)
	if err != nil {
		return Change{}, "", fmt.Errorf("reading the change log: %w", err)
	}
	for _, e := range evs {
		if e.Seq != where.seq {
			continue
		}
		if c, ok := changeOf(e); ok && c.ID == id {
			return c, where.session, nil
		}
	}
	// The session was deleted since.
	delete(x.at, id)
	return Change{}, "", fail(ErrNotFound, "the change %q is no longer in the log (its conversation was deleted)", id)
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
		for _, typ := range changeTypes {
			evs, err := x.log.EventsOfType(ctx, s.ID, typ)
			if err != nil {
				return fmt.Errorf("reading the change log: %w", err)
			}
			for _, e := range evs {
				if seen && e.Seq <= from {
					continue
				}
				if c, ok := changeOf(e); ok {
					x.at[c.ID] = changeAt{s.ID, e.Seq, typ}
				}
			}
		}
		x.scanned[s.ID] = s.LastSeq
	}
	return nil
}

func changeOf(e event.Event) (Change, bool) {
	if e.Type == event.NoteUndone {
		p, err := event.As[event.NoteUndonePayload](e)
		if err != nil {
			return Change{}, false
		}
		return DecodeChange(p.Change)
	}
	p, err := event.As[event.ToolResultPayload](e)
	if err != nil {
		return Change{}, false
	}
	return DecodeChange(p.Data)
}

// MaxListed bounds the changes List returns, the newest first.
const MaxListed = 500

// Logged is a change with where the log holds it: the conversation, the
// event and its time. UndoneBy is the undo that reverted it, if one did and
// was not itself undone; ByUser says the user made that undo (the Changes
// list), not the model (the undo tool).
type Logged struct {
	Change   Change
	Session  string
	Seq      int64
	Time     time.Time
	UndoneBy string
	ByUser   bool

	direct bool // this change is itself the user's undo (a note.undone event)
}

// List is every change the log holds, across conversations, newest first,
// at most MaxListed (omitted counts the rest). The user's own undos are
// not listed apart: they are what UndoneBy names on the change they reverted.
func (x *ChangeIndex) List(ctx context.Context) (list []Logged, omitted int, err error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.catchUp(ctx); err != nil {
		return nil, 0, err
	}
	sessions := map[string]bool{}
	for _, where := range x.at {
		sessions[where.session] = true
	}
	var all []Logged
	for s := range sessions {
		for _, typ := range changeTypes {
			evs, err := x.log.EventsOfType(ctx, s, typ)
			if err != nil {
				return nil, 0, fmt.Errorf("reading the change log: %w", err)
			}
			for _, e := range evs {
				if c, ok := changeOf(e); ok {
					all = append(all, Logged{Change: c, Session: s, Seq: e.Seq, Time: e.Time, direct: typ == event.NoteUndone})
				}
			}
		}
	}
	undos := map[string][]int{} // change id -> the undos of it, by index in all
	for i, l := range all {
		if l.Change.Undoes != "" {
			undos[l.Change.Undoes] = append(undos[l.Change.Undoes], i)
		}
	}
	// An undo that was itself undone (a redo) leaves its target applied;
	// memo keeps the walk linear, seen stops a cycle a damaged log could hold.
	memo := map[int]int{} // index -> index of the live undo of it, or -1
	var liveUndo func(i int, seen map[int]bool) int
	liveUndo = func(i int, seen map[int]bool) int {
		if m, ok := memo[i]; ok {
			return m
		}
		seen[i] = true
		found := -1
		for _, u := range undos[all[i].Change.ID] {
			if !seen[u] && liveUndo(u, seen) < 0 && (found < 0 || later(all[u], all[found])) {
				found = u
			}
		}
		memo[i] = found
		return found
	}
	for i := range all {
		if u := liveUndo(i, map[int]bool{}); u >= 0 {
			all[i].UndoneBy, all[i].ByUser = all[u].Change.ID, all[u].direct
		}
	}
	for _, l := range all {
		if !l.direct {
			list = append(list, l)
		}
	}
	slices.SortFunc(list, func(a, b Logged) int {
		if later(a, b) {
			return -1
		}
		if later(b, a) {
			return 1
		}
		return 0
	})
	if len(list) > MaxListed {
		omitted, list = len(list)-MaxListed, list[:MaxListed]
	}
	return list, omitted, nil
}

// later orders changes newest first: by time, then by seq in one conversation.
func later(a, b Logged) bool {
	if !a.Time.Equal(b.Time) {
		return a.Time.After(b.Time)
	}
	if a.Session != b.Session {
		return a.Session > b.Session
	}
	return a.Seq > b.Seq
}
