package mcpclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"quire/config"
	"quire/kernel/protocol"
	"quire/kernel/tool"
	"quire/mcpclient"
	"quire/test/crashtest"
	"quire/test/mcptest"
)

func TestMain(m *testing.M) {
	mcptest.ServeIfChild()
	crashtest.Main(m, quireEnv, quireWithServers)
}

// open is a client over a fresh data folder, with the settings owner
// over the same folder keeping the tool choices.
func open(t *testing.T, opts ...mcpclient.Option) (*mcpclient.Client, *config.Store, string) {
	t.Helper()
	dir := t.TempDir()
	st := config.NewStore(config.Config{DataDir: dir})
	m := mcpclient.New(dir, st, slog.New(slog.DiscardHandler), opts...)
	t.Cleanup(m.Close)
	return m, st, dir
}

func toolNamed(t *testing.T, tools []tool.Tool, name string) tool.Tool {
	t.Helper()
	for _, x := range tools {
		if x.Spec().Name == name {
			return x
		}
	}
	t.Fatalf("no tool %s among %d offered", name, len(tools))
	return nil
}

func call(t *testing.T, x tool.Tool, args string) tool.Result {
	t.Helper()
	res, err := x.Run(t.Context(), tool.Call{ID: "c1", Name: x.Spec().Name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s: %v", x.Spec().Name, err)
	}
	return res
}

func statusTool(t *testing.T, s protocol.MCPServer, name string) protocol.MCPTool {
	t.Helper()
	for _, x := range s.Tools {
		if x.Tool == name {
			return x
		}
	}
	t.Fatalf("the server %s lists no tool %s", s.Config.Name, name)
	return protocol.MCPTool{}
}

// The test server over stdio: started in a process group of its own, its
// tools listed with effects from their annotations, called for real (the
// write reaches the file), its stderr kept; a stop kills the group and
// withdraws its tools.
func TestStdioServerRunsItsToolsAndStopsWhole(t *testing.T) {
	m, _, dir := open(t)
	record := filepath.Join(dir, "record.txt")
	if _, err := m.Put(t.Context(), mcptest.Stdio(t, "garden", record)); err != nil {
		t.Fatal(err)
	}
	s := mcptest.WaitState(t, m, "garden", protocol.MCPRunning)
	if s.PID <= 0 || s.ProtocolVersion == "" || !strings.Contains(s.Server, "mcptest") {
		t.Errorf("running server: pid %d, protocol %q, server %q", s.PID, s.ProtocolVersion, s.Server)
	}
	if !strings.Contains(s.Stderr, mcptest.StderrLine) {
		t.Errorf("stderr tail %q lacks %q", s.Stderr, mcptest.StderrLine)
	}
	for _, c := range []struct{ tool, effects string }{{mcptest.Echo, "read"}, {mcptest.Record, "write+net"}, {mcptest.Fetch, "read"}} {
		if got := statusTool(t, s, c.tool); got.Effects != c.effects || got.Name != "garden__"+c.tool || !got.Enabled || got.Tokens <= 0 {
			t.Errorf("%s: %+v, want effects %s", c.tool, got, c.effects)
		}
	}
	if rec := statusTool(t, s, mcptest.Record); !rec.Destructive || rec.ReadOnly {
		t.Errorf("record's annotations: %+v", rec)
	}
	pgid, err := syscall.Getpgid(s.PID)
	if err != nil || pgid == syscall.Getpgrp() {
		t.Fatalf("the server is not in a process group of its own: group %d, Quire's %d (%v)", pgid, syscall.Getpgrp(), err)
	}
	tools := m.Tools()
	if res := call(t, toolNamed(t, tools, "garden__echo"), `{"text":"hello"}`); res.Status != tool.Success || res.Content != "echo: hello" {
		t.Errorf("echo: %+v", res)
	}
	if res := call(t, toolNamed(t, tools, "garden__record"), `{"text":"plant tulips"}`); res.Status != tool.Success {
		t.Errorf("record: %+v", res)
	}
	if b, _ := os.ReadFile(record); string(b) != "plant tulips\n" {
		t.Errorf("the record file holds %q", b)
	}
	if _, err := m.Stop(t.Context(), "garden"); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(-pgid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the server's process group %d is still there after Stop (kill 0: %v)", pgid, err)
	}
	if n := len(m.Tools()); n != 0 {
		t.Errorf("a stopped server still offers %d tools", n)
	}
	// A run that froze the tool before the stop gets a failure in words.
	if res := call(t, toolNamed(t, tools, "garden__echo"), `{"text":"x"}`); res.Status != tool.Failure || !strings.Contains(res.Content, "not running") {
		t.Errorf("a call after the stop: %+v", res)
	}
	if _, err := m.Restart(t.Context(), "garden"); err != nil {
		t.Fatal(err)
	}
	mcptest.WaitState(t, m, "garden", protocol.MCPRunning)
	if res := call(t, toolNamed(t, m.Tools(), "garden__echo"), `{"text":"again"}`); res.Content != "echo: again" {
		t.Errorf("echo after restart: %+v", res)
	}
}

// A stdio server that dies mid-call: the call fails in words, the server
// is failed with a sentence and its stderr, and its tools are gone from
// the next run's offer.
func TestCrashMidCallFailsTheServer(t *testing.T) {
	m, _, dir := open(t)
	if _, err := m.Put(t.Context(), mcptest.Stdio(t, "brittle", filepath.Join(dir, "r"))); err != nil {
		t.Fatal(err)
	}
	mcptest.WaitState(t, m, "brittle", protocol.MCPRunning)
	res := call(t, toolNamed(t, m.Tools(), "brittle__crash"), `{}`)
	if res.Status != tool.Failure || !strings.Contains(res.Content, "brittle") {
		t.Errorf("the crashed call: %+v", res)
	}
	s := mcptest.WaitState(t, m, "brittle", protocol.MCPFailed)
	if !strings.Contains(s.Reason, "stopped on its own") || !strings.Contains(s.Reason, "Restart") {
		t.Errorf("reason %q", s.Reason)
	}
	if !strings.Contains(s.Stderr, mcptest.CrashLine) {
		t.Errorf("stderr %q lacks the crash line", s.Stderr)
	}
	if n := len(m.Tools()); n != 0 {
		t.Errorf("a failed server still offers %d tools", n)
	}
}

// A call that hangs ends when its context does (the runtime's deadline,
// which Spec.Timeout carries from the setting), and the server goes on.
func TestHangingCallEndsAtItsDeadline(t *testing.T) {
	hanging := make(chan struct{}, 1)
	m, _, _ := open(t, mcpclient.WithServer(protocol.MCPServerConfig{Name: "mem", Enabled: true},
		mcptest.InMemory(mcptest.Options{RecordFile: "unused", Hanging: hanging})))
	mcptest.WaitState(t, m, "mem", protocol.MCPRunning)
	hang := toolNamed(t, m.Tools(), "mem__hang")
	if got := hang.Spec().Timeout; got != protocol.MCPCallSeconds*time.Second {
		t.Errorf("the call deadline is %s, want the default %ds", got, protocol.MCPCallSeconds)
	}
	ctx, cancel := context.WithCancelCause(t.Context())
	errDeadline := errors.New("the deadline")
	go func() {
		<-hanging // the server is in the call
		cancel(errDeadline)
	}()
	_, err := hang.Run(ctx, tool.Call{ID: "h", Name: "mem__hang", Arguments: json.RawMessage(`{}`)})
	if !errors.Is(err, errDeadline) {
		t.Errorf("the hung call ended with %v, want the deadline's cause", err)
	}
	if res := call(t, toolNamed(t, m.Tools(), "mem__echo"), `{"text":"still here"}`); res.Content != "echo: still here" {
		t.Errorf("after the hang: %+v", res)
	}
}

// Over Streamable HTTP: the same tools, the same calls.
func TestHTTPServer(t *testing.T) {
	m, _, dir := open(t)
	record := filepath.Join(dir, "record.txt")
	srv := mcptest.HTTP(t, record)
	if _, err := m.Put(t.Context(), protocol.MCPServerConfig{Name: "web", URL: srv.URL, Headers: map[string]string{"X-Test": "1"}, Enabled: true}); err != nil {
		t.Fatal(err)
	}
	s := mcptest.WaitState(t, m, "web", protocol.MCPRunning)
	if len(s.Tools) != 5 || s.PID != 0 {
		t.Errorf("http server: %d tools, pid %d", len(s.Tools), s.PID)
	}
	tools := m.Tools()
	if res := call(t, toolNamed(t, tools, "web__record"), `{"text":"over http"}`); res.Status != tool.Success {
		t.Errorf("record: %+v", res)
	}
	if b, _ := os.ReadFile(record); string(b) != "over http\n" {
		t.Errorf("record file %q", b)
	}
	// A crash cuts the connection mid-call: the call fails in words.
	if res := call(t, toolNamed(t, tools, "web__crash"), `{}`); res.Status != tool.Failure {
		t.Errorf("crash over http: %+v", res)
	}
}

// A server that is not there fails its start with a sentence saying what
// to do; so does an address where nothing answers.
func TestStartFailuresSayWhatToDo(t *testing.T) {
	m, _, _ := open(t)
	cases := []struct {
		cfg  protocol.MCPServerConfig
		want string
	}{
		{protocol.MCPServerConfig{Name: "missing", Command: "/nonexistent/mcp-server", Enabled: true}, "Check its command"},
		{protocol.MCPServerConfig{Name: "silent", Command: "/bin/sh", Args: []string{"-c", "echo broken >&2; exit 2"}, Enabled: true}, "handshake"},
		{protocol.MCPServerConfig{Name: "nobody", URL: "http://127.0.0.1:1/mcp", Enabled: true}, "Check the address"},
	}
	for _, c := range cases {
		t.Run(c.cfg.Name, func(t *testing.T) {
			if _, err := m.Put(t.Context(), c.cfg); err != nil {
				t.Fatal(err)
			}
			s := mcptest.WaitState(t, m, c.cfg.Name, protocol.MCPFailed)
			if !strings.Contains(s.Reason, c.want) {
				t.Errorf("reason %q lacks %q", s.Reason, c.want)
			}
		})
	}
}

// The user's choices: a tool turned off is not offered; "read" on a tool
// the server did not declare read-only loosens it, and the status shows
// it; the choices live in settings.json, so a re-pasted config keeps them.
func TestToolChoicesSurviveARepaste(t *testing.T) {
	m, st, dir := open(t)
	cfg := mcptest.Stdio(t, "garden", filepath.Join(dir, "r"))
	if _, err := m.Put(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	mcptest.WaitState(t, m, "garden", protocol.MCPRunning)
	if _, err := m.SetTool(t.Context(), protocol.MCPToolChoice{Server: "garden", Tool: mcptest.Echo, Enabled: false}); err != nil {
		t.Fatal(err)
	}
	s, err := m.SetTool(t.Context(), protocol.MCPToolChoice{Server: "garden", Tool: mcptest.Record, Enabled: true, Effects: "read"})
	if err != nil {
		t.Fatal(err)
	}
	if rec := statusTool(t, s, mcptest.Record); rec.Effects != "read" || !rec.Loosened || rec.Override != "read" {
		t.Errorf("loosened record: %+v", rec)
	}
	if _, err := m.SetTool(t.Context(), protocol.MCPToolChoice{Server: "garden", Tool: mcptest.Fetch, Enabled: true, Effects: "read+bogus"}); !errors.Is(err, protocol.ErrBadPayload) {
		t.Errorf("bad effects: %v", err)
	}
	if _, err := m.SetTool(t.Context(), protocol.MCPToolChoice{Server: "garden", Tool: "nope", Enabled: true}); !errors.Is(err, protocol.ErrNotFound) {
		t.Errorf("unknown tool: %v", err)
	}
	paste, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"garden": map[string]any{"command": cfg.Command, "args": cfg.Args, "env": cfg.Env}}})
	res, err := m.Import(t.Context(), string(paste))
	if err != nil || len(res.Added) != 1 {
		t.Fatalf("import: %+v, %v", res, err)
	}
	s = mcptest.WaitState(t, m, "garden", protocol.MCPRunning)
	if echo := statusTool(t, s, mcptest.Echo); echo.Enabled {
		t.Errorf("echo is enabled again after the re-paste")
	}
	tools := m.Tools()
	for _, x := range tools {
		if x.Spec().Name == "garden__echo" {
			t.Errorf("a disabled tool is offered")
		}
	}
	if e := toolNamed(t, tools, "garden__record").Spec().Effects; e != tool.ReadFs {
		t.Errorf("record is offered with %s, want the user's read", e)
	}
	if saved := st.MCP().Tools; len(saved) != 2 {
		t.Errorf("settings hold %d choices, want 2: %+v", len(saved), saved)
	}
	reread, err := config.ReadSettings(dir)
	if err != nil || len(reread.MCP.Tools) != 2 {
		t.Errorf("settings.json holds %+v (%v)", reread.MCP, err)
	}
}

