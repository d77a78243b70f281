package evolve

import (
	"context"
	"errors"
	"sync"

	"quire/internal/latest"
	"quire/kernel/protocol"
)

// Why a job step is refused.
var (
	// ErrEvaluating: the candidate's evaluation is already running.
	ErrEvaluating = errors.New("the candidate is being evaluated already")
	// ErrNoEvaluation: the candidate has no evaluation job in this start.
	ErrNoEvaluation = errors.New("the candidate has no evaluation running or finished")
	// ErrClosed: the store is closing; no evaluation starts.
	ErrClosed = errors.New("evolution is closing")
)

// maxJobs bounds the finished jobs kept for polling (the newest stay); a
// job is in memory only: its report, once done, is in the log.
const maxJobs = 64

// jobs are the evaluations running in the background and the last state of
// those that ended, by candidate. An evaluation outlasts the request that
// started it (a real model's takes minutes; quire serve's write deadline is
// one), so a host starts it, follows it (Watch or Get) and may cancel it.
type jobs struct {
	mu       sync.Mutex
	byID     map[string]*job
	order    []string // candidates, oldest job first
	watchers map[*latest.Keyed[protocol.EvaluationJob]]struct{}
	closed   bool
	wg       sync.WaitGroup
}

type job struct {
	state  protocol.EvaluationJob
	cancel context.CancelCauseFunc
}

func newJobs() *jobs {
	return &jobs{byID: map[string]*job{}, watchers: map[*latest.Keyed[protocol.EvaluationJob]]struct{}{}}
}

// errCancelled is the cause of a job the user stopped.
var errCancelled = errors.New("the evaluation was cancelled")

// StartEvaluation starts the candidate's isolated evaluation in the
// background and returns at once: the job running, with how many scenarios
// it will run once the evaluator knows. What refuses Evaluate (no
// evaluator, an unknown id, a candidate past evaluation) refuses it here,
// before anything starts; a second start while one runs is refused too.
// The job runs until it ends, the user cancels it or the store closes;
// ctx's values are kept, not its end.
func (s *Store) StartEvaluation(ctx context.Context, id string) (protocol.EvaluationJob, error) {
	e, c, active, err := s.evaluation(ctx, id)
	if err != nil {
		return protocol.EvaluationJob{}, err
	}
	j := s.jobs
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return protocol.EvaluationJob{}, refuse(ErrClosed, protocol.ErrConflict, "Quire is closing; evaluate %s after it starts again", c.Name)
	}
	if old, ok := j.byID[id]; ok && !old.state.Ended() {
		j.mu.Unlock()
		return protocol.EvaluationJob{}, refuse(ErrEvaluating, protocol.ErrConflict, "%s v%d is being evaluated (%d of %d scenarios); wait for it or cancel it", c.Name, c.Version, old.state.Done, old.state.Total)
	}
	run, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	jb := &job{state: protocol.EvaluationJob{Candidate: id, State: protocol.EvaluationRunning, Started: s.now()}, cancel: cancel}
	j.put(id, jb)
	j.wg.Add(1)
	first := jb.state
	j.publish(first)
	j.mu.Unlock()

	go func() {
		defer j.wg.Done()
		defer cancel(nil)
		r, err := s.record(run, e, *c, active, func(done, total int, scenario string) {
			j.update(id, func(st *protocol.EvaluationJob) { st.Done, st.Total, st.Scenario = done, total, scenario })
		})
		j.update(id, func(st *protocol.EvaluationJob) {
			switch cause := context.Cause(run); {
			case err == nil:
				st.State, st.Report, st.Done = protocol.EvaluationDone, &r, st.Total
			case errors.Is(cause, errCancelled):
				st.State, st.Error = protocol.EvaluationCancelled, "Cancelled: nothing was recorded; evaluate it again when you want a report."
			default:
				st.State, st.Error = protocol.EvaluationFailed, err.Error()
			}
		})
		if err != nil {
			s.logger.Warn("evolve: evaluation ended without a report", "candidate", id, "err", err)
		}
	}()
	return first, nil
}

// Evaluation is the candidate's latest evaluation job of this start.
func (s *Store) Evaluation(_ context.Context, id string) (protocol.EvaluationJob, error) {
	j := s.jobs
	j.mu.Lock()
	defer j.mu.Unlock()
	jb, ok := j.byID[id]
	if !ok {
		return protocol.EvaluationJob{}, refuse(ErrNoEvaluation, protocol.ErrNotFound, "%s has no evaluation since Quire started; start one with `quire evolve eval %s`", id, id)
	}
	return jb.state, nil
}

// CancelEvaluation stops the candidate's running evaluation; nothing is
// recorded (a report cut short cannot say the candidate breaks nothing).
// It returns the job as it is; it ends cancelled soon after, once the
// scenarios running have stopped (Watch or Evaluation say when).
func (s *Store) CancelEvaluation(_ context.Context, id string) (protocol.EvaluationJob, error) {
	j := s.jobs
	j.mu.Lock()
	defer j.mu.Unlock()
	jb, ok := j.byID[id]
	if !ok || jb.state.Ended() {
		return protocol.EvaluationJob{}, refuse(ErrNoEvaluation, protocol.ErrConflict, "no evaluation of %s is running; nothing to cancel", id)
	}
	jb.cancel(errCancelled)
	return jb.state, nil
}

// WatchEvaluations delivers every job's changes until ctx ends: in order
// per candidate, each job's latest state always (its end is never lost); a
// slow watcher gets the latest progress rather than every step.
func (s *Store) WatchEvaluations(ctx context.Context) <-chan protocol.EvaluationJob {
	j := s.jobs
	w := latest.NewKeyed[protocol.EvaluationJob]()
	j.mu.Lock()
	j.watchers[w] = struct{}{}
	j.mu.Unlock()
	return latest.Drain(ctx, w.Wake(), w.Take, func() {
		j.mu.Lock()
		delete(j.watchers, w)
		j.mu.Unlock()
	})
}

// Close cancels the running evaluations and waits for them to end; none
// starts after it.
func (s *Store) Close() {
	j := s.jobs
	j.mu.Lock()
	j.closed = true
	for _, jb := range j.byID {
		jb.cancel(ErrClosed)
	}
	j.mu.Unlock()
	j.wg.Wait()
}

// put adds a job (j.mu held), forgetting the oldest ended ones past maxJobs.
func (j *jobs) put(id string, jb *job) {
	if _, ok := j.byID[id]; !ok {
		j.order = append(j.order, id)
	}
	j.byID[id] = jb
	for i := 0; len(j.order) > maxJobs && i < len(j.order); {
		if old := j.byID[j.order[i]]; old.state.Ended() {
			delete(j.byID, j.order[i])
			j.order = append(j.order[:i], j.order[i+1:]...)
			continue
		}
		i++
	}
}

func (j *jobs) update(id string, change func(*protocol.EvaluationJob)) {
	j.mu.Lock()
	defer j.mu.Unlock()
	jb, ok := j.byID[id]
	if !ok {
		return
	}
	change(&jb.state)
	j.publish(jb.state)
}

// publish offers the state to every watcher (j.mu held, so a watcher never
// gets a job's older state after a newer one).
func (j *jobs) publish(st protocol.EvaluationJob) {
	for w := range j.watchers {
		w.Offer(st.Candidate, st)
	}
}
