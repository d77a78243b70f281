package runtime

import (
	"context"
	"fmt"

	"quire/kernel/compact"
	"quire/kernel/event"
)

// Compaction makes a session's history shorter, by history.replace events
// only (kernel/compact): it returns the drafts, and the runtime appends them.
type Compaction interface {
	Compact(ctx context.Context, in compact.Input) ([]event.Draft, error)
}

// WithCompaction asks c before every model call whether the history should
// be compacted (by size or by pollution), and makes c the overflow
// handler's compactor unless WithCompactor sets another.
func WithCompaction(c Compaction) Option {
	return func(r *Runtime) {
		r.compaction = c
		if k, ok := c.(interface{ Calibration() *compact.Calibration }); ok {
			// One lesson per model: what a step's report teaches the
			// runtime, the compaction's estimates use too.
			r.cal = k.Calibration()
		}
		if r.compactor == nil {
			r.compactor = func(ctx context.Context, session string) error {
				r.mu.Lock()
				s := r.sessions[session]
				r.mu.Unlock()
				if s == nil {
					return fmt.Errorf("session %s is not open", session)
				}
				return s.compact(ctx, true)
			}
		}
	}
}

// compact shows the request the current step would send to the
// compaction and appends the replaces it makes, stamped with the run. A
// proactive compaction (forced false) runs after the step's step.started
// or step.retried, so the request is then built at the last replace (see
// session.request and Runtime.Request); a forced one runs in the error
// chain, before the step.retried that asks for the next attempt.
func (s *session) compact(ctx context.Context, forced bool) error {
	m := s.model()
	run, caps := m.Run.ID, m.Run.Caps
	at, err := s.anchor(ctx, run)
	if err != nil {
		return err
	}
	req, err := s.r.reader.requestAt(ctx, s.id, run, at, caps)
	if err != nil {
		return err
	}
	hist, err := s.r.reader.history.EntriesAt(ctx, s.id, at)
	if err != nil {
		return err
	}
	in := compact.Input{Session: s.id, Request: req, History: hist, Forced: forced, Model: s.r.model}
	if in.Reported, in.ReportedSeq, err = s.lastUsage(ctx, run); err != nil {
		return err
	}
	drafts, err := s.r.compaction.Compact(ctx, in)
	if err != nil || len(drafts) == 0 {
		return err
	}
	for i := range drafts {
		drafts[i].Time, drafts[i].RunID = s.r.now(), run
	}
	_, err = s.r.feed.Append(ctx, s.id, drafts...)
	return err
}

// lastUsage is the prompt size the model reported for the run's latest
// reply, and that reply's seq (-1: none yet).
func (s *session) lastUsage(ctx context.Context, run string) (int, int64, error) {
	seq, err := s.r.store.LastSeqOf(ctx, s.id, event.AssistantMessage, run)
	if err != nil || seq < 0 {
		return 0, -1, err
	}
	evs, err := s.r.store.Events(ctx, s.id, seq)
	if err != nil || len(evs) == 0 {
		return 0, -1, err
	}
	p, err := event.As[event.AssistantMessagePayload](evs[0])
	if err != nil {
		return 0, -1, err
	}
	return p.Usage.PromptTokens, seq, nil
}

// proactive reports whether a replace was made before a step rather than
// in answer to an overflow (which a step.retried always follows).
func proactive(e event.Event) bool {
	if e.Type != event.HistoryReplace {
		return false
	}
	p, err := event.As[event.HistoryReplacePayload](e)
	return err == nil && p.Compaction != nil && p.Compaction.Trigger != compact.TriggerOverflow
}
