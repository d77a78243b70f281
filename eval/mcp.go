package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"quire/kernel/protocol"
	"quire/mcpclient"
	"quire/test/mcptest"
)

// MCP servers in scenarios (issue 19): a scenario plugs in test servers
// (setup.mcp), each attached to Quire's own MCP client for this run only
// and reached over the SDK's in-memory transport, so its tools are offered,
// asked about and logged exactly as a server the user configured.

// MCPServer is a test MCP server a scenario plugs in.
type MCPServer struct {
	// Name is the server's name in Quire: its tools are offered as
	// name__tool (files__record).
	Name string `yaml:"name"`
	// Server is which test server: "mcptest" (test/mcptest: echo and
	// fetch_page, read-only; record, destructive, appending to a file the
	// checks read; hang, until its call is cut; crash, which ends the
	// server mid-call).
	Server string `yaml:"server"`
	// Transport is "memory" (default: in this process, over a pipe) or
	// "stdio": a child process started from the data folder's mcp.json,
	// as a server the user pasted (its crash is a real exit). Stdio needs
	// a binary that serves the test server (Options.MCPStdio: go test's
	// TestEvalSet); without one the scenario is skipped.
	Transport string `yaml:"transport"`
}

// MCPCheck is what must hold of one server when the scenario ends.
type MCPCheck struct {
	// State is running, stopped, failed or starting.
	State string `yaml:"state"`
	// Reason is a text its reason sentence must contain.
	Reason string `yaml:"reason"`
	// Recorded are the texts its record tool wrote, in order: [] means it
	// wrote nothing.
	Recorded *[]string `yaml:"recorded"`
	// Stderr is a text the tail of its stderr must contain (stdio).
	Stderr string `yaml:"stderr"`
}

// MCPAttach is a server the Builder attaches to the client (through
// mcpclient.WithServer).
type MCPAttach struct {
	Config  protocol.MCPServerConfig
	Connect mcpclient.Connect
}

// MCPServers is the client as a scenario reads it: the servers' states
// and their changes (host.MCP's methods it needs).
type MCPServers interface {
	Servers(ctx context.Context) (protocol.MCPList, error)
	Watch(ctx context.Context) <-chan protocol.MCPServer
}

var (
	knownMCPServers    = []string{"mcptest"}
	knownMCPTransports = []string{"", "memory", "stdio"}
	knownMCPStates     = []string{protocol.MCPStarting, protocol.MCPRunning, protocol.MCPStopped, protocol.MCPFailed}
	// mcpName is what the client takes as a server name.
	mcpName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)
)

// validateMCP checks setup.mcp, expect.mcp and the user's mcp waits.
func (sc *Scenario) validateMCP() []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	names := map[string]bool{}
	for i, s := range sc.Setup.MCP {
		if !mcpName.MatchString(s.Name) {
			bad("setup.mcp[%d].name %q: a server needs a name of letters, digits, _ or - (at most 32)", i, s.Name)
		}
		if names[s.Name] {
			bad("setup.mcp[%d].name %q: two servers have that name", i, s.Name)
		}
		names[s.Name] = true
		if !slices.Contains(knownMCPServers, s.Server) {
			bad("setup.mcp[%d].server %q: want one of %s", i, s.Server, strings.Join(knownMCPServers, ", "))
		}
		if !slices.Contains(knownMCPTransports, s.Transport) {
			bad("setup.mcp[%d].transport %q: want memory or stdio", i, s.Transport)
		}
	}
	if t := sc.Setup.MCPCallSeconds; t < 0 || t > protocol.MCPMaxCallSeconds {
		bad("setup.mcp_call_seconds %d: want 1 to %d (0: the default, %d)", t, protocol.MCPMaxCallSeconds, protocol.MCPCallSeconds)
	}
	for name, c := range sc.Expect.MCP {
		if !names[name] {
			bad("expect.mcp: %q is not a server of setup.mcp", name)
		}
		if c.State != "" && !slices.Contains(knownMCPStates, c.State) {
			bad("expect.mcp.%s.state %q: want one of %s", name, c.State, strings.Join(knownMCPStates, ", "))
		}
		if c.State == "" && c.Reason == "" && c.Recorded == nil && c.Stderr == "" {
			bad("expect.mcp.%s: check its state, reason, stderr or recorded texts", name)
		}
	}
	for i, a := range sc.User {
		if server, state, ok := mcpWait(a.When); ok && (!names[server] || !slices.Contains(knownMCPStates, state)) {
			bad("user[%d].when %q: want mcp:SERVER:STATE with a server of setup.mcp and a state (%s)", i, a.When, strings.Join(knownMCPStates, ", "))
		}
	}
	return errs
}

// mcpWait reads a user's wait for a server's state, "mcp:files:failed".
func mcpWait(when string) (server, state string, ok bool) {
	rest, ok := strings.CutPrefix(when, "mcp:")
	if !ok {
		return "", "", false
	}
	server, state, _ = strings.Cut(rest, ":")
	return server, state, true
}

