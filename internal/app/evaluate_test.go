package app_test

import (
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"quire/eval"
	"quire/internal/app"
)

// evalsDir is the eval set, at the top of the repository.
const evalsDir = "../../evals"

// receiptsRule is a candidate fragment of the kind issue 20 names: a short
// rule the user restated.
const receiptsRule = "Receipts are filed under finance/receipts/YYYY; never move notes out of projects/ without asking."

// longRules is a candidate that grew too long: its 3,000 words no longer
// fit beside the tools in a 4,096-token context, so a small model's first
// message is refused.
var longRules = strings.Repeat("Always file a note under the folder named after its first tag, unless the user said otherwise. ", 200)

// TestCompareListsTheScenariosACandidateBreaks runs a few scenarios of the
// eval set without and with a candidate fragment through the root's own
// wiring: a rule that fits breaks nothing, one that overflows a small
// model's context breaks the scenario that passed without it, and the
// report names it.
func TestCompareListsTheScenariosACandidateBreaks(t *testing.T) {
	t.Parallel()
	all, err := eval.LoadDir(evalsDir)
	if err != nil {
		t.Fatal(err)
	}
	var few []eval.Scenario
	for _, sc := range all {
		if slices.Contains([]string{"edge-small-context-first-answer", "normal-file-a-note"}, sc.Name) {
			few = append(few, sc)
		}
	}
	if len(few) != 2 {
		t.Fatalf("the eval set lacks the scenarios this test runs: found %d of 2", len(few))
	}
	build := app.EvalBuilder(slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, tc := range []struct {
		name      string
		candidate string
		broken    []string
	}{
		{"a rule that fits", receiptsRule, []string{}},
		{"rules too long for a small context", longRules, []string{"edge-small-context-first-answer"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var progress []eval.CompareProgress
			c := eval.Compare(t.Context(), few, build, eval.CompareOptions{Candidate: tc.candidate, Options: eval.Options{Parallel: 1},
				Progress: func(p eval.CompareProgress) { progress = append(progress, p) }})
			if !c.Complete() {
				t.Fatalf("stopped: %s", c.Stopped)
			}
			if !slices.Equal(c.Regressions, tc.broken) {
				t.Errorf("regressions = %q, want %q; report: %+v", c.Regressions, tc.broken, c.Pairs)
			}
			for _, p := range c.Pairs {
				if !p.Without.Pass {
					t.Errorf("%s fails without the candidate: %q", p.Name, p.Without.Failures)
				}
				if p.With.Tokens <= p.Without.Tokens && p.With.Pass {
					t.Errorf("%s: %d tokens with the candidate, %d without: the fragment did not reach the model", p.Name, p.With.Tokens, p.Without.Tokens)
				}
			}
			if len(progress) != 2 || progress[1].Done != 2 || progress[1].Total != 2 {
				t.Errorf("progress = %+v, want two calls ending at 2 of 2", progress)
			}
		})
	}
}
