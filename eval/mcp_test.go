package eval

import (
	"strings"
	"testing"
)

const mcpScenario = goodScenario + `
setup:
  mcp:
    - {name: files, server: mcptest}
`

// TestParseRefusesBadMCPSetups: a server a scenario cannot have, a check
// or a wait naming a server it does not have, and a deadline out of the
// setting's bounds are errors naming the field, never checks of nothing.
func TestParseRefusesBadMCPSetups(t *testing.T) {
	t.Parallel()
	tests := []parseCase{
		{"unknown server kind", strings.Replace(mcpScenario, "server: mcptest", "server: everything", 1), `setup.mcp[0].server "everything"`},
		{"a name the client refuses", strings.Replace(mcpScenario, "name: files", "name: my files", 1), `setup.mcp[0].name "my files"`},
		{"two servers of one name", mcpScenario + "    - {name: files, server: mcptest}\n", "two servers have that name"},
		{"deadline over the bound", mcpScenario + "  mcp_call_seconds: 601\n", "setup.mcp_call_seconds 601"},
		{"a check of nothing", strings.Replace(mcpScenario, "runs: [completed]", "mcp: {files: {}}", 1), "expect.mcp.files: check its state"},
		{"an unknown state", strings.Replace(mcpScenario, "runs: [completed]", "mcp: {files: {state: dead}}", 1), `expect.mcp.files.state "dead"`},
		{"a check of another server", strings.Replace(mcpScenario, "runs: [completed]", "mcp: {other: {state: failed}}", 1), `expect.mcp: "other" is not a server`},
		{"a wait for another server", strings.Replace(mcpScenario, `say: "hi"`, "say: hi\n    when: \"mcp:other:failed\"", 1), `when "mcp:other:failed"`},
		{"a wait for an unknown state", strings.Replace(mcpScenario, `say: "hi"`, "say: hi\n    when: \"mcp:files:dead\"", 1), `when "mcp:files:dead"`},
		{"an unknown transport", strings.Replace(mcpScenario, "server: mcptest", "server: mcptest, transport: sse", 1), `setup.mcp[0].transport "sse"`},
		{"a misspelt server field", strings.Replace(mcpScenario, "server: mcptest", "sever: mcptest", 1), "field sever is not a field of mcpserver"},
	}
	parseRefuses(t, tests)
	good := strings.Replace(mcpScenario, `say: "hi"`, "say: hi\n    when: \"mcp:files:failed\"", 1) + "  mcp_call_seconds: 1\n"
	good = strings.Replace(good, "runs: [completed]", "mcp: {files: {state: failed, recorded: []}}", 1)
	if _, err := Parse([]byte(good)); err != nil {
		t.Fatalf("a good MCP scenario is refused: %v", err)
	}
}