// mcpRecord is the file a server's record tool appends to.
func mcpRecord(root, server string) string { return filepath.Join(root, "mcp", server+".txt") }

// MCPStdio is the config of a stdio server named name that serves the
// test server, recording into record: a binary that can (a test binary
// whose TestMain calls mcptest.Main).
type MCPStdio func(name, record string) protocol.MCPServerConfig

// needsStdio: a server of the scenario runs over stdio.
func (sc *Scenario) needsStdio() bool {
	return slices.ContainsFunc(sc.Setup.MCP, func(s MCPServer) bool { return s.Transport == "stdio" })
}

// attachMCP makes the scenario's servers, each recording under root: the
// in-memory ones attached, the stdio ones written to the data folder's
// mcp.json (dataDir), where Quire reads the servers the user configured.
func attachMCP(root, dataDir string, servers []MCPServer, stdio MCPStdio) ([]MCPAttach, error) {
	if len(servers) == 0 {
		return nil, nil
	}
	if err := os.MkdirAll(filepath.Join(root, "mcp"), 0o755); err != nil {
		return nil, err
	}
	var out []MCPAttach
	file := map[string]any{}
	for _, s := range servers {
		if s.Transport == "stdio" {
			c := stdio(s.Name, mcpRecord(root, s.Name))
			file[s.Name] = map[string]any{"command": c.Command, "args": c.Args, "env": c.Env}
			continue
		}
		out = append(out, MCPAttach{Config: protocol.MCPServerConfig{Name: s.Name, Enabled: true},
			Connect: mcptest.InMemory(mcptest.Options{RecordFile: mcpRecord(root, s.Name)})})
	}
	if len(file) > 0 {
		b, err := json.Marshal(map[string]any{"mcpServers": file})
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(dataDir, 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dataDir, mcpclient.File), b, 0o600); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// waitMCP waits until the server is in state (mcptest.Wait, on the
// client's own change feed); it gives up when ctx ends.
func waitMCP(ctx context.Context, m MCPServers, name, state string) error {
	if m == nil {
		return fmt.Errorf("the MCP server %s: the kernel has no MCP client", name)
	}
	_, err := mcptest.Wait(ctx, m, name, state)
	return err
}

// mcpReady waits until every server of the scenario has started, so the
// first message's run is offered their tools; one that fails to start is
// the scenario's failure, with its reason.
func mcpReady(ctx context.Context, m MCPServers, servers []MCPServer) error {
	var errs []error
	for _, s := range servers {
		errs = append(errs, waitMCP(ctx, m, s.Name, protocol.MCPRunning))
	}
	return errors.Join(errs...)
}

// mcpStates are the servers' states as the scenario ended.
func mcpStates(ctx context.Context, m MCPServers) (map[string]protocol.MCPServer, error) {
	if m == nil {
		return nil, nil
	}
	list, err := m.Servers(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]protocol.MCPServer{}
	for _, s := range list.Servers {
		out[s.Config.Name] = s
	}
	return out, nil
}

// mcpForReal: a scenario that waits for a server's state means nothing
// against a real model, which may never make the call that brings it
// about.
func (sc *Scenario) mcpForReal() bool {
	return !slices.ContainsFunc(sc.User, func(a Action) bool { _, _, ok := mcpWait(a.When); return ok })
}

// checkMCP holds the servers to expect.mcp. Against a real model only what
// the record tool wrote is an outcome (nothing recorded holds for any
// model); the states follow from the script's calls.
func (p *played) checkMCP(ex map[string]MCPCheck, real bool) []string {
	var fails []string
	for _, name := range slices.Sorted(maps.Keys(ex)) {
		c := ex[name]
		st, ok := p.mcp[name]
		if !ok {
			fails = append(fails, fmt.Sprintf("the MCP server %s is not among Quire's servers at the end", name))
			continue
		}
		if !real && c.State != "" && st.State != c.State {
			fails = append(fails, fmt.Sprintf("the MCP server %s ended %s (%q), expected %s", name, st.State, st.Reason, c.State))
		}
		if !real && c.Reason != "" && !strings.Contains(st.Reason, c.Reason) {
			fails = append(fails, fmt.Sprintf("the MCP server %s's reason is %q, expected it to contain %q", name, st.Reason, c.Reason))
		}
		if !real && c.Stderr != "" && !strings.Contains(st.Stderr, c.Stderr) {
			fails = append(fails, fmt.Sprintf("the MCP server %s's stderr is %q, expected it to contain %q", name, short(st.Stderr), c.Stderr))
		}
		if c.Recorded != nil {
			got := []string{}
			b, err := os.ReadFile(mcpRecord(p.root, name))
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				fails = append(fails, fmt.Sprintf("reading what the MCP server %s recorded: %v", name, err))
			}
			for l := range strings.SplitSeq(strings.TrimSuffix(string(b), "\n"), "\n") {
				if l != "" {
					got = append(got, l)
				}
			}
			if !slices.Equal(got, *c.Recorded) {
				fails = append(fails, fmt.Sprintf("the MCP server %s recorded %q, expected %q", name, got, *c.Recorded))
			}
		}
	}
	return fails
}
