package window

import (
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"quire/config"
	"quire/kernel/protocol"
	"quire/mcpclient"
	"quire/test/mcptest"
)

// mcpApp is a window that has shaken hands, is up, and runs mcptest's
// server (in memory) as "garden" through the real MCP client.
func mcpApp(t *testing.T) (*Host, *window, *mcpclient.Client) {
	t.Helper()
	dir := t.TempDir()
	m := mcpclient.New(dir, config.NewStore(config.Config{DataDir: dir}), slog.New(slog.DiscardHandler),
		mcpclient.WithServer(protocol.MCPServerConfig{Name: "garden", Command: "mcptest", Enabled: true},
			mcptest.InMemory(mcptest.Options{RecordFile: filepath.Join(dir, "record")})))
	t.Cleanup(m.Close)
	mcptest.WaitState(t, m, "garden", protocol.MCPRunning)
	a, _, w := newTestApp(t, "")
	a.mcp = m
	a.mcpConfig = MCPConfig{Check: mcpclient.Check, Parse: func(text string) ([]protocol.MCPServerConfig, []protocol.MCPImportIssue, error) {
		return mcpclient.Parse([]byte(text))
	}}
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

// Adding a stdio server or importing an mcp.json in the window runs
// commands on this computer, so the page's word is not enough: a native
// dialog shows exactly what will run (the command and every argument, the
// names of its env or headers, never their values) and only its Yes saves
// anything. A No, a config too long to show whole, or one refused by its
// check changes nothing; an address alone is connected to without asking.
func TestAddingMCPServersIsAskedInANativeDialogShowingWhatRuns(t *testing.T) {
	stdio := protocol.MCPServerConfig{Name: "tools", Command: "/opt/my tools/serve", Args: []string{"--root", "~/notes", ""},
		Env: map[string]string{"API_TOKEN": "sk-secret", "HOME_DIR": "/home/me"}}
	paste := `{"mcpServers": {"files": {"command": "npx", "args": ["-y", "@scope/server-files"], "env": {"KEY": "hush"}, "disabled": true},
		"web": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer hush"}, "disabled": true}, "bad": {"type": "sse", "url": "http://x/sse"}}}`
	long := protocol.MCPServerConfig{Name: "long", Command: "serve", Args: slices.Repeat([]string{strings.Repeat("a", 60)}, 20)}
	put := func(c protocol.MCPServerConfig) func(*Host) error {
		return func(a *Host) error { _, err := a.PutMCPServer(c); return err }
	}
	imp := func(text string) func(*Host) error {
		return func(a *Host) error { _, err := a.ImportMCP(text); return err }
	}
	tests := []struct {
		name    string
		act     func(*Host) error
		yes     bool
		dialog  []string // "" dialog when nil
		wantErr string
		added   []string
	}{
		{"a stdio server, No", put(stdio), false,
			[]string{"Add this MCP server?", "run these commands on this computer", `tools: runs "/opt/my tools/serve" --root ~/notes ""`,
				"environment: API_TOKEN, HOME_DIR (values not shown)", "saved turned off", "No changes nothing"},
			"you said No", nil},
		{"a stdio server, Yes", put(stdio), true, []string{`runs "/opt/my tools/serve"`}, "", []string{"tools"}},
		{"an address", put(protocol.MCPServerConfig{Name: "site", URL: "http://127.0.0.1:9/mcp"}), false, nil, "", []string{"site"}},
		{"a refused config", put(protocol.MCPServerConfig{Name: "two", Command: "x", URL: "http://127.0.0.1:9/mcp"}), true, nil, "keep one", nil},
		{"too long to show", put(long), true, nil, "too long to show whole", nil},
		{"a paste, No", imp(paste), false,
			[]string{"Add these 2 MCP servers?", "files: runs npx -y @scope/server-files", "environment: KEY (values not shown)",
				"web: connects to http://127.0.0.1:9/mcp", "headers: Authorization (values not shown)"},
			"you said No", nil},
		{"a paste, Yes", imp(paste), true, []string{"Add these 2 MCP servers?"}, "", []string{"files", "web"}},
		{"not a config", imp(`{"servers": {}}`), true, nil, `no "mcpServers"`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, _, _ := mcpApp(t)
			var asked []string
			a.dialog = func(_ context.Context, title, message string) (bool, error) {
				asked = append(asked, title+"\n"+message)
				return tc.yes, nil
			}
			err := tc.act(a)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
			if len(asked) != min(len(tc.dialog), 1) {
				t.Fatalf("%d dialogs, want %d: %q", len(asked), min(len(tc.dialog), 1), asked)
			}
			for _, want := range tc.dialog {
				if !strings.Contains(asked[0], want) {
					t.Errorf("the dialog lacks %q:\n%s", want, asked[0])
				}
			}
			if len(asked) > 0 && (strings.Contains(asked[0], "secret") || strings.Contains(asked[0], "hush") || strings.Contains(asked[0], "/home/me")) {
				t.Errorf("the dialog shows a value:\n%s", asked[0])
			}
			list, err := opAs[protocol.MCPList](a, "MCP.Servers")
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, s := range list.Servers {
				if s.Config.Name != "garden" {
					names = append(names, s.Config.Name)
				}
			}
			if !slices.Equal(names, tc.added) {
				t.Errorf("servers added %v, want %v", names, tc.added)
			}
		})
	}
}

