package evolve_test

import (
	"context"
	"errors"
	"testing"

	"quire/evolve"
	"quire/kernel/protocol"
	"quire/test/testkit"
)

// stepping is an evaluator of two scenarios that reports the first, then
// waits for step (or its context) before the second.
type stepping struct{ step chan struct{} }

func (e stepping) Evaluate(ctx context.Context, c protocol.Candidate, _ *protocol.Candidate, progress evolve.Progress) (protocol.EvaluationReport, error) {
	progress(0, 2, "")
	progress(1, 2, "first")
	select {
	case <-e.step:
	case <-ctx.Done():
		return protocol.EvaluationReport{}, context.Cause(ctx)
	}
	progress(2, 2, "second")
	return protocol.EvaluationReport{Scenarios: []protocol.ScenarioResult{
		{Name: "first", Without: protocol.ScenarioRun{Passed: true}, With: protocol.ScenarioRun{Passed: true}},
		{Name: "second", Without: protocol.ScenarioRun{Passed: true}, With: protocol.ScenarioRun{Passed: true}}}}, nil
}

// until reads the watch until a state of the candidate's job satisfies ok.
func until(t *testing.T, w <-chan protocol.EvaluationJob, id string, ok func(protocol.EvaluationJob) bool) protocol.EvaluationJob {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Patience)
	defer cancel()
	for {
		select {
		case j := <-w:
			if j.Candidate == id && ok(j) {
				return j
			}
		case <-ctx.Done():
			t.Fatalf("the job of %s never got there", id)
		}
	}
}

// TestEvaluationIsAJob: starting returns at once with the job running; its
// progress is watched scenario by scenario; a second start while it runs
// is refused; a cancelled job records nothing and the candidate stays
// unevaluated; a job run to its end records its report; closing the store
// ends a running job unrecorded.
func TestEvaluationIsAJob(t *testing.T) {
	r := newRig(t, nil, false)
	ctx := t.Context()
	ev := stepping{step: make(chan struct{})}
	r.evo.SetEvaluator(ev)
	c, err := r.evo.Propose(ctx, fragment("receipts", "File receipts by year."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.evo.Evaluation(ctx, c.ID); !errors.Is(err, evolve.ErrNoEvaluation) {
		t.Fatalf("a job before any start: %v", err)
	}
	if _, err := r.evo.StartEvaluation(ctx, "c-none"); !errors.Is(err, protocol.ErrNotFound) {
		t.Fatalf("start for an unknown id: %v", err)
	}
	w := r.evo.WatchEvaluations(ctx)

	job, err := r.evo.StartEvaluation(ctx, c.ID)
	if err != nil || job.State != protocol.EvaluationRunning {
		t.Fatalf("start: %+v, %v", job, err)
	}
	until(t, w, c.ID, func(j protocol.EvaluationJob) bool { return j.Done == 1 && j.Total == 2 && j.Scenario == "first" })
	if _, err := r.evo.StartEvaluation(ctx, c.ID); !errors.Is(err, evolve.ErrEvaluating) {
		t.Fatalf("a second start while it runs: %v", err)
	}
	if _, err := r.evo.CancelEvaluation(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	end := until(t, w, c.ID, protocol.EvaluationJob.Ended)
	if end.State != protocol.EvaluationCancelled || end.Report != nil {
		t.Fatalf("cancelled: %+v", end)
	}
	if d, err := r.evo.Show(ctx, c.ID); err != nil || d.Candidate.Evaluation != nil || d.Candidate.State != protocol.CandidateProposed {
		t.Fatalf("a cancelled evaluation was recorded: %+v, %v", d.Candidate, err)
	}
	if _, err := r.evo.CancelEvaluation(ctx, c.ID); !errors.Is(err, evolve.ErrNoEvaluation) {
		t.Fatalf("cancel an ended job: %v", err)
	}

	if _, err := r.evo.StartEvaluation(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	ev.step <- struct{}{}
	end = until(t, w, c.ID, protocol.EvaluationJob.Ended)
	if end.State != protocol.EvaluationDone || end.Report == nil || len(end.Report.Scenarios) != 2 || end.Done != 2 {
		t.Fatalf("done: %+v", end)
	}
	if polled, err := r.evo.Evaluation(ctx, c.ID); err != nil || polled.State != protocol.EvaluationDone {
		t.Fatalf("polled: %+v, %v", polled, err)
	}
	if d, _ := r.evo.Show(ctx, c.ID); d.Candidate.State != protocol.CandidateEvaluated {
		t.Fatalf("the finished job's report was not recorded: %s", d.Candidate.State)
	}

	// Evaluated, it may be evaluated again; closing ends that job.
	if _, err := r.evo.StartEvaluation(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	until(t, w, c.ID, func(j protocol.EvaluationJob) bool { return j.Done == 1 })
	r.evo.Close()
	if j, _ := r.evo.Evaluation(ctx, c.ID); j.State != protocol.EvaluationFailed || j.Report != nil {
		t.Fatalf("after Close: %+v", j)
	}
	if _, err := r.evo.StartEvaluation(ctx, c.ID); !errors.Is(err, evolve.ErrClosed) {
		t.Fatalf("start after Close: %v", err)
	}
}
