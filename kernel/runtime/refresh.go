package runtime

import (
	"context"

	"quire/kernel/event"
	"quire/kernel/prompt"
	"quire/kernel/provider"
)

// refreshContext re-assembles the context zones before a step, so what a
// contributor knows now (working memory written by a tool or a compaction a
// moment ago) reaches this step's request rather than the next run's. When
// the text differs from what the run sends now, it is appended as a
// context.text stamped with the run: that event is where the step's request
// is built (anchor, compactedAt), so Request(n) rebuilds it from the log.
// Tools and the model stay as the run froze them.
func (s *session) refreshContext(ctx context.Context, caps event.Capabilities) error {
	if caps.System == "" {
		return nil // the run was opened with no context text at all
	}
	run := s.model().Run.ID
	at, err := s.anchor(ctx, run)
	if err != nil {
		return err
	}
	current, err := s.r.reader.textAt(ctx, s.id, run, at, caps.System)
	if err != nil {
		return err
	}
	msgs, err := s.r.reader.history.MessagesAt(ctx, s.id, at)
	if err != nil {
		return err
	}
	actx := offered(prompt.WithRun(prompt.WithAboutUser(prompt.WithSession(ctx, s.id), caps.AboutYou), run), caps)
	if latest := latestUser(msgs); latest != "" {
		actx = prompt.WithRequest(actx, latest)
	}
	assembled, err := s.r.prompt.Assemble(actx)
	if err != nil || assembled.Text == "" || assembled.Hash() == current {
		return err
	}
	return s.r.appendText(ctx, s.id, run, assembled)
}

// latestUser is the text of the last user message: what the contributors
// judge relevance by.
func latestUser(msgs []provider.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == provider.RoleUser {
			return msgs[i].Content
		}
	}
	return ""
}

// textAt is the hash of the context text a request of run built at seq
// sends: the run's last refreshed text at or before seq, else the text the
// run was opened with.
func (r *Reader) textAt(ctx context.Context, session, run string, seq int64, opened string) (string, error) {
	if run == "" {
		return opened, nil
	}
	last, err := r.store.LastSeqOf(ctx, session, event.ContextText, run)
	if err != nil || last < 0 {
		return opened, err
	}
	evs, err := r.store.EventsOfType(ctx, session, event.ContextText)
	if err != nil {
		return "", err
	}
	hash := opened
	for _, e := range evs {
		if e.Seq > seq {
			break
		}
		if e.RunID != run {
			continue
		}
		p, err := event.As[event.ContextTextPayload](e)
		if err != nil {
			return "", err
		}
		hash = p.Hash
	}
	return hash, nil
}
