package httpapi_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"quire/doctor"
	"quire/host"
	"quire/host/httpapi"
	"quire/kernel/protocol"
	"quire/test/testkit"
)

// recordingMCP is the MCP servers' back end as the routes see it: each
// call recorded with what it was given, answered from it; a server named
// "gone" is not configured. The client itself is tested in mcpclient
// against real servers.
type recordingMCP struct{ recorder }

var errNoServer = fmt.Errorf("no MCP server is named so: %w", protocol.ErrNotFound)

func (m *recordingMCP) server(name, state string) (protocol.MCPServer, error) {
	if name == "gone" {
		return protocol.MCPServer{}, errNoServer
	}
	return protocol.MCPServer{Config: protocol.MCPServerConfig{Name: name, Command: "srv", Enabled: true}, State: state, Tools: []protocol.MCPTool{}}, nil
}

func (m *recordingMCP) Servers(context.Context) (protocol.MCPList, error) {
	m.called("Servers")
	s, _ := m.server("notes", protocol.MCPRunning)
	return protocol.MCPList{Servers: []protocol.MCPServer{s}, Tokens: 120}, nil
}
func (m *recordingMCP) Put(_ context.Context, c protocol.MCPServerConfig) (protocol.MCPServer, error) {
	m.called("Put ", c.Name, " ", c.Command, " ", c.Args, " ", c.URL)
	if c.Command == "" && c.URL == "" {
		return protocol.MCPServer{}, fmt.Errorf("a server needs a command or a url: %w", protocol.ErrBadPayload)
	}
	return m.server(c.Name, protocol.MCPStarting)
}
func (m *recordingMCP) Remove(_ context.Context, name string) error {
	m.called("Remove ", name)
	_, err := m.server(name, "")
	return err
}
func (m *recordingMCP) Import(_ context.Context, text string) (protocol.MCPImport, error) {
	m.called("Import ", len(text))
	return protocol.MCPImport{Added: []string{"notes"}, Refused: []protocol.MCPImportIssue{{Name: "bad name", Reason: "a name is letters, digits, - and _"}}}, nil
}
func (m *recordingMCP) Start(_ context.Context, name string) (protocol.MCPServer, error) {
	m.called("Start ", name)
	return m.server(name, protocol.MCPStarting)
}
func (m *recordingMCP) Stop(_ context.Context, name string) (protocol.MCPServer, error) {
	m.called("Stop ", name)
	return m.server(name, protocol.MCPStopped)
}
func (m *recordingMCP) Restart(_ context.Context, name string) (protocol.MCPServer, error) {
	m.called("Restart ", name)
	return m.server(name, protocol.MCPStarting)
}
func (m *recordingMCP) SetTool(_ context.Context, c protocol.MCPToolChoice) (protocol.MCPServer, error) {
	m.called("SetTool ", c.Server, " ", c.Tool, " ", c.Enabled, " ", c.Effects)
	return m.server(c.Server, protocol.MCPRunning)
}
func (m *recordingMCP) Watch(context.Context) <-chan protocol.MCPServer {
	m.called("Watch")
	ch := make(chan protocol.MCPServer, 2)
	a, _ := m.server("notes", protocol.MCPStarting)
	b, _ := m.server("notes", protocol.MCPRunning)
	ch <- a
	ch <- b
	close(ch)
	return ch
}

var _ host.MCP = (*recordingMCP)(nil)