// mcp.json is read again by the next start, with a disabled server kept
// stopped; Remove forgets a server.
func TestConfigFileIsKept(t *testing.T) {
	dir := t.TempDir()
	st := config.NewStore(config.Config{DataDir: dir})
	m := mcpclient.New(dir, st, slog.New(slog.DiscardHandler))
	cfg := mcptest.Stdio(t, "garden", filepath.Join(dir, "r"))
	cfg.Enabled = false
	if _, err := m.Put(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Put(t.Context(), protocol.MCPServerConfig{Name: "web", URL: "http://127.0.0.1:9/mcp"}); err != nil {
		t.Fatal(err)
	}
	m.Close()
	m2 := mcpclient.New(dir, st, slog.New(slog.DiscardHandler))
	defer m2.Close()
	list, _ := m2.Servers(t.Context())
	if len(list.Servers) != 2 || list.Servers[0].Config.Name != "garden" || list.Servers[0].State != protocol.MCPStopped ||
		list.Servers[0].Config.Env[mcptest.Env] != protocol.MCPMasked {
		t.Fatalf("reread: %+v", list)
	}
	if err := m2.Remove(t.Context(), "web"); err != nil {
		t.Fatal(err)
	}
	if err := m2.Remove(t.Context(), "web"); !errors.Is(err, protocol.ErrNotFound) {
		t.Errorf("second remove: %v", err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, mcpclient.File))
	if strings.Contains(string(b), "web") || !strings.Contains(string(b), `"disabled": true`) {
		t.Errorf("mcp.json: %s", b)
	}
	if fi, _ := os.Stat(filepath.Join(dir, mcpclient.File)); fi.Mode().Perm() != 0o600 {
		t.Errorf("mcp.json mode %v: env may hold tokens", fi.Mode().Perm())
	}
}

// A file that cannot be read is never written over: every change is
// refused with the reason until the user fixes it.
func TestUnreadableConfigIsNotOverwritten(t *testing.T) {
	dir := t.TempDir()
	bad := []byte(`{"mcpServers": {"a": `)
	if err := os.WriteFile(filepath.Join(dir, mcpclient.File), bad, 0o600); err != nil {
		t.Fatal(err)
	}
	m := mcpclient.New(dir, config.NewStore(config.Config{DataDir: dir}), slog.New(slog.DiscardHandler))
	defer m.Close()
	list, _ := m.Servers(t.Context())
	if list.Problem == "" {
		t.Errorf("no problem reported for a broken mcp.json")
	}
	if _, err := m.Put(t.Context(), protocol.MCPServerConfig{Name: "x", URL: "http://127.0.0.1:9/mcp"}); !errors.Is(err, protocol.ErrConflict) {
		t.Errorf("put over a broken file: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, mcpclient.File)); string(b) != string(bad) {
		t.Errorf("the file was rewritten: %s", b)
	}
}

// A tool whose schema the validator cannot compile, or whose name is too
// long, is withdrawn with a reason; the server's other tools are offered.
func TestUncompilableSchemaWithdrawsOnlyThatTool(t *testing.T) {
	connect := func(ctx context.Context) (mcp.Transport, error) {
		client, server := mcp.NewInMemoryTransports()
		s := mcp.NewServer(&mcp.Implementation{Name: "odd", Version: "1"}, nil)
		handler := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		}
		s.AddTool(&mcp.Tool{Name: "remote_ref", InputSchema: map[string]any{"type": "object",
			"properties": map[string]any{"a": map[string]any{"$ref": "https://example.com/a.json"}}}}, handler)
		s.AddTool(&mcp.Tool{Name: "fine.tool", InputSchema: map[string]any{"type": "object"}}, handler)
		s.AddTool(&mcp.Tool{Name: strings.Repeat("n", 200), InputSchema: map[string]any{"type": "object"}}, handler)
		if _, err := s.Connect(ctx, server, nil); err != nil {
			return nil, err
		}
		return client, nil
	}
	m, _, _ := open(t, mcpclient.WithServer(protocol.MCPServerConfig{Name: "odd", Enabled: true}, connect))
	s := mcptest.WaitState(t, m, "odd", protocol.MCPRunning)
	if p := statusTool(t, s, "remote_ref").Problem; !strings.Contains(p, "schema") {
		t.Errorf("remote_ref's problem %q", p)
	}
	if p := statusTool(t, s, strings.Repeat("n", 128)+"…").Problem; !strings.Contains(p, "name is over 128") {
		t.Errorf("a 200-character name's problem %q", p)
	}
	fine := statusTool(t, s, "fine.tool")
	if fine.Problem != "" || fine.Name != "odd__fine_tool" || fine.Effects != "write+net" || !fine.Destructive {
		t.Errorf("an unannotated tool: %+v", fine)
	}
	tools := m.Tools()
	if len(tools) != 1 || tools[0].Spec().Name != "odd__fine_tool" {
		t.Errorf("offered %d tools", len(tools))
	}
}

func TestParse(t *testing.T) {
	cases := []struct {
		name, text string
		servers    int
		refused    string // a word of the refusal
		err        bool
	}{
		{"stdio and http", `{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "x"], "env": {"A": "1"}}, "web": {"type": "http", "url": "https://example.com/mcp"}}}`, 2, "", false},
		{"other apps' fields are ignored", `{"mcpServers": {"fs": {"command": "x", "alwaysAllow": ["write"], "timeout": 5}}}`, 1, "", false},
		{"sse is refused", `{"mcpServers": {"old": {"type": "sse", "url": "http://127.0.0.1/sse"}}}`, 0, "SSE", false},
		{"both command and url", `{"mcpServers": {"x": {"command": "a", "url": "http://b"}}}`, 0, "both", false},
		{"neither", `{"mcpServers": {"x": {}}}`, 0, "needs a command", false},
		{"bad name", `{"mcpServers": {"a b": {"command": "x"}}}`, 0, "name", false},
		{"double underscore", `{"mcpServers": {"a__b": {"command": "x"}}}`, 0, "single _", false},
		{"not a url", `{"mcpServers": {"x": {"url": "ftp://x"}}}`, 0, "http://", false},
		{"header line break", `{"mcpServers": {"x": {"url": "http://x", "headers": {"A": "b\r\nc"}}}}`, 0, "header", false},
		{"entry not an object", `{"mcpServers": {"x": 3}}`, 0, "not an object", false},
		{"not json", `{"mcpServers": `, 0, "", true},
		{"no mcpServers", `{"servers": {}}`, 0, "", true},
		{"too big", `{"mcpServers": {}, "pad": "` + strings.Repeat("x", protocol.MCPMaxConfigBytes) + `"}`, 0, "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			servers, refused, err := mcpclient.Parse([]byte(c.text))
			if (err != nil) != c.err {
				t.Fatalf("err %v, want error %v", err, c.err)
			}
			if err != nil && !errors.Is(err, mcpclient.ErrBadConfig) {
				t.Errorf("error %v is not ErrBadConfig", err)
			}
			if len(servers) != c.servers {
				t.Errorf("%d servers, want %d", len(servers), c.servers)
			}
			if c.refused != "" && (len(refused) != 1 || !strings.Contains(refused[0].Reason, c.refused)) {
				t.Errorf("refused %+v, want one saying %q", refused, c.refused)
			}
		})
	}
}

