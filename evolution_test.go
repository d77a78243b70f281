package main

import (
	"context"
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
	d.steps = append(d.steps, "approve "+id+" "+strings.Join(a.Accepted, "+"))
	return d.detail.Candidate, nil
}
func (d *evolutionDesk) Activate(_ context.Context, id string, a protocol.Activation) (protocol.Candidate, error) {
	d.steps = append(d.steps, "activate "+id+" "+a.Scope+" over "+a.Replaces)
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
	report := &protocol.EvaluationReport{Scenarios: []protocol.ScenarioResult{
		{Name: "edge-small-context-first-answer", Without: protocol.ScenarioRun{Passed: true}},
		{Name: "normal-file-a-note", Without: protocol.ScenarioRun{Passed: true}, With: protocol.ScenarioRun{Passed: true}},
	}}
	desk := &evolutionDesk{detail: protocol.CandidateDetail{
		Candidate: protocol.Candidate{ID: "c2", Name: "receipts", Kind: protocol.CandidatePrompt, Version: 2, Replaces: "c1",
			Artifact:   protocol.Artifact{Prompt: &protocol.PromptFragment{Text: "Receipts go under finance/receipts/YYYY."}},
			Evaluation: report},
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
		}, []string{`Approve "receipts" (version 2)?`, "Receipts go under finance/receipts/YYYY.", "replace version 1", "It breaks 1 scenario that passes now, which you accept by approving:\n• edge-small-context-first-answer", "Nothing changes until you activate it"},
			"approve c2 edge-small-context-first-answer"},
		{"activate", func() error {
			_, err := a.ActivateCandidate("c2", protocol.Activation{Scope: protocol.ScopeFolder, Replaces: "c1"})
			return err
		}, []string{`Activate "receipts" (version 2)?`, "in conversations over this notes folder", "Version 1, active now, stops."},
			"activate c2 folder over c1"},
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
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
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
	if _, err := a.Evolution(); err == nil || !strings.Contains(err.Error(), "not available") {
		t.Errorf("Evolution() without the part: %v", err)
	}
}
