package runtime

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"quire/kernel/core"
	"quire/kernel/event"
	"quire/kernel/tool/registry"
)

// delivery is a batch of facts for a session's owner: they are applied and
// appended together, and done (if not nil) gets the outcome.
type delivery struct {
	facts []event.Draft
	once  *event.Once
	done  chan deliveryResult
}

type deliveryResult struct {
	prior []byte // the first result, when once's key was seen before
	err   error
}

// session is the owner of one session's Model. Only its goroutine (own)
// changes the Model; others read it under mu.
type session struct {
	r     *Runtime
	id    string
	inbox chan delivery

	sendMu sync.RWMutex // held to send on inbox; held exclusively to close it
	closed bool
	serial sync.Mutex // held by a tool that declared it may not run in parallel

	mu     sync.Mutex
	m      core.Model
	run    context.Context
	cancel context.CancelCauseFunc
	// frozen holds the tool registry of each run that is open or waiting
	// to open, taken when its input arrived.
	frozen map[string]*registry.Registry
	ended  chan struct{} // closed and replaced whenever the open run changes (closes, or another opens)

	// fault is why the open run's work can no longer be trusted to reach
	// the log: one of its reports could not be appended. Only the owner
	// goroutine reads and writes it (fault.go).
	fault   *fault
	faulted string        // the last run a fault ended: what still comes for it is dropped
	kick    chan struct{} // wakes the owner to try to end a faulted run again
}

func newSession(r *Runtime, id string, m core.Model) *session {
	s := &session{r: r, id: id, inbox: make(chan delivery, 64), m: m, ended: make(chan struct{}), kick: make(chan struct{}, 1)}
	if m.Open() {
		s.run, s.cancel = context.WithCancelCause(r.base)
	}
	return s
}

func (s *session) model() core.Model {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m
}

// deliver hands facts to the owner and waits until they are in the log.
func (s *session) deliver(ctx context.Context, facts ...event.Draft) error {
	_, err := s.deliverOnce(ctx, nil, facts...)
	return err
}

func (s *session) deliverOnce(ctx context.Context, once *event.Once, facts ...event.Draft) (prior []byte, err error) {
	d := delivery{facts: facts, once: once, done: make(chan deliveryResult, 1)}
	if err := s.post(d); err != nil {
		return nil, err
	}
	select {
	case res := <-d.done:
		return res.prior, res.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// post queues a delivery without waiting for it; it fails only once the
// session is gone.
func (s *session) post(d delivery) error {
	s.sendMu.RLock()
	defer s.sendMu.RUnlock()
	if s.closed {
		return ErrClosed
	}
	s.inbox <- d
	return nil
}

// closeInbox ends the owner once it has applied what was sent.
func (s *session) closeInbox() {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.inbox)
	}
}

// own is the owner goroutine: it applies deliveries in arrival order. A
// worker's report (no done) that cannot be appended faults the open run
// instead of being dropped unseen (fault.go).
func (s *session) own() {
	defer s.r.owners.Done()
	for {
		select {
		case d, ok := <-s.inbox:
			if !ok {
				return
			}
			prior, err := s.apply(d)
			switch {
			case d.done != nil:
				d.done <- deliveryResult{prior: prior, err: err}
			case err != nil:
				s.lost(err)
			}
		case <-s.kick:
			if err := s.endFault(); err != nil {
				s.r.log.Debug("the faulted run could not be closed yet", "session", s.id, "err", err)
			}
		}
	}
}

// apply ends a faulted run first (its terminal must be in the log before
// anything else is), then commits the delivery. Facts for a run a fault
// ended (its work's last reports, a late Stop or answer) are dropped: that
// run is over, and its work's word is no longer trusted.
func (s *session) apply(d delivery) ([]byte, error) {
	if err := s.endFault(); err != nil {
		return nil, err
	}
	if s.faulted != "" {
		d.facts = slices.DeleteFunc(slices.Clone(d.facts), func(f event.Draft) bool { return f.RunID == s.faulted })
		if len(d.facts) == 0 {
			return nil, nil
		}
	}
	prior, err := s.commit(d)
	if err != nil && d.done != nil && cancels(d.facts) {
		// A Stop that could not be recorded still stops the work: the run
		// is faulted, and ends as soon as its terminal can be written —
		// perhaps at once, and then the Stop did what it was asked.
		if s.lost(err); s.fault == nil {
			return nil, nil
		}
	}
	return prior, err
}