// oneTool is an in-memory server offering one unannotated tool.
func oneTool(name string) mcpclient.Connect {
	return func(ctx context.Context) (mcp.Transport, error) {
		client, server := mcp.NewInMemoryTransports()
		s := mcp.NewServer(&mcp.Implementation{Name: "one", Version: "1"}, nil)
		s.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
		if _, err := s.Connect(ctx, server, nil); err != nil {
			return nil, err
		}
		return client, nil
	}
}

// Two servers whose tools sanitise to one name: the first in name order
// keeps it, the other is refused in words and not offered.
func TestNameClashAcrossServersIsRefused(t *testing.T) {
	m, _, _ := open(t,
		mcpclient.WithServer(protocol.MCPServerConfig{Name: "a", Enabled: true}, oneTool("__b")),
		mcpclient.WithServer(protocol.MCPServerConfig{Name: "a_", Enabled: true}, oneTool("_b")))
	mcptest.WaitState(t, m, "a", protocol.MCPRunning)
	second := mcptest.WaitState(t, m, "a_", protocol.MCPRunning)
	if p := statusTool(t, second, "_b").Problem; !strings.Contains(p, "a____b") {
		t.Errorf("the clashing tool's problem %q", p)
	}
	tools := m.Tools()
	if len(tools) != 1 || tools[0].Spec().Name != "a____b" {
		t.Errorf("offered %d tools", len(tools))
	}
}

