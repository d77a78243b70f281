package runtime

import (
	"errors"
	"fmt"
	"time"

	"quire/kernel/event"
)

// A fault is a report of the open run's work (a streamed piece, a reply, a
// tool's result, an answer, the checkpoint, a tick) that the log could not
// take — the disk filled, say. Dropping it would leave the run waiting for
// it forever; applying later reports over the gap would log a run that did
// not happen that way. So the owner keeps the fault, stops the run's work
// (its context is cancelled with the cause), drops the reports that still
// come for that run, and ends the run with a run.interrupted fact carrying a
// sentence (core closes it as error, settling its calls as after a restart)
// as soon as the log takes it: at once if it can, else before the next
// delivery, on a Stop, or on a bounded backoff (retryFault). If it never
// can, the log still has the run open and the next start's Recover closes
// it as interrupted.
type fault struct {
	run   string // the run it ends
	cause error
}

// ErrNotSaved is the cause a faulted run's work is cancelled with.
var ErrNotSaved = errors.New("quire could not save the progress of this request")

// The backoff between attempts to end a faulted run: it doubles from the
// first pause up to the cap, and goes on until the run ends or Quire stops.
const (
	faultRetryFirst = 250 * time.Millisecond
	faultRetryMax   = 10 * time.Second
)

// lost records that a delivery for the open run could not be appended.
// Called only by the owner goroutine.
func (s *session) lost(err error) {
	if s.fault != nil {
		s.r.log.Debug("dropped a report of a run that is being ended", "session", s.id, "err", err)
		return
	}
	s.mu.Lock()
	open, run, ended := s.m.Open(), s.m.Run.ID, s.ended
	if open && s.cancel != nil {
		s.cancel(fmt.Errorf("%w: %w", ErrNotSaved, err))
	}
	s.mu.Unlock()
	if !open {
		s.r.log.Warn("a report could not be saved", "session", s.id, "err", err)
		return
	}
	s.r.log.Error("the log could not take a report of the run; the run is stopped and ends once the log takes its terminal event",
		"session", s.id, "run", run, "err", err)
	s.fault = &fault{run: run, cause: err}
	if err := s.endFault(); err != nil {
		// Not counted in r.work: the owner may get here while Close is
		// already waiting for the work, and this goroutine ends by itself
		// when the run ends, the session goes or Quire stops.
		go s.retryFault(ended)
	}
}

// endFault appends the terminal of the faulted run. Called only by the
// owner goroutine; the error is why it could not yet.
func (s *session) endFault() error {
	f := s.fault
	if f == nil {
		return nil
	}
	if m := s.model(); !m.Open() || m.Run.ID != f.run {
		s.fault = nil
		return nil
	}
	end := fact(event.RunInterrupted, s.r.now(), "", event.RunInterruptedPayload{Error: faultSentence(f.cause)})
	if _, err := s.commit(delivery{facts: []event.Draft{end}}); err != nil {
		return err
	}
	s.fault, s.faulted = nil, f.run
	s.r.log.Info("ended a run whose report could not be saved", "session", s.id, "run", f.run, "cause", f.cause)
	return nil
}

// retryFault wakes the owner to try to end the faulted run again, with a
// doubling pause, until the run ends (ended closes), the session is closed
// or Quire stops.
func (s *session) retryFault(ended <-chan struct{}) {
	wait := faultRetryFirst
	for {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ended:
			t.Stop()
			return
		case <-s.r.base.Done():
			t.Stop()
			return
		}
		s.sendMu.RLock()
		closed := s.closed
		s.sendMu.RUnlock()
		if closed {
			return
		}
		select {
		case s.kick <- struct{}{}:
		default: // a wake-up is already waiting
		}
		wait = min(2*wait, faultRetryMax)
	}
}

// faultSentence is what the user reads where the run ended.
func faultSentence(cause error) string {
	if errors.Is(cause, event.ErrNoSpace) {
		return "The disk is full: Quire could not save the rest of this request and stopped it. " +
			"Free some space on the disk that holds Quire's data folder, then send your message again."
	}
	return "Quire could not save the rest of this request (" + cause.Error() + ") and stopped it. Send your message again."
}

// cancels reports whether facts hold a Stop.
func cancels(facts []event.Draft) bool {
	for _, f := range facts {
		if f.Type == event.CancelRequested {
			return true
		}
	}
	return false
}
