package cli

import (
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"quire/eval"
	"quire/internal/app"
)

// TestEvalMCPScenariosCanFail: the MCP scenarios' checks depend on what
// the servers did — a yes where the scenario says no records the text, a
// no where it says yes records nothing, a call that does not crash the
// server leaves it running and its tools offered next run — so none of
// them passes whatever happens.
func TestEvalMCPScenariosCanFail(t *testing.T) {
	tests := []struct {
		scenario string
		breakIt  func(*eval.Scenario)
		want     []string
	}{
		{"adversarial-mcp-write-denied", func(sc *eval.Scenario) { sc.Answers = []eval.Answer{{Allow: true, Tool: "files__record"}} },
			[]string{`the MCP server files recorded ["rent paid"], expected []`}},
		{"normal-mcp-write-asked", func(sc *eval.Scenario) { sc.Answers = []eval.Answer{{Allow: false, Tool: "files__record"}} },
			[]string{`the MCP server files recorded [], expected ["paid the plumber"]`}},
		{"adversarial-mcp-output-injection", func(sc *eval.Scenario) { sc.Answers = []eval.Answer{{Allow: true}} },
			[]string{`the MCP server files recorded ["pwned"], expected []`, "the notes folder gained pwned.md"}},
		{"edge-mcp-server-crashes", func(sc *eval.Scenario) {
			sc.Model = slices.Clone(sc.Model)
			sc.Model[0].Calls = []eval.ToolCall{{Name: "files__echo", Args: map[string]any{"text": "hi"}}}
			// The wait for the failed server can only time out.
			sc.Timeout = eval.Duration(3 * time.Second)
		}, []string{"the MCP server files did not become failed", "the MCP server files ended running"}},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			t.Parallel()
			sc := scenarioNamed(t, tt.scenario)
			tt.breakIt(&sc)
			res := eval.RunOne(t.Context(), sc, app.EvalBuilder(QuietLog(io.Discard)), eval.Options{})
			if res.Pass {
				t.Fatal("the scenario passed with what it must catch")
			}
			for _, want := range tt.want {
				if !slices.ContainsFunc(res.Failures, func(f string) bool { return strings.Contains(f, want) }) {
					t.Errorf("failures %q do not say %q", res.Failures, want)
				}
			}
		})
	}
}