// A terminal (`quire mcp`) reaches the owner's MCP servers over the local
// channel, through the same routes the page uses: every method arrives
// as it was called and answers what the owner answered; a refusal keeps
// its sentinel, and the stream delivers each change in order.
func TestLocalMCPReachesTheOwner(t *testing.T) {
	owner := &recordingMCP{}
	local := ownerSocket(t, httpapi.Backend{MCP: owner})
	m := local.MCP()
	running, _ := owner.server("notes", protocol.MCPRunning)
	starting, _ := owner.server("a b", protocol.MCPStarting)
	stopped, _ := owner.server("notes", protocol.MCPStopped)
	cases := []struct {
		name, call string
		do         func() (any, error)
		want       any
	}{
		{"the list", "Servers", func() (any, error) { return m.Servers(t.Context()) }, protocol.MCPList{Servers: []protocol.MCPServer{running}, Tokens: 120}},
		{"an add", "Put a b node [srv.js --x] ", func() (any, error) {
			return m.Put(t.Context(), protocol.MCPServerConfig{Name: "a b", Command: "node", Args: []string{"srv.js", "--x"}, Enabled: true})
		}, starting},
		{"an import", "Import 18", func() (any, error) { return m.Import(t.Context(), `{"mcpServers":{}}`+"\n") },
			protocol.MCPImport{Added: []string{"notes"}, Refused: []protocol.MCPImportIssue{{Name: "bad name", Reason: "a name is letters, digits, - and _"}}}},
		{"a start", "Start a b", func() (any, error) { return m.Start(t.Context(), "a b") }, starting},
		{"a stop", "Stop notes", func() (any, error) { return m.Stop(t.Context(), "notes") }, stopped},
		{"a restart", "Restart a b", func() (any, error) { return m.Restart(t.Context(), "a b") }, starting},
		{"a tool's choice", "SetTool notes write true read", func() (any, error) {
			return m.SetTool(t.Context(), protocol.MCPToolChoice{Server: "notes", Tool: "write", Enabled: true, Effects: "read"})
		}, running},
		{"a removal", "Remove a b", func() (any, error) { return nil, m.Remove(t.Context(), "a b") }, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			owner.taken()
			got, err := c.do()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
			if calls := owner.taken(); len(calls) != 1 || calls[0] != c.call {
				t.Errorf("the owner was called %q, want %q", calls, c.call)
			}
		})
	}
	for _, err := range []error{m.Remove(t.Context(), "gone"), func() error { _, err := m.Stop(t.Context(), "gone"); return err }()} {
		if !errors.Is(err, protocol.ErrNotFound) || !strings.Contains(err.Error(), "no MCP server is named so") {
			t.Errorf("an unknown server: %v, want ErrNotFound with the owner's sentence", err)
		}
	}
	var states []string
	for s := range m.Watch(t.Context()) {
		states = append(states, s.State)
	}
	if want := []string{protocol.MCPStarting, protocol.MCPRunning}; !reflect.DeepEqual(states, want) {
		t.Errorf("the stream delivered %v, want %v", states, want)
	}
}

// The routes refuse what they cannot take with a status and a sentence,
// before the back end sees it: a body that is not the shape (or has a key
// it does not), a pasted text over its bound, an action that is not one.
func TestMCPRoutesRefuse(t *testing.T) {
	owner := &recordingMCP{}
	k := testkit.New(t)
	srv := start(t, httpapi.New(httpapi.Backend{Kernel: k.Runtime, MCP: owner,
		Doctor: func(context.Context) doctor.Report { return doctor.Report{OK: true} }},
		fstest.MapFS{"index.html": {Data: []byte("Quire")}}, slog.New(slog.DiscardHandler)))
	for _, tc := range []struct {
		name, op, body string
		status         int
		says           string
		calls          []string
	}{
		{"not JSON", "MCP.Put", `[{not json]`, http.StatusBadRequest, "not the JSON expected", nil},
		{"an unknown key", "MCP.Put", `[{"name":"x","command":"y","cmd":"z"}]`, http.StatusBadRequest, "unknown field", nil},
		{"the back end's refusal", "MCP.Put", `[{"name":"x"}]`, http.StatusBadRequest, "needs a command or a url", []string{"Put x  [] "}},
		{"a tool choice with a stray key", "MCP.SetTool", `[{"server":"notes","tool":"w","enabled":true,"loosen":true}]`, http.StatusBadRequest, "unknown field", nil},
		{"an action that is not one", "MCP.Explode", `["notes"]`, http.StatusNotFound, "no such operation", nil},
		{"an unknown server", "MCP.Restart", `["gone"]`, http.StatusNotFound, "no MCP server is named so", []string{"Restart gone"}},
		{"an unknown removal", "MCP.Remove", `["gone"]`, http.StatusNotFound, "no MCP server is named so", []string{"Remove gone"}},
		{"the list", "MCP.Servers", ``, http.StatusOK, `"state":"running"`, []string{"Servers"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := srv.do(t, "POST", httpapi.OpPath+tc.op, tc.body)
			if status != tc.status || !strings.Contains(body, tc.says) {
				t.Errorf("%s %s: %d %s; want %d saying %q", tc.op, tc.body, status, body, tc.status, tc.says)
			}
			if calls := owner.taken(); !reflect.DeepEqual(calls, tc.calls) {
				t.Errorf("the back end was asked %q, want %q", calls, tc.calls)
			}
		})
	}
	status, body := srv.do(t, "GET", "/api/mcp/stream", "")
	if status != http.StatusOK || strings.Count(body, "event: mcp") != 2 || !strings.Contains(body, `"state":"running"`) {
		t.Errorf("GET /api/mcp/stream: %d %q", status, body)
	}
}

func TestMCPRoutesWithoutServers(t *testing.T) {
	k := testkit.New(t)
	h := httpapi.New(httpapi.Backend{Kernel: k.Runtime,
		Doctor: func(context.Context) doctor.Report { return doctor.Report{OK: true} }},
		fstest.MapFS{"index.html": {Data: []byte("Quire")}}, slog.New(slog.DiscardHandler))
	if status, body := start(t, h).do(t, "GET", "/api/mcp/stream", ""); status != http.StatusServiceUnavailable || !strings.Contains(body, "update Quire") {
		t.Errorf("GET /api/mcp/stream without MCP servers: %d %s", status, body)
	}
}