// The window's MCP methods reach the client, a bad action is refused in
// words, and each server's change reaches the page as quire:mcp.
func TestMCPReachesTheWindow(t *testing.T) {
	a, w, _ := mcpApp(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	a.startMCP(ctx)
	list, err := opAs[protocol.MCPList](a, "MCP.Servers")
	if err != nil || len(list.Servers) != 1 || list.Servers[0].State != protocol.MCPRunning || len(list.Servers[0].Tools) != 5 {
		t.Fatalf("MCPServers: %+v, %v", list, err)
	}
	if _, err := opAs[protocol.MCPServer](a, "MCP.Explode", "garden"); err == nil || !strings.Contains(err.Error(), "no such operation") {
		t.Errorf("a bad action: %v", err)
	}
	if s, err := opAs[protocol.MCPServer](a, "MCP.Stop", "garden"); err != nil || s.State != protocol.MCPStopped {
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
	if _, err := opAs[protocol.MCPList](b, "MCP.Servers"); err == nil || !strings.Contains(err.Error(), "Handshake") {
		t.Errorf("before the handshake: %v", err)
	}
	b.Handshake(protocol.Version)
	if _, err := opAs[protocol.MCPList](b, "MCP.Servers"); err == nil || !strings.Contains(err.Error(), "not available here") {
		t.Errorf("without MCP servers: %v", err)
	}
}

// A loosening is asked whatever its spelling: "read" is not the only set
// that asks less than the server declared ("none", "READ", " read ",
// "net", "read+read" do too), and a tool already loosened to "read" that
// is loosened further ("none") is asked again. A No changes nothing.
func TestLooseningAnMCPToolIsAskedInEverySpelling(t *testing.T) {
	a, _, _ := mcpApp(t)
	asked := 0
	a.dialog = func(context.Context, string, string) (bool, error) { asked++; return false, nil }
	for _, effects := range []string{"none", "NONE", "READ", " read ", "net", "read+read", "read+net"} {
		before := asked
		s, err := a.SetMCPTool(protocol.MCPToolChoice{Server: "garden", Tool: mcptest.Record, Enabled: true, Effects: effects})
		if err != nil {
			t.Fatalf("%q: %v", effects, err)
		}
		if rec := gardenTool(t, s, mcptest.Record); asked != before+1 || rec.Override != "" || rec.Effects != "write+net" {
			t.Errorf("%q: %d dialogs, the tool is now %+v; want one dialog and a No changing nothing", effects, asked-before, rec)
		}
	}
	a.dialog = func(context.Context, string, string) (bool, error) { asked++; return true, nil }
	if _, err := a.SetMCPTool(protocol.MCPToolChoice{Server: "garden", Tool: mcptest.Record, Enabled: true, Effects: "read"}); err != nil {
		t.Fatal(err)
	}
	before := asked
	a.dialog = func(context.Context, string, string) (bool, error) { asked++; return false, nil }
	s, err := a.SetMCPTool(protocol.MCPToolChoice{Server: "garden", Tool: mcptest.Record, Enabled: true, Effects: "none"})
	if err != nil {
		t.Fatal(err)
	}
	if rec := gardenTool(t, s, mcptest.Record); asked != before+1 || rec.Effects != "read" {
		t.Errorf("loosening a loosened tool further: %d dialogs, the tool is now %+v", asked-before, rec)
	}
	// A read-only tool made "none" no longer marks its result as outside
	// text; made "write+net" it is asked more, which needs no dialog.
	for _, c := range []struct {
		effects string
		dialogs int
	}{{"none", 1}, {"write+net", 0}} {
		before := asked
		if _, err := a.SetMCPTool(protocol.MCPToolChoice{Server: "garden", Tool: mcptest.Echo, Enabled: true, Effects: c.effects}); err != nil {
			t.Fatal(err)
		}
		if asked-before != c.dialogs {
			t.Errorf("echo (read-only) made %q: %d dialogs, want %d", c.effects, asked-before, c.dialogs)
		}
	}
}