// commit runs Update over each fact, appends facts and records in one
// transaction, adopts the new Model once they are stored (before the feed
// tells anyone of them), and then performs the commands.
func (s *session) commit(d delivery) ([]byte, error) {
	m := s.model()
	var drafts []event.Draft
	var cmds []core.Cmd
	for _, f := range d.facts {
		enc, err := event.Encode(f)
		if err != nil {
			return nil, err
		}
		msg, ok, err := core.MsgOf(event.Event{Session: s.id, Type: enc.Type, Time: enc.Time, RunID: enc.RunID, Payload: enc.Payload})
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("runtime: %s is not a fact", f.Type)
		}
		step := core.Update(m, msg)
		m = step.Model
		drafts = append(drafts, f)
		drafts = append(drafts, step.Records...)
		cmds = append(cmds, step.Cmds...)
	}
	var prior []byte
	_, err := s.r.feed.AppendWith(context.WithoutCancel(s.r.base), func(ctx context.Context) ([]event.Event, error) {
		var evs []event.Event
		var err error
		if d.once == nil {
			evs, err = s.r.store.Append(ctx, s.id, drafts...)
		} else {
			var done *event.Done
			evs, done, err = s.r.store.AppendOnce(ctx, *d.once, s.id, drafts...)
			if done != nil {
				prior = done.Result
			}
		}
		if err == nil && prior == nil {
			// The Model is adopted before the feed tells anyone of the
			// events: a host that sees a permission.requested and answers at
			// once finds the question open, and a sessions list built on an
			// event shows the state that event made. Subscribers are counted
			// in r.work before the Model says the run is over: shutdown waits
			// for that, so Close's work.Wait cannot miss them.
			s.notifyFinished(drafts)
			s.adopt(m)
		}
		return evs, err
	})
	if err != nil || prior != nil {
		return prior, err // the Model stays what the log says
	}
	s.prune(m)
	for _, c := range cmds {
		s.perform(c)
	}
	return nil, nil
}

// freeze keeps the registry a run will use once it opens.
func (s *session) freeze(runID string, reg *registry.Registry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.frozen == nil {
		s.frozen = map[string]*registry.Registry{}
	}
	s.frozen[runID] = reg
}

// prune drops the registries of runs that are neither open nor waiting.
func (s *session) prune(m core.Model) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id := range s.frozen {
		if id == m.Run.ID || slices.ContainsFunc(m.Queue, func(in core.Input) bool { return in.RunID == id }) {
			continue
		}
		delete(s.frozen, id)
	}
}

// toolsOf is the registry frozen for a run, or (a run opened before a
// restart) the current one.
func (s *session) toolsOf(runID string) (*registry.Registry, error) {
	s.mu.Lock()
	reg, ok := s.frozen[runID]
	s.mu.Unlock()
	if ok {
		return reg, nil
	}
	return s.r.tools()
}

// adopt makes m the session's Model and keeps the run context and the
// ended signal in step with it.
func (s *session) adopt(m core.Model) {
	s.mu.Lock()
	defer s.mu.Unlock()
	wasOpen, isOpen := s.m.Open() && s.run != nil, m.Open()
	switch {
	case isOpen && (!wasOpen || s.m.Run.ID != m.Run.ID):
		if s.cancel != nil {
			s.cancel(nil)
		}
		s.run, s.cancel = context.WithCancelCause(s.r.base)
	case !isOpen && wasOpen:
		s.cancel(nil)
		s.run, s.cancel = nil, nil
	}
	if s.m.Run.ID != m.Run.ID {
		close(s.ended)
		s.ended = make(chan struct{})
	}
	s.m = m
}

func (s *session) runContext() (context.Context, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.run == nil {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		return ctx, ""
	}
	return s.run, s.m.Run.ID
}

// notifyFinished tells lifecycle subscribers about runs that finished.
func (s *session) notifyFinished(drafts []event.Draft) {
	for _, d := range drafts {
		if d.Type != event.RunFinished || len(s.r.lifecycle) == 0 {
			continue
		}
		reason := d.Payload.(event.RunFinishedPayload).Reason
		for _, l := range s.r.lifecycle {
			s.r.work.Add(1)
			go func() {
				defer s.r.work.Done()
				l.RunFinished(s.r.base, s.id, d.RunID, reason)
			}()
		}
	}
}

// shutdown cancels the open run with cause and waits, bounded, until the
// run has its terminal event. A queued follow-up may open the next run as
// the cancelled one closes; it is cancelled too, so that no run of the
// session is left going (nor left open in the log).
func (s *session) shutdown(cause error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*s.r.cleanup+time.Second)
	defer cancel()
	for {
		s.mu.Lock()
		m, ended := s.m, s.ended
		s.mu.Unlock()
		if !m.Open() {
			return
		}
		if m.Run.Stopping == "" {
			if err := s.deliver(ctx, fact(event.CancelRequested, s.r.now(), "", event.CancelRequestedPayload{Cause: cause.Error()})); err != nil {
				s.r.log.Warn("could not record the cancel", "session", s.id, "err", err)
				return
			}
			continue
		}
		// A faulted run ends when the log takes its terminal: let the owner
		// try once more now rather than at its next backoff.
		select {
		case s.kick <- struct{}{}:
		default:
		}
		select {
		case <-ended:
		case <-ctx.Done():
			s.r.log.Warn("a run did not stop in time", "session", s.id)
			return
		}
	}
}

func fact(t event.Type, at time.Time, runID string, payload any) event.Draft {
	return event.Draft{Type: t, Time: at, RunID: runID, Payload: payload}
}
