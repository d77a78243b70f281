package runtime

import (
	"context"
	"errors"
	"fmt"

	"quire/kernel/event"
)

// ErrNotPlain: only plain events may be appended from outside the loop;
// facts and records belong to the session's owner (kernel/core).
var ErrNotPlain = errors.New("only plain events (not facts, records or session creation) may be appended from outside the loop")

// AppendPlain appends plain events — memory writes, compaction — to a
// session through the runtime's feed, so that hosts following the session
// see them in seq order with no gap. It may be called from a tool or a
// lifecycle subscriber, never from inside an event notification.
func (r *Runtime) AppendPlain(ctx context.Context, session string, drafts ...event.Draft) ([]event.Event, error) {
	for _, d := range drafts {
		if event.KindOf(d.Type) != event.Plain || d.Type == event.SessionCreated {
			return nil, fmt.Errorf("%w: %s", ErrNotPlain, d.Type)
		}
	}
	return r.feed.Append(ctx, session, drafts...)
}
