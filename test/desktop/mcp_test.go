//go:build desktoptest

package desktop

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"quire/test/mcptest"
	"quire/test/ollamatest"
)

// The test binary doubles as the MCP server the window starts (mcptest).
func TestMain(m *testing.M) { mcptest.Main(m) }

const (
	desktopMCPPrompt = "record the seed order with the garden server"
	desktopMCPText   = "tomatoes and basil"
)

// recordThroughGarden calls the garden server's record tool once, then
// says what the server answered.
func recordThroughGarden(req api.ChatRequest) (ollamatest.Turn, bool) {
	last := req.Messages[len(req.Messages)-1]
	switch {
	case last.Role == "tool":
		return ollamatest.Turn{Content: []string{"The garden server answered: ", last.Content}}, true
	case last.Role == "user" && last.Content == desktopMCPPrompt:
		return ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "r1", Name: "garden__" + mcptest.Record,
			Arguments: []byte(`{"text":"` + desktopMCPText + `"}`)}}}, true
	}
	return ollamatest.Turn{}, false
}

// TestDesktopMCPToolIsAskedInTheWindow: the data folder's mcp.json, in the
// shape other apps write (`{"mcpServers": {"garden": {command, args,
// env}}}`), names mcptest's server; the real window starts it, the model
// calls its destructive record tool, the window asks in a native dialog
// named after the tool — nothing is recorded before the yes —, xdotool
// answers Yes, and the server's answer is in the conversation.
func TestDesktopMCPToolIsAskedInTheWindow(t *testing.T) {
	display := startXvfb(t)
	fake := ollamatest.New(t, ollamatest.WithDelay(10*time.Millisecond), ollamatest.WithResponder(recordThroughGarden))
	fake.AddModel(ollamatest.DefaultModel())
	dataDir, record := t.TempDir(), filepath.Join(t.TempDir(), "record.txt")
	srv := mcptest.Stdio(t, "garden", record)
	config, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"garden": map[string]any{"command": srv.Command, "args": srv.Args, "env": srv.Env}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dataDir, "mcp.json"), config, 0o600); err != nil {
		t.Fatal(err)
	}
	probe := filepath.Join(t.TempDir(), "view.json")
	a := startApp(t, display, dataDir, probe, fake.URL())
	failedShot(t, display, probe, "desktop-mcp-FAILED.png")
	waitView(t, a, probe, "the frontend to load", func(v view) bool { return v.Messages != nil })

	send(t, display, desktopMCPPrompt)
	dialog := strings.Fields(run(t, display, "xdotool", "search", "--sync", "--onlyvisible", "--name", "Allow Quire to run garden__record"))[0]
	screenshot(t, display, "desktop-mcp-question.png")
	if _, err := os.Stat(record); err == nil {
		t.Fatal("the server recorded before the user said yes")
	}
	run(t, display, "xdotool", "windowfocus", "--sync", dialog)
	run(t, display, "xdotool", "key", "--window", dialog, "alt+y")
	waitView(t, a, probe, "the server's answer in the conversation", func(v view) bool {
		return v.has("assistant", "The garden server answered: recorded: "+desktopMCPText) && !v.Streaming
	})
	screenshot(t, display, "desktop-mcp-answered.png")
	if b, err := os.ReadFile(record); err != nil || string(b) != desktopMCPText+"\n" {
		t.Fatalf("the record file: %q, %v; want the text once", b, err)
	}
}
