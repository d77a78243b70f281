package main

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"quire/config"
	"quire/internal/mcptest"
	"quire/kernel/protocol"
	"quire/mcpclient"
)

// mcpApp is a window that has shaken hands, is up, and runs mcptest's
// server (in memory) as "garden" through the real MCP manager.
func mcpApp(t *testing.T) (*App, *window, *mcpclient.Manager) {
	t.Helper()
	dir := t.TempDir()
	m := mcpclient.New(dir, config.NewStore(config.Config{DataDir: dir}), slog.New(slog.DiscardHandler),
		mcpclient.WithServer(protocol.MCPServerConfig{Name: "garden", Command: "mcptest", Enabled: true},
			mcptest.InMemory(mcptest.Options{RecordFile: filepath.Join(dir, "record")})))
	t.Cleanup(m.Close)
	mcptest.WaitState(t, m, "garden", protocol.MCPRunning)
	a, _, w := newTestApp(t, "")
	a.mcp = m
	if _, err := a.Handshake(protocol.Version); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	a.window.Store(&ctx)
	return a, w, m
}

func gardenTool(t *testing.T, s protocol.MCPServer, name string) protocol.MCPTool {
	t.Helper()
	for _, x := range s.Tools {
		if x.Tool == name {
			return x
		}
	}
	t.Fatalf("garden has no tool %s: %+v", name, s.Tools)
	return protocol.MCPTool{}
}

// Letting a tool its server did not declare read-only run without a
// question is asked in a native dialog that says what it means (the page
// cannot click it); a No changes nothing. Tightening, and treating a
// read-only tool as what it is, remove no question and ask nothing.
func TestLooseningAnMCPToolIsAskedInANativeDialog(t *testing.T) {
	a, _, _ := mcpApp(t)
	var asked []string
	yes := false
	a.dialog = func(_ context.Context, title, message string) (bool, error) {
		asked = append(asked, title+"\n"+message)
		return yes, nil
	}
	loosen := protocol.MCPToolChoice{Server: "garden", Tool: mcptest.Record, Enabled: true, Effects: "read"}
	s, err := a.SetMCPTool(loosen)
	if err != nil {
		t.Fatal(err)
	}
	if rec := gardenTool(t, s, mcptest.Record); rec.Loosened || rec.Effects != "write+net" || len(asked) != 1 {
		t.Fatalf("a No: %+v, %d dialogs", rec, len(asked))
	}
	for _, want := range []string{"Let garden__record run without asking?", "can destroy things", "Quire will not ask you first", "No keeps asking"} {
		if !strings.Contains(asked[0], want) {
			t.Errorf("the dialog lacks %q:\n%s", want, asked[0])
		}
	}
	yes = true
	if s, err = a.SetMCPTool(loosen); err != nil || !gardenTool(t, s, mcptest.Record).Loosened || len(asked) != 2 {
		t.Fatalf("a Yes: %+v, %v, %d dialogs", gardenTool(t, s, mcptest.Record), err, len(asked))
	}
	for _, c := range []protocol.MCPToolChoice{
		{Server: "garden", Tool: mcptest.Echo, Enabled: true, Effects: "write+net"},
		{Server: "garden", Tool: mcptest.Echo, Enabled: true, Effects: "read"},
		{Server: "garden", Tool: mcptest.Record, Enabled: false, Effects: "read"}, // loosened already
	} {
		if _, err := a.SetMCPTool(c); err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
	}
	if len(asked) != 2 {
		t.Errorf("%d dialogs for choices that remove no question, want none: %q", len(asked)-2, asked[2:])
	}
	if _, err := a.SetMCPTool(protocol.MCPToolChoice{Server: "garden", Tool: "nope", Effects: "read"}); err == nil || !strings.Contains(err.Error(), "has no tool") {
		t.Errorf("an unknown tool: %v", err)
	}
}

// The window's MCP methods reach the manager, a bad action is refused in
// words, and each server's change reaches the page as quire:mcp.
func TestMCPReachesTheWindow(t *testing.T) {
	a, w, _ := mcpApp(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	a.startMCP(ctx)
	list, err := a.MCPServers()
	if err != nil || len(list.Servers) != 1 || list.Servers[0].State != protocol.MCPRunning || len(list.Servers[0].Tools) != 5 {
		t.Fatalf("MCPServers: %+v, %v", list, err)
	}
	if _, err := a.ControlMCPServer("garden", "explode"); err == nil || !strings.Contains(err.Error(), "is not start, stop or restart") {
		t.Errorf("a bad action: %v", err)
	}
	if s, err := a.ControlMCPServer("garden", "stop"); err != nil || s.State != protocol.MCPStopped {
		t.Fatalf("stop: %+v, %v", s, err)
	}
	w.wait(t, "the stop as quire:mcp", func(es []emitted) bool {
		for _, e := range es {
			if s, ok := e.data[0].(protocol.MCPServer); ok && e.name == eventMCP && s.State == protocol.MCPStopped {
				return true
			}
		}
		return false
	})
	b, _, _ := newTestApp(t, "")
	if _, err := b.MCPServers(); err == nil || !strings.Contains(err.Error(), "Handshake") {
		t.Errorf("before the handshake: %v", err)
	}
	b.Handshake(protocol.Version)
	if _, err := b.MCPServers(); err == nil || !strings.Contains(err.Error(), "not available in this window") {
		t.Errorf("without MCP servers: %v", err)
	}
}
