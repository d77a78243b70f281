package eval

import (
	"strings"
	"testing"
)

// TestParseRefusesABadCandidateBlock: a candidate block with no fragment,
// one longer than a prompt fragment may be, or a verdict the runner does
// not know is refused when loading, never a check that checks nothing.
func TestParseRefusesABadCandidateBlock(t *testing.T) {
	t.Parallel()
	parseRefuses(t, []parseCase{
		{"no fragment", goodScenario + "candidate: {expect: regression}\n", "candidate.fragment"},
		{"fragment too long", goodScenario + "candidate: {fragment: " + strings.Repeat("x", 1001) + ", expect: same}\n", "candidate.fragment"},
		{"unknown verdict", goodScenario + "candidate: {fragment: a rule, expect: worse}\n", `candidate.expect "worse"`},
		{"misspelt field", goodScenario + "candidate: {fragmnet: a rule, expect: same}\n", "fragmnet"},
	})
	if _, err := Parse([]byte(goodScenario + "candidate: {fragment: a rule, expect: regression}\n")); err != nil {
		t.Fatalf("a good candidate block is refused: %v", err)
	}
}

// TestVerdictIsCompares: the verdict a candidate block checks is the one
// Compare reports of the same pair.
func TestVerdictIsCompares(t *testing.T) {
	t.Parallel()
	pass, fail := Result{Pass: true}, Result{Failures: []string{"x"}}
	for _, tc := range []struct {
		name string
		p    Pair
		want string
	}{
		{"breaks", Pair{Without: pass, With: fail}, VerdictRegression},
		{"mends", Pair{Without: fail, With: pass}, VerdictFixed},
		{"passes both", Pair{Without: pass, With: pass}, VerdictSame},
		{"fails both", Pair{Without: fail, With: fail}, VerdictSame},
	} {
		if got := verdict(tc.p); got != tc.want {
			t.Errorf("%s: verdict = %s, want %s", tc.name, got, tc.want)
		}
	}
}
