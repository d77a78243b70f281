package window

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"quire/host"
	"quire/kernel/protocol"
)

// evolutionDesk holds one candidate and records the steps it was asked to
// take; any method the test does not hold fails loudly (nil).
type evolutionDesk struct {
	host.Evolution
	detail protocol.CandidateDetail
	steps  []string
}

func (d *evolutionDesk) Show(context.Context, string) (protocol.CandidateDetail, error) {
	return d.detail, nil
}
func (d *evolutionDesk) Approve(_ context.Context, id string, a protocol.Approval) (protocol.Candidate, error) {
	d.steps = append(d.steps, "approve "+id+" "+strings.Join(a.Accepted, "+")+" "+a.Digest)
	return d.detail.Candidate, nil
}
func (d *evolutionDesk) Activate(_ context.Context, id string, a protocol.Activation) (protocol.Candidate, error) {
	d.steps = append(d.steps, "activate "+id+" "+a.Scope+" over "+a.Replaces+" "+a.Digest)
	return d.detail.Candidate, nil
}
func (d *evolutionDesk) Rollback(_ context.Context, id string) (protocol.Candidate, error) {
	d.steps = append(d.steps, "rollback "+id)
	return d.detail.Candidate, nil
}

// Approve, activate and roll back each wait for a native Yes whose text is
// Go's: the fragment quoted, the regressions of the report the log holds
// (not a list the page sent), the scope and the version replaced. A No
// takes no step; a Yes takes exactly the one asked for.
func TestEvolutionStepsAreAskedInANativeDialog(t *testing.T) {
	// A fragment as long as one may be is quoted whole: its end too.
	longFragment := strings.Repeat("Receipts go under finance/receipts/YYYY. ", 23) + "The end of the rule."
	report := &protocol.EvaluationReport{Scenarios: []protocol.ScenarioResult{
		{Name: "edge-small-context-first-answer", Without: protocol.ScenarioRun{Passed: true}},
		{Name: "normal-file-a-note", Without: protocol.ScenarioRun{Passed: true}, With: protocol.ScenarioRun{Passed: true}},
	}}
	desk := &evolutionDesk{detail: protocol.CandidateDetail{
		Candidate: protocol.Candidate{ID: "c2", Name: "receipts", Kind: protocol.CandidatePrompt, Version: 2, Replaces: "c1",
			Artifact: protocol.Artifact{Prompt: &protocol.PromptFragment{Text: longFragment}},
			Digest:   "d1g3st", Evaluation: report},
		Active: &protocol.Candidate{ID: "c1", Version: 1}}}
	a, _, asked := batchApp(t, &batchDesk{})
	a.evolution = desk

	for _, tc := range []struct {
		name string
		step func() error
		want []string
		took string
	}{
		{"approve", func() error {
			_, err := a.ApproveCandidate("c2", protocol.Approval{Accepted: []string{"edge-small-context-first-answer"}})
			return err
		}, []string{`Approve "receipts" (version 2)?`, "Receipts go under finance/receipts/YYYY.", "The end of the rule.", "replace version 1", "It breaks 1 scenario that passes now, which you accept by approving:\n• edge-small-context-first-answer", "Nothing changes until you activate it"},
			"approve c2 edge-small-context-first-answer d1g3st"},
		{"activate", func() error {
			_, err := a.ActivateCandidate("c2", protocol.Activation{Scope: protocol.ScopeFolder, Replaces: "c1"})
			return err
		}, []string{`Activate "receipts" (version 2)?`, "in conversations over this notes folder", "Version 1, active now, stops."},
			"activate c2 folder over c1 d1g3st"},
		{"roll back", func() error {
			_, err := a.RollbackCandidate("c2")
			return err
		}, []string{`Roll back "receipts" (version 2)?`, "The version it replaced is active again."},
			"rollback c2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a.dialog = func(_ context.Context, title, message string) (bool, error) {
				*asked = append(*asked, title+"\n"+message)
				return false, nil
			}
			before := len(desk.steps)
			if err := tc.step(); err != nil || len(desk.steps) != before {
				t.Fatalf("a No: %v, steps %q", err, desk.steps[before:])
			}
			text := (*asked)[len(*asked)-1]
			unwrapped := strings.ReplaceAll(text, "\n↪ ", "")
			for _, w := range tc.want {
				if !strings.Contains(unwrapped, w) {
					t.Errorf("the dialog lacks %q:\n%s", w, text)
				}
			}
			if strings.Contains(text, "normal-file-a-note") {
				t.Errorf("the dialog names a scenario that still passes:\n%s", text)
			}
			a.dialog = func(context.Context, string, string) (bool, error) { return true, nil }
			if err := tc.step(); err != nil || len(desk.steps) != before+1 || desk.steps[before] != tc.took {
				t.Fatalf("a Yes: %v, steps %q, want %q", err, desk.steps[before:], tc.took)
			}
		})
	}
}

