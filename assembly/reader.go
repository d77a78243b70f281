package assembly

import (
	"context"
	"encoding/json"
	"fmt"

	"quire/kernel/protocol"
	"quire/kernel/runtime"
)

// readOnly is a Reader's kernel (or an Owner's on a full disk): the log as
// it is, and every command refused with refusal before it reaches anything
// that could append.
type readOnly struct {
	k       *runtime.Reader
	refusal error
}

func (r readOnly) Execute(context.Context, protocol.Command) (json.RawMessage, error) {
	return nil, r.refusal
}
func (r readOnly) Sessions(ctx context.Context) ([]protocol.Session, error) { return r.k.Sessions(ctx) }
func (r readOnly) Events(ctx context.Context, session string, from int64) ([]protocol.Event, error) {
	return r.k.Events(ctx, session, from)
}

// Follow delivers the stored events and ends: a Reader sees no live
// appends (another process may own the folder; `quire replay` reads once).
func (r readOnly) Follow(ctx context.Context, session string, from int64) (<-chan protocol.Event, func() error) {
	evs, err := r.k.Events(ctx, session, from)
	ch := make(chan protocol.Event, len(evs))
	for _, e := range evs {
		ch <- e
	}
	close(ch)
	return ch, func() error { return err }
}

// Watch has nothing to deliver: nothing is appended in a Reader.
func (r readOnly) Watch(ctx context.Context) (<-chan protocol.Update, func() error) {
	return closedUpdates()
}

// emptyLog is a Reader's kernel over a data folder with no database yet:
// no conversation, and nothing may be created.
type emptyLog struct{}

func (emptyLog) Execute(context.Context, protocol.Command) (json.RawMessage, error) {
	return nil, protocol.Classify(protocol.ErrConflict, errReadOnly)
}
func (emptyLog) Sessions(context.Context) ([]protocol.Session, error) { return nil, nil }
func (emptyLog) Events(_ context.Context, session string, _ int64) ([]protocol.Event, error) {
	return nil, noSession(session)
}
func (emptyLog) Follow(_ context.Context, session string, _ int64) (<-chan protocol.Event, func() error) {
	ch := make(chan protocol.Event)
	close(ch)
	return ch, func() error { return noSession(session) }
}
func (emptyLog) Watch(context.Context) (<-chan protocol.Update, func() error) { return closedUpdates() }

func noSession(id string) error {
	return protocol.Classify(protocol.ErrNotFound, fmt.Errorf("no such session: %s (there are no conversations yet)", id))
}

func closedUpdates() (<-chan protocol.Update, func() error) {
	ch := make(chan protocol.Update)
	close(ch)
	return ch, func() error { return nil }
}
