package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"quire/host"
	"quire/kernel/protocol"
)

// stepEvolution is a host.Evolution holding one evaluated candidate (and
// an active one) that records the steps it is asked for.
type stepEvolution struct {
	host.Evolution
	c     protocol.Candidate
	steps []string
}

func (s *stepEvolution) Show(_ context.Context, id string) (protocol.CandidateDetail, error) {
	if id != s.c.ID {
		return protocol.CandidateDetail{}, errors.New("no such candidate")
	}
	return protocol.CandidateDetail{Candidate: s.c}, nil
}

func (s *stepEvolution) List(context.Context) (protocol.EvolutionState, error) {
	return protocol.EvolutionState{Candidates: []protocol.Candidate{s.c}}, nil
}

func (s *stepEvolution) Approve(_ context.Context, id string, a protocol.Approval) (protocol.Candidate, error) {
	s.steps = append(s.steps, "approve "+strings.Join(a.Accepted, "+"))
	return s.c, nil
}

func (s *stepEvolution) Activate(_ context.Context, id string, a protocol.Activation) (protocol.Candidate, error) {
	s.steps = append(s.steps, "activate "+a.Scope)
	return s.c, nil
}

func (s *stepEvolution) Rollback(_ context.Context, id string) (protocol.Candidate, error) {
	s.steps = append(s.steps, "rollback "+id)
	return s.c, nil
}

// TestEvolveAsksBeforeItChangesAnything: approve and rollback print what
// will change (the text whole, the scope, the regressions accepted) and
// ask y/n on a terminal; a no changes nothing; -yes answers for a script;
// with standard input not a terminal and no -yes nothing is asked and
// nothing changes, in words saying to add -yes.
func TestEvolveAsksBeforeItChangesAnything(t *testing.T) {
	text := strings.Repeat("Receipts go under finance/receipts/YYYY. ", 24) + "The end."
	evaluated := protocol.Candidate{ID: "c1", Name: "receipts", Version: 1, Kind: protocol.CandidatePrompt, State: protocol.CandidateEvaluated,
		Artifact: protocol.Artifact{Prompt: &protocol.PromptFragment{Text: text}},
		Evaluation: &protocol.EvaluationReport{Candidate: "c1", Scenarios: []protocol.ScenarioResult{
			{Name: "edge-a", Without: protocol.ScenarioRun{Passed: true}}}}}
	active := evaluated
	active.State, active.Scope, active.Folder = protocol.CandidateActive, protocol.ScopeFolder, "/notes"
	for _, tc := range []struct {
		name      string
		c         protocol.Candidate
		args      []string
		accept    string
		yes, tty  bool
		stdin     string
		wantErr   error
		wantSteps string
		says      []string
	}{
		{"approve on a terminal, yes", evaluated, []string{"approve", "c1"}, "edge-a", false, true, "y\n", nil, "approve edge-a,activate folder",
			[]string{"  | " + text[:60], "The end.", "for conversations over this notes folder", "You accept that it breaks edge-a.", "[y/N]", "is active for"}},
		{"approve on a terminal, no", evaluated, []string{"approve", "c1"}, "edge-a", false, true, "n\n", nil, "", []string{"The end.", "Nothing was changed."}},
		{"approve from /dev/null", evaluated, []string{"approve", "c1"}, "edge-a", false, false, "", errNotAsked, "", []string{"The end."}},
		{"approve with -yes from a script", evaluated, []string{"approve", "c1"}, "edge-a", true, false, "", nil, "approve edge-a,activate folder", []string{"The end."}},
		{"a regression not accepted is said before asking", evaluated, []string{"approve", "c1"}, "", false, true, "y\n", nil, "", nil},
		{"rollback on a terminal, yes", active, []string{"rollback"}, "", false, true, "yes\n", nil, "rollback c1", []string{"The end.", "conversations over /notes", "Roll it back? [y/N]", "Rolled back receipts v1"}},
		{"rollback from /dev/null", active, []string{"rollback", "c1"}, "", false, false, "", errNotAsked, "", []string{"The end."}},
		{"rollback with -yes", active, []string{"rollback", "c1"}, "", true, false, "", nil, "rollback c1", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &stepEvolution{c: tc.c}
			o := &evolveOptions{scope: protocol.ScopeFolder, accept: tc.accept, yes: tc.yes, terminal: func(any) bool { return tc.tty }}
			var out bytes.Buffer
			err := o.do(t.Context(), e, tc.args, Env{Stdin: strings.NewReader(tc.stdin), Stdout: &out})
			if tc.name == "a regression not accepted is said before asking" {
				if err == nil || !strings.Contains(err.Error(), "-accept edge-a") || strings.Contains(out.String(), "[y/N]") {
					t.Errorf("err %v, out %q: want the missing -accept said before any question", err, out.String())
				}
			} else if !errors.Is(err, tc.wantErr) {
				t.Errorf("err = %v, want %v", err, tc.wantErr)
			}
			if got := strings.Join(e.steps, ","); got != tc.wantSteps {
				t.Errorf("steps %q, want %q", got, tc.wantSteps)
			}
			for _, s := range tc.says {
				if !strings.Contains(out.String(), s) {
					t.Errorf("the output lacks %q:\n%s", s, out.String())
				}
			}
		})
	}
	if !strings.Contains(errNotAsked.Error(), "add -yes") {
		t.Errorf("the refusal %q does not say to add -yes", errNotAsked)
	}
}