// A server that says its tools changed is listed again: the new tool is
// in its status and offered from then on.
func TestChangedToolListIsTakenAgain(t *testing.T) {
	servers := make(chan *mcp.Server, 1)
	connect := func(ctx context.Context) (mcp.Transport, error) {
		client, server := mcp.NewInMemoryTransports()
		s := mcp.NewServer(&mcp.Implementation{Name: "growing", Version: "1"}, nil)
		handler := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		}
		s.AddTool(&mcp.Tool{Name: "first", InputSchema: map[string]any{"type": "object"}}, handler)
		if _, err := s.Connect(ctx, server, nil); err != nil {
			return nil, err
		}
		servers <- s
		return client, nil
	}
	m, _, changes := attach(t, "grow", connect)
	(<-servers).AddTool(&mcp.Tool{Name: "second", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	for s := range changes {
		if len(s.Tools) == 2 {
			if len(m.Tools()) != 2 {
				t.Errorf("the status lists two tools, %d are offered", len(m.Tools()))
			}
			return
		}
	}
	t.Fatal("the changed tool list was not taken within the patience")
}

// An HTTP server whose answer has no end is cut at the bound, and its
// start fails saying so.
func TestEndlessHTTPAnswerIsCut(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"pad":"`))
		chunk := bytes.Repeat([]byte("x"), 1<<20)
		for range 20 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	m, _, _ := open(t)
	if _, err := m.Put(t.Context(), protocol.MCPServerConfig{Name: "endless", URL: srv.URL, Enabled: true}); err != nil {
		t.Fatal(err)
	}
	s := mcptest.WaitState(t, m, "endless", protocol.MCPFailed)
	if !strings.Contains(s.Reason, "over 16 MiB") {
		t.Errorf("reason %q does not say the answer was too big", s.Reason)
	}
}

// A choice of effects may add questions or make the one visible loosening
// ("read"); every other set would drop a question the screens still say
// is asked, so it is refused and nothing is saved.
func TestAToolChoiceCannotDropAQuestionQuietly(t *testing.T) {
	m, _, dir := open(t)
	if _, err := m.Put(t.Context(), mcptest.Stdio(t, "garden", filepath.Join(dir, "r"))); err != nil {
		t.Fatal(err)
	}
	mcptest.WaitState(t, m, "garden", protocol.MCPRunning)
	for _, tc := range []struct {
		effects string
		ok      bool
	}{
		{"none", false}, {"write", false}, {"memory", false}, {"net", false}, {"read+exec", false},
		{"read", true}, {"write+net", true}, {"read+write+net+exec", true}, {"", true},
	} {
		s, err := m.SetTool(t.Context(), protocol.MCPToolChoice{Server: "garden", Tool: mcptest.Record, Enabled: true, Effects: tc.effects})
		if tc.ok != (err == nil) {
			t.Errorf("effects %q: err %v, want ok=%v", tc.effects, err, tc.ok)
			continue
		}
		if !tc.ok && !errors.Is(err, protocol.ErrBadPayload) {
			t.Errorf("effects %q: %v, want a bad payload", tc.effects, err)
		}
		if tc.ok && tc.effects != "" {
			if rec := statusTool(t, s, mcptest.Record); rec.Override != tc.effects {
				t.Errorf("effects %q: status %+v", tc.effects, rec)
			}
		}
	}
}

// An HTTP server's redirect is not followed, so its configured headers
// and the call's body never reach the host it names.
func TestAnHTTPServersRedirectIsNotFollowed(t *testing.T) {
	var leaked atomic.Bool
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			leaked.Store(true)
		}
		http.Error(w, "no", http.StatusNotFound)
	}))
	defer elsewhere.Close()
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	defer redirecting.Close()
	m, _, _ := open(t)
	if _, err := m.Put(t.Context(), protocol.MCPServerConfig{Name: "moved", URL: redirecting.URL + "/mcp", Enabled: true,
		Headers: map[string]string{"Authorization": "Bearer secret"}}); err != nil {
		t.Fatal(err)
	}
	mcptest.WaitState(t, m, "moved", protocol.MCPFailed)
	if leaked.Load() {
		t.Fatal("the redirect was followed with the server's headers")
	}
}

