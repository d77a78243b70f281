package cli

import (
	"io"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"quire/assembly"
	"quire/eval"
	"quire/kernel/protocol"
	"quire/test/mcptest"
)

// stdioMCP runs this test binary again as the stdio test server.
func stdioMCP(t *testing.T) eval.MCPStdio {
	return func(name, record string) protocol.MCPServerConfig { return mcptest.Stdio(t, name, record) }
}

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
		{"edge-mcp-stdio-server-crashes", func(sc *eval.Scenario) {
			sc.Expect.MCP = maps.Clone(sc.Expect.MCP)
			sc.Expect.MCP["files"] = eval.MCPCheck{Stderr: "a line it never wrote"}
		}, []string{`the MCP server files's stderr is "mcptest: serving on stdio`}},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			t.Parallel()
			sc := scenarioNamed(t, tt.scenario)
			tt.breakIt(&sc)
			res := eval.RunOne(t.Context(), sc, assembly.EvalBuilder(QuietLog(io.Discard)), eval.Options{MCPStdio: stdioMCP(t)})
			if res.Pass || res.Skipped {
				t.Fatalf("the scenario passed (or was skipped: %v) with what it must catch", res.Skipped)
			}
			for _, want := range tt.want {
				if !slices.ContainsFunc(res.Failures, func(f string) bool { return strings.Contains(f, want) }) {
					t.Errorf("failures %q do not say %q", res.Failures, want)
				}
			}
		})
	}
}

// TestEvalStdioMCPNeedsAServingBinary: without a binary that serves the
// stdio test server (quire eval) a stdio scenario is skipped, never run
// against nothing nor counted as passed.
func TestEvalStdioMCPNeedsAServingBinary(t *testing.T) {
	sc := scenarioNamed(t, "edge-mcp-stdio-server-crashes")
	if res := eval.RunOne(t.Context(), sc, assembly.EvalBuilder(QuietLog(io.Discard)), eval.Options{}); !res.Skipped || res.Pass {
		t.Fatalf("result %+v, want skipped", res)
	}
}
