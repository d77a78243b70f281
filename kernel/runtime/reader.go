package runtime

import (
	"context"
	"errors"
	"sync"

	"quire/kernel/event"
	"quire/kernel/history"
	"quire/kernel/protocol"
)

// LogStore is what reading a log needs of the store: reads only.
type LogStore interface {
	history.Source
	Events(ctx context.Context, session string, from int64) ([]event.Event, error)
	Sessions(ctx context.Context) ([]event.SessionSummary, error)
	LastSeqOf(ctx context.Context, session string, typ event.Type, runID string) (int64, error)
	EventsOfType(ctx context.Context, session string, typ event.Type) ([]event.Event, error)
}

// Reader reads the logs of one database: the conversations, their events
// and the exact request of each model call, rebuilt from the log alone. It
// has no loop, model, tool, trigger or recovery, and its store has no write
// method, so nothing it does can append. The read-only commands use it on
// their own (`quire sessions`, `replay`); a Runtime reads through one too,
// so a replayed request is built by the same code that built the sent one.
type Reader struct {
	store   LogStore
	history *history.Projector
	texts   sync.Map // session + system text hash -> zones; content-addressed, so never stale
}

// NewReader returns a Reader over a store.
func NewReader(st LogStore) *Reader {
	return &Reader{store: st, history: history.NewProjector(st)}
}

// Sessions lists sessions, most recently updated first. A Reader drives no
// session, so each is detached and idle.
func (r *Reader) Sessions(ctx context.Context) ([]protocol.Session, error) {
	rows, err := r.store.Sessions(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]protocol.Session, len(rows))
	for i, s := range rows {
		out[i] = detached(s)
	}
	return out, nil
}

// detached is a session as the log alone shows it.
func detached(s event.SessionSummary) protocol.Session {
	out := protocol.Session{ID: s.ID, Title: s.Title, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt, LastSeq: s.LastSeq, Kind: s.Kind,
		RunStatus: string(RunIdle), Status: string(SessionDetached)}
	if s.Parent != nil {
		out.Parent, out.ParentSeq = s.Parent.Session, s.Parent.Seq
	}
	return out
}

// Events returns a session's events from seq on, with their visibility; a
// host filters them for its audience (protocol.Filter). A session holding an
// event this version cannot read (event.Check) is protocol.ErrDamaged.
func (r *Reader) Events(ctx context.Context, id string, from int64) ([]protocol.Event, error) {
	evs, err := r.log(ctx, id, from)
	if err != nil {
		return nil, err
	}
	return toProtocol(evs), nil
}

// log is a session's events from seq on, checked by the one decode rule;
// no such session is protocol.ErrNotFound.
func (r *Reader) log(ctx context.Context, id string, from int64) ([]event.Event, error) {
	evs, err := r.store.Events(ctx, id, from)
	if err != nil {
		return nil, unreadable(err)
	}
	if len(evs) == 0 {
		// Nothing new, or no such session: a host must be able to tell.
		if _, err := r.store.Session(ctx, id); err != nil {
			return nil, protocol.Classify(protocol.ErrNotFound, err)
		}
	}
	if err := readable(evs); err != nil {
		return nil, err
	}
	return evs, nil
}

// readable applies the one decode rule (event.Check) to events a host is
// about to be given or a request is about to be rebuilt from: a host sends
// a payload on as it is, and the fold and the replay decode it, so what one
// of them cannot read is damaged for all.
func readable(evs []event.Event) error {
	for _, e := range evs {
		if err := event.Check(e); err != nil {
			return unreadable(err)
		}
	}
	return nil
}

// unreadable classifies a read that found an event this version cannot read
// (an unknown type the store refused, a payload that does not decode) as
// damage; any other failure is left as it is.
func unreadable(err error) error {
	if errors.Is(err, event.ErrUnknownType) || errors.Is(err, event.ErrUndecodable) {
		return protocol.Classify(protocol.ErrDamaged, err)
	}
	return err
}