func TestEvolutionWithoutThePart(t *testing.T) {
	a, _, _ := batchApp(t, &batchDesk{})
	if _, err := opAs[protocol.EvolutionState](a, "Evolution.List"); err == nil || !strings.Contains(err.Error(), "not available") {
		t.Errorf("Evolution() without the part: %v", err)
	}
}

// jobDesk is an evolution whose evaluation jobs the test sends.
type jobDesk struct {
	host.Evolution
	jobs    chan protocol.EvaluationJob
	started []string
}

func (d *jobDesk) StartEvaluation(_ context.Context, id string) (protocol.EvaluationJob, error) {
	d.started = append(d.started, id)
	return protocol.EvaluationJob{Candidate: id, State: protocol.EvaluationRunning}, nil
}
func (d *jobDesk) CancelEvaluation(_ context.Context, id string) (protocol.EvaluationJob, error) {
	return protocol.EvaluationJob{}, protocol.Refusal(protocol.ErrConflict, errors.New("none"), "no evaluation of "+id+" is running; nothing to cancel")
}
func (d *jobDesk) WatchEvaluations(context.Context) <-chan protocol.EvaluationJob { return d.jobs }

// EvaluateCandidate starts the job and answers at once, with no dialog
// (an evaluation changes nothing Quire does); each change of a job reaches
// the page as quire:evaluation, in order; a refusal is Quire's sentence.
func TestEvaluationJobReachesTheWindow(t *testing.T) {
	desk := &jobDesk{jobs: make(chan protocol.EvaluationJob, 2)}
	a, w, asked := batchApp(t, &batchDesk{})
	a.evolution = desk
	a.startEvolution(t.Context())
	j, err := opAs[protocol.EvaluationJob](a, "Evolution.StartEvaluation", "c2")
	if err != nil || j.State != protocol.EvaluationRunning || fmt.Sprint(desk.started) != "[c2]" || len(*asked) != 0 {
		t.Fatalf("start: %+v, %v; started %v, asked %q", j, err, desk.started, *asked)
	}
	desk.jobs <- protocol.EvaluationJob{Candidate: "c2", State: protocol.EvaluationRunning, Done: 1, Total: 2}
	desk.jobs <- protocol.EvaluationJob{Candidate: "c2", State: protocol.EvaluationDone, Done: 2, Total: 2}
	got := w.wait(t, "two job changes", func(es []emitted) bool {
		n := 0
		for _, e := range es {
			if e.name == eventEvaluation {
				n++
			}
		}
		return n == 2
	})
	var states []string
	for _, e := range got {
		if e.name == eventEvaluation {
			j := e.data[0].(protocol.EvaluationJob)
			states = append(states, fmt.Sprintf("%s %d/%d", j.State, j.Done, j.Total))
		}
	}
	if fmt.Sprint(states) != "[running 1/2 done 2/2]" {
		t.Errorf("the window was sent %v", states)
	}
	if _, err := opAs[protocol.EvaluationJob](a, "Evolution.CancelEvaluation", "c2"); err == nil || !strings.Contains(err.Error(), "nothing to cancel") {
		t.Errorf("cancel with none running: %v", err)
	}
	close(desk.jobs)
}
