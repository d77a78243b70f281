package assembly

import (
	"context"
	"time"

	"quire/kernel/event"
	"quire/tools/notes"
)

// recordTimeoutAll bounds the recording of what a folder's open recovered:
// finding each move's conversation reads the assistants' messages of every
// conversation, once, at a start after a crash.
const recordTimeoutAll = 30 * time.Second

// recordRecovered appends each move a stop interrupted, as the folder's
// open finished it, to the log of the conversation whose call made it
// (note.recovered): that call's result never reached the log, so this is
// how the conversation learns what became of it. A move no conversation's call made (the user's own
// undo from the Changes list) is only in the process log.
func (p *Parts) recordRecovered(ctx context.Context, recs []notes.Recovery) {
	ctx, cancel := context.WithTimeout(ctx, recordTimeoutAll)
	defer cancel()
	for _, rec := range recs {
		if rec.Call == "" || p.runtime == nil {
			continue
		}
		session, err := p.sessionOfCall(ctx, rec.Call)
		if err != nil || session == "" {
			p.log.Warn("notes: the conversation of a recovered move was not found", "call", rec.Call, "change", rec.Change, "err", err)
			continue
		}
		payload := event.NoteRecoveredPayload{Call: rec.Call, Change: rec.Change, Text: rec.Sentence()}
		if _, err := p.runtime.AppendPlain(ctx, session, event.Draft{Type: event.NoteRecovered, Time: p.clock()(), Payload: payload}); err != nil {
			p.log.Error("notes: a recovered move could not be recorded in its conversation", "session", session, "change", rec.Change, "err", err)
		}
	}
}

// sessionOfCall is the conversation whose assistant made the tool call id.
func (p *Parts) sessionOfCall(ctx context.Context, id string) (string, error) {
	sessions, err := p.store.Sessions(ctx)
	if err != nil {
		return "", err
	}
	for _, s := range sessions {
		evs, err := p.store.EventsOfType(ctx, s.ID, event.AssistantMessage)
		if err != nil {
			return "", err
		}
		for _, e := range evs {
			m, err := event.As[event.AssistantMessagePayload](e)
			if err != nil {
				continue
			}
			for _, c := range m.ToolCalls {
				if c.ID == id {
					return s.ID, nil
				}
			}
		}
	}
	return "", nil
}