// A client opened ReadOnly (a Reader's: `quire mcp list` with no Quire
// running) starts no server and refuses every change, writing nothing.
func TestAReadOnlyClientRunsAndChangesNothing(t *testing.T) {
	dir := t.TempDir()
	writer := mcpclient.New(dir, config.NewStore(config.Config{DataDir: dir}), slog.New(slog.DiscardHandler))
	cfg := mcptest.Stdio(t, "garden", filepath.Join(dir, "record.txt"))
	cfg.Enabled = false
	if _, err := writer.Put(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	writer.Close()
	before, err := os.ReadFile(filepath.Join(dir, mcpclient.File))
	if err != nil {
		t.Fatal(err)
	}
	m := mcpclient.New(dir, config.NewStore(config.Config{DataDir: dir}), slog.New(slog.DiscardHandler), mcpclient.ReadOnly())
	t.Cleanup(m.Close)
	cfg.Enabled = true
	for name, change := range map[string]func() error{
		"put":    func() error { _, err := m.Put(t.Context(), cfg); return err },
		"import": func() error { _, err := m.Import(t.Context(), `{"mcpServers":{"x":{"command":"true"}}}`); return err },
		"remove": func() error { return m.Remove(t.Context(), "garden") },
		"start":  func() error { _, err := m.Start(t.Context(), "garden"); return err },
		"set tool": func() error {
			_, err := m.SetTool(t.Context(), protocol.MCPToolChoice{Server: "garden", Tool: "echo"})
			return err
		},
	} {
		if err := change(); !errors.Is(err, mcpclient.ErrReadOnly) {
			t.Errorf("%s on a read-only client: %v, want ErrReadOnly", name, err)
		}
	}
	list, err := m.Servers(t.Context())
	if err != nil || len(list.Servers) != 1 || list.Servers[0].State != protocol.MCPStopped || list.Servers[0].PID != 0 {
		t.Errorf("the read-only list: %+v %v", list, err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, mcpclient.File)); string(after) != string(before) {
		t.Errorf("mcp.json changed:\n%s\nwas\n%s", after, before)
	}
}
