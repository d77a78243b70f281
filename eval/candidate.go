package eval

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// The verdicts a scenario's candidate block may expect of its comparison
// (CandidateCheck.Expect).
const (
	// VerdictRegression: the scenario passes without the candidate and
	// fails with it — what the comparison must list for the user.
	VerdictRegression = "regression"
	// VerdictFixed: it fails without and passes with.
	VerdictFixed = "fixed"
	// VerdictSame: the candidate changes neither pass nor fail.
	VerdictSame = "same"
)

var knownVerdicts = []string{VerdictRegression, VerdictFixed, VerdictSame}

// maxCandidateFragment bounds a scenario's candidate text as evolve bounds
// a prompt fragment (protocol.MaxFragment).
const maxCandidateFragment = 1000

// CandidateCheck makes a scenario an evaluation of a candidate: the
// scenario runs twice, as Compare runs one — without the fragment and with
// it added to what is active — and passes when Compare's verdict on the
// pair is Expect. The scenario's own expectations are then what the
// candidate is judged by, so a candidate that fails its evaluation is
// exercised through the eval set itself (issue 20).
type CandidateCheck struct {
	// Fragment is the candidate's prompt fragment, as activation renders
	// it into a run's context.
	Fragment string `yaml:"fragment"`
	// Expect is regression, fixed or same.
	Expect string `yaml:"expect"`
}

func (c *CandidateCheck) validate() []error {
	var errs []error
	if strings.TrimSpace(c.Fragment) == "" || utf8.RuneCountInString(c.Fragment) > maxCandidateFragment {
		errs = append(errs, fmt.Errorf("candidate.fragment: 1 to %d characters, as a prompt fragment is", maxCandidateFragment))
	}
	if !slices.Contains(knownVerdicts, c.Expect) {
		errs = append(errs, fmt.Errorf("candidate.expect %q: want one of %s", c.Expect, strings.Join(knownVerdicts, ", ")))
	}
	return errs
}

// verdict is what Compare would report of the pair.
func verdict(p Pair) string {
	switch {
	case p.Regression():
		return VerdictRegression
	case p.Fixed():
		return VerdictFixed
	}
	return VerdictSame
}

// runCandidate plays sc without and with its candidate (each in its own
// temporary world) and checks the verdict. What is active (opts.Fragment)
// stays in both arms: the candidate is added to it.
func runCandidate(ctx context.Context, sc Scenario, build Builder, opts Options) Result {
	plain := sc
	plain.Candidate = nil
	with := opts
	with.Fragment = strings.TrimSpace(strings.Join([]string{opts.Fragment, sc.Candidate.Fragment}, "\n"))
	p := Pair{Name: sc.Name, Without: RunOne(ctx, plain, build, opts), With: RunOne(ctx, plain, build, with)}
	res := Result{Name: sc.Name, Class: sc.Class, File: sc.File, Skipped: p.Without.Skipped || p.With.Skipped,
		Steps: p.Without.Steps + p.With.Steps, ToolCalls: p.Without.ToolCalls + p.With.ToolCalls,
		Tokens: p.Without.Tokens + p.With.Tokens, Took: p.Without.Took + p.With.Took}
	if res.Skipped {
		return res
	}
	res.Answer = p.With.Answer
	if got := verdict(p); got != sc.Candidate.Expect {
		res.Failures = append(res.Failures, fmt.Sprintf("candidate: the comparison says %s, want %s (without: %s; with: %s)",
			got, sc.Candidate.Expect, outcome(p.Without), outcome(p.With)))
	} else if !p.Without.Pass && !p.With.Pass {
		// "same" of two failures says nothing of the candidate: the
		// scenario itself does not hold, with it or without it.
		res.Failures = append(res.Failures, fmt.Sprintf("candidate: both arms failed, so the comparison's %s proves nothing (without: %s; with: %s)",
			got, outcome(p.Without), outcome(p.With)))
	}
	res.Pass = len(res.Failures) == 0
	return res
}

func outcome(r Result) string {
	if r.Pass {
		return "pass"
	}
	return "fail: " + strings.Join(r.Failures, "; ")
}
