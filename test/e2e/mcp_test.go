//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"quire/test/mcptest"
	"quire/test/ollamatest"
)

// The MCP case ("an MCP server added in Settings…", cases.mjs): the page
// adds test/mcptest's server over stdio — this test binary run again
// (TestMain's mcptest.ServeIfChild) — in Settings, as a user types a
// command; the fake model then calls its destructive record tool, the
// page answers the permission question, and the server's answer is in the
// conversation. Go checks the record file: written once, with the text the
// question showed.

// mcpPrompt is the case's message; mcpText what the model has recorded.
const (
	mcpPrompt = "/mcp record the seed order"
	mcpText   = "tomatoes, basil, 3 packets of beans"
	mcpServer = "garden"
)

// mcpFixture is what the case types in Settings to add the server.
type mcpFixture struct {
	Name    string   `json:"name"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
	Env     string   `json:"env"` // KEY=VALUE, as the form takes it
	Record  string   `json:"record"`
	Prompt  string   `json:"prompt"`
	Text    string   `json:"text"`
}

func newMCPFixture(t *testing.T) mcpFixture {
	record := filepath.Join(t.TempDir(), "record.txt")
	cfg := mcptest.Stdio(t, mcpServer, record)
	return mcpFixture{Name: mcpServer, Command: cfg.Command, Args: cfg.Args, Env: mcptest.Env + "=" + record, Record: record, Prompt: mcpPrompt, Text: mcpText}
}

// mcpReplies calls garden__record once, then says what the server answered.
func mcpReplies(req api.ChatRequest) (ollamatest.Turn, bool) {
	i := slices.IndexFunc(req.Messages, func(m api.Message) bool { return m.Role == "user" && m.Content == mcpPrompt })
	if i < 0 {
		return ollamatest.Turn{}, false
	}
	for _, m := range req.Messages[i+1:] {
		if m.Role == "tool" {
			return say("The garden server answered: " + m.Content), true
		}
	}
	return ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "call_mcp", Name: mcpServer + "__" + mcptest.Record, Arguments: []byte(`{"text":"` + mcpText + `"}`)}}}, true
}

// checkMCPRecord: when the case passed, the server recorded the text once
// (the Yes ran the call, and only that once).
func checkMCPRecord(t *testing.T, fx *fixtureSet, passed []string) {
	t.Helper()
	if !slices.Contains(passed, "mcp-tool") {
		return
	}
	b, err := os.ReadFile(fx.MCP.Record)
	if err != nil || strings.Count(string(b), mcpText+"\n") != 1 || strings.TrimSpace(string(b)) != mcpText {
		t.Errorf("the MCP server's record after the case: %q, %v; want %q once", b, err, mcpText)
	}
}
