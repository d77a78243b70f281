package runtime

import (
	"context"
	"errors"
	"fmt"

	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/provider"
)

// ErrNoSuchStep: the session has fewer model requests than asked for.
var ErrNoSuchStep = errors.New("the conversation has no such step")

// Request rebuilds, from the log alone, the request sent to the model at the
// session's nth model call (1 = the first), whatever run it was in. Each
// step.started and each step.retried asked for one call (askers, which
// numbers the inspector's calls too).
func (r *Reader) Request(ctx context.Context, session string, n int) (provider.Request, error) {
	evs, err := r.store.Events(ctx, session, 0)
	if err != nil {
		return provider.Request{}, unreadable(err)
	}
	// The fold refuses a log with an event it cannot read; so does the
	// replay, rather than rebuild a request the runtime would never send.
	if err := readable(evs); err != nil {
		return provider.Request{}, err
	}
	asks := askers(evs)
	if n < 1 || n > len(asks) {
		// Not found for a host (HTTP 404), as a call the inspector cannot find.
		return provider.Request{}, protocol.Classify(protocol.ErrNotFound, fmt.Errorf("%w: step %d of %d", ErrNoSuchStep, n, len(asks)))
	}
	i := asks[n-1]
	e := evs[i]
	caps, err := capsOfRun(evs, e.RunID)
	if err != nil {
		return provider.Request{}, err
	}
	return r.requestAt(ctx, session, e.RunID, compactedAt(evs[i:], e.RunID), caps)
}

// capsOfRun finds the capabilities frozen on the input that opened a run.
func capsOfRun(evs []event.Event, runID string) (event.Capabilities, error) {
	opener := ""
	for _, e := range evs {
		if e.Type == event.RunStarted && e.RunID == runID {
			p, err := event.As[event.RunStartedPayload](e)
			if err != nil {
				return event.Capabilities{}, err
			}
			opener = p.InputID
			break
		}
	}
	for _, e := range evs {
		if e.Type != event.InputReceived {
			continue
		}
		p, err := event.As[event.InputReceivedPayload](e)
		if err != nil {
			return event.Capabilities{}, err
		}
		if p.InputID == opener && p.Caps != nil {
			return *p.Caps, nil
		}
	}
	return event.Capabilities{}, fmt.Errorf("run %s: the input that opened it is not in the log", runID)
}

// compactedAt is where the request asked for by evs[0] was built: at evs[0],
// or at the last proactive replace or refreshed context text of the run
// made after it and before the reply, a failure or the next attempt.
func compactedAt(evs []event.Event, run string) int64 {
	at := evs[0].Seq
	for _, e := range evs[1:] {
		if e.RunID != run {
			continue
		}
		switch {
		case proactive(e), e.Type == event.ContextText:
			at = e.Seq
		case e.Type == event.HistoryReplace, e.Type == event.StepStarted, e.Type == event.StepRetried,
			e.Type == event.AssistantMessage, e.Type == event.StreamFailed, e.Type == event.RunFinished:
			return at
		}
	}
	return at
}

// Request rebuilds the request of a session's nth model call, as a Reader
// does: Request(n) of the log the runtime writes.
func (r *Runtime) Request(ctx context.Context, session string, n int) (provider.Request, error) {
	return r.reader.Request(ctx, session, n)
}
