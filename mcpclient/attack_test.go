package mcpclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"quire/config"
	"quire/kernel/protocol"
	"quire/kernel/tool"
	"quire/mcpclient"
	"quire/test/mcptest"
)

// attach runs a server of this process under name, waits until it runs,
// and watches the servers' changes for the patience.
func attach(t *testing.T, name string, connect mcpclient.Connect) (*mcpclient.Client, context.Context, <-chan protocol.MCPServer) {
	t.Helper()
	m, _, _ := open(t, mcpclient.WithServer(protocol.MCPServerConfig{Name: name, Enabled: true}, connect))
	mcptest.WaitState(t, m, name, protocol.MCPRunning)
	ctx, cancel := context.WithTimeout(t.Context(), mcptest.Patience)
	t.Cleanup(cancel)
	return m, ctx, m.Watch(ctx)
}

// runGarden adds the test server over stdio as garden, recording into
// record, and waits until it runs.
func runGarden(t *testing.T, m *mcpclient.Client, record string) protocol.MCPServerConfig {
	t.Helper()
	cfg := mcptest.Stdio(t, "garden", record)
	if _, err := m.Put(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	mcptest.WaitState(t, m, "garden", protocol.MCPRunning)
	return cfg
}

// settled waits until the server named name is running or failed.
func settled(t *testing.T, m *mcpclient.Client, name string) protocol.MCPServer {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), mcptest.Patience)
	defer cancel()
	s, err := mcptest.WaitFor(ctx, m, name, "running or failed", func(s protocol.MCPServer) bool {
		return s.State == protocol.MCPRunning || s.State == protocol.MCPFailed
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// An HTTP server's configured headers (a token, often) go to its own
// address only: a server that redirects to another origin does not get
// them sent there; the start fails saying where it was sent.
func TestRedirectToAnotherOriginGetsNoHeaders(t *testing.T) {
	var leaked atomic.Value
	leaked.Store("")
	s := mcptest.NewServer(mcptest.Options{})
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Get("Authorization"); v != "" {
			leaked.Store(v)
		}
		mcpHandler.ServeHTTP(w, r)
	}))
	defer elsewhere.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()
	m, _, _ := open(t)
	if _, err := m.Put(t.Context(), protocol.MCPServerConfig{Name: "moved", URL: redirector.URL + "/mcp",
		Headers: map[string]string{"Authorization": "Bearer secret"}, Enabled: true}); err != nil {
		t.Fatal(err)
	}
	st := settled(t, m, "moved")
	if v := leaked.Load().(string); v != "" {
		t.Errorf("the other origin got the header %q", v)
	}
	if st.State != protocol.MCPFailed || !strings.Contains(st.Reason, elsewhere.URL) {
		t.Errorf("state %s, reason %q: want failed, naming where it was sent", st.State, st.Reason)
	}
}

// flooder is a hostile server over an in-memory transport, spoken in raw
// JSON-RPC (the SDK's own server debounces its notifications): once told,
// it sends many notifications/tools/list_changed, then pings; every
// tools/list after the first is handed to the test to answer.
type flooder struct {
	conn   mcp.Connection
	writeM sync.Mutex
	flood  chan int // how many notifications to send
	// early: the first tools/list is answered after a list_changed, as a
	// server whose tools change while Quire first lists them does.
	early  bool
	pinged chan struct{}         // the client answered the ping after the flood
	lists  chan *jsonrpc.Request // tools/list after the first
}

// connect serves the flooder over a fresh in-memory pipe.
func (f *flooder) connect(t *testing.T) mcpclient.Connect {
	return func(ctx context.Context) (mcp.Transport, error) {
		client, server := mcp.NewInMemoryTransports()
		conn, err := server.Connect(ctx)
		if err != nil {
			return nil, err
		}
		f.conn = conn
		go f.serve(t)
		return client, nil
	}
}

func (f *flooder) write(t *testing.T, msg jsonrpc.Message) {
	f.writeM.Lock()
	defer f.writeM.Unlock()
	if err := f.conn.Write(context.Background(), msg); err != nil {
		t.Log("flooder write:", err)
	}
}

func toolsResult(n int) json.RawMessage {
	var tools []string
	for i := range n {
		tools = append(tools, fmt.Sprintf(`{"name":"t%d","inputSchema":{"type":"object"}}`, i))
	}
	return json.RawMessage(`{"tools":[` + strings.Join(tools, ",") + `]}`)
}

func (f *flooder) serve(t *testing.T) {
	pingID, _ := jsonrpc.MakeID("after-flood")
	listed := 0
	go func() {
		n := <-f.flood
		for range n {
			f.write(t, &jsonrpc.Request{Method: "notifications/tools/list_changed", Params: json.RawMessage(`{}`)})
		}
		f.write(t, &jsonrpc.Request{ID: pingID, Method: "ping", Params: json.RawMessage(`{}`)})
	}()
	for {
		msg, err := f.conn.Read(context.Background())
		if err != nil {
			return
		}
		switch m := msg.(type) {
		case *jsonrpc.Response:
			if m.ID == pingID {
				close(f.pinged)
			}
		case *jsonrpc.Request:
			switch m.Method {
			case "initialize":
				f.write(t, &jsonrpc.Response{ID: m.ID, Result: json.RawMessage(
					`{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"flood","version":"1"}}`)})
			case "tools/list":
				if listed++; listed == 1 {
					if f.early {
						f.write(t, &jsonrpc.Request{Method: "notifications/tools/list_changed", Params: json.RawMessage(`{}`)})
					}
					f.write(t, &jsonrpc.Response{ID: m.ID, Result: toolsResult(1)})
					continue
				}
				f.lists <- m
			case "server/discover": // 2026-07-28's first step; an older server does not know it
				f.write(t, &jsonrpc.Response{ID: m.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found"}})
			case "ping":
				f.write(t, &jsonrpc.Response{ID: m.ID, Result: json.RawMessage(`{}`)})
			}
		}
	}
}

// A server that floods notifications/tools/list_changed gets one listing
// at a time, and one more after it for all the changes that came during
// it: not a goroutine and a tools/list per notification.
func TestToolListChangedFloodListsOnceAtATime(t *testing.T) {
	f := &flooder{flood: make(chan int, 1), pinged: make(chan struct{}), lists: make(chan *jsonrpc.Request, 1024)}
	m, ctx, changes := attach(t, "flood", f.connect(t))
	f.flood <- 500
	select {
	case <-f.pinged:
	case <-ctx.Done():
		t.Fatal("the client did not answer the ping after the flood")
	}
	answer := func(tools int) {
		select {
		case req := <-f.lists:
			f.write(t, &jsonrpc.Response{ID: req.ID, Result: toolsResult(tools)})
		case <-ctx.Done():
			t.Fatal("no tools/list came after the flood")
		}
	}
	answer(2) // the listing under way during the flood
	answer(3) // the one more, for the changes during it
	for s := range changes {
		if len(s.Tools) == 3 {
			break
		}
	}
	if n := len(f.lists); n != 0 {
		t.Errorf("%d more tools/list requests after the flood's two; want none", n)
	}
	if got := len(m.Tools()); got != 3 {
		t.Errorf("%d tools offered, want the last listing's 3", got)
	}
}

// The entries of mcp.json Quire does not take (refused: a name it cannot
// use, the old SSE transport; or past MCPMaxServers) are the user's: a
// change made in Quire writes them back as they were, not without them.
func TestEntriesNotTakenSurviveAChange(t *testing.T) {
	dir := t.TempDir()
	var entries []string
	for i := range protocol.MCPMaxServers + 2 {
		entries = append(entries, fmt.Sprintf(`"s%02d": {"command": "/nonexistent/s%02d", "disabled": true}`, i, i))
	}
	entries = append(entries,
		`"café": {"command": "/usr/bin/cafe", "args": ["--token", "abc"]}`,
		`"old": {"type": "sse", "url": "http://127.0.0.1:9/sse"}`)
	text := `{"mcpServers": {` + strings.Join(entries, ",\n") + `}}`
	path := filepath.Join(dir, mcpclient.File)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	st := config.NewStore(config.Config{DataDir: dir})
	m := mcpclient.New(dir, st, slog.New(slog.DiscardHandler))
	defer m.Close()
	if err := m.Remove(t.Context(), "s00"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var saved struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &saved); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"café", "old", fmt.Sprintf("s%02d", protocol.MCPMaxServers), fmt.Sprintf("s%02d", protocol.MCPMaxServers+1), "s01"} {
		if _, ok := saved.MCPServers[name]; !ok {
			t.Errorf("mcp.json lost %s: %s", name, b)
		}
	}
	if _, ok := saved.MCPServers["s00"]; ok {
		t.Errorf("the removed server is still in mcp.json: %s", b)
	}
	if !strings.Contains(string(saved.MCPServers["café"]), `"--token"`) || !strings.Contains(string(saved.MCPServers["old"]), `"sse"`) {
		t.Errorf("the entries not taken were changed: %s", b)
	}
	// One put under the name of an entry not taken replaces it.
	if _, err := m.Put(t.Context(), protocol.MCPServerConfig{Name: "old", URL: "http://127.0.0.1:9/mcp"}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); strings.Contains(string(b), "/sse") || strings.Count(string(b), `"old"`) != 1 {
		t.Errorf("the put did not replace the entry of its name: %s", b)
	}
}

// A "don't ask" the user gave a tool is for the program they gave it to:
// a server replaced under the same name by another program (a pasted
// config's command, another address), or removed and added again, does
// not inherit it. A tightening and a tool turned off stay, and a re-paste
// of the same program keeps everything.
func TestALooseningDoesNotPassToAnotherProgram(t *testing.T) {
	m, st, dir := open(t)
	cfg := runGarden(t, m, filepath.Join(dir, "r"))
	choose := func(c protocol.MCPToolChoice) {
		t.Helper()
		if _, err := m.SetTool(t.Context(), c); err != nil {
			t.Fatal(err)
		}
	}
	loosen := func() {
		choose(protocol.MCPToolChoice{Server: "garden", Tool: mcptest.Record, Enabled: true, Effects: "read"})
	}
	loosen()
	choose(protocol.MCPToolChoice{Server: "garden", Tool: mcptest.Fetch, Enabled: true, Effects: "write+net"})
	choose(protocol.MCPToolChoice{Server: "garden", Tool: mcptest.Echo, Enabled: false})
	effects := func() map[string]string {
		out := map[string]string{}
		for _, c := range st.MCP().Tools {
			out[c.Tool] = fmt.Sprintf("%s disabled=%v", c.Effects, c.Disabled)
		}
		return out
	}
	same := cfg
	if _, err := m.Put(t.Context(), same); err != nil {
		t.Fatal(err)
	}
	if got := effects()[mcptest.Record]; got != "read disabled=false" {
		t.Errorf("a re-paste of the same program lost the choice: %q", got)
	}
	other := cfg
	other.Args = append(slices.Clone(cfg.Args), "--another")
	if _, err := m.Put(t.Context(), other); err != nil {
		t.Fatal(err)
	}
	got := effects()
	if _, ok := got[mcptest.Record]; ok {
		t.Errorf("another program under the name garden inherits the loosening: %q", got[mcptest.Record])
	}
	if got[mcptest.Fetch] != "write+net disabled=false" || got[mcptest.Echo] != " disabled=true" {
		t.Errorf("the tightening and the tool turned off were not kept: %v", got)
	}
	if _, err := m.Put(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	mcptest.WaitState(t, m, "garden", protocol.MCPRunning)
	loosen()
	if err := m.Remove(t.Context(), "garden"); err != nil {
		t.Fatal(err)
	}
	if _, ok := effects()[mcptest.Record]; ok {
		t.Errorf("a removed server's loosening is kept for the next one of its name")
	}
}

// A run's tools call the program they were offered from: once its server
// was given another program under the same name, a call from a run that
// started before fails in words, rather than reaching the new program
// with the effects (and the questions) the old one declared.
func TestARunsToolDoesNotCallAReplacedProgram(t *testing.T) {
	m, _, dir := open(t)
	runGarden(t, m, filepath.Join(dir, "stdio-record"))
	snapshot := toolNamed(t, m.Tools(), "garden__record")
	record := filepath.Join(dir, "http-record")
	srv := mcptest.HTTP(t, record)
	if _, err := m.Put(t.Context(), protocol.MCPServerConfig{Name: "garden", URL: srv.URL, Enabled: true}); err != nil {
		t.Fatal(err)
	}
	mcptest.WaitState(t, m, "garden", protocol.MCPRunning)
	res := call(t, snapshot, `{"text":"meant for the old program"}`)
	if b, _ := os.ReadFile(record); len(b) > 0 || res.Status != tool.Failure || !strings.Contains(res.Content, "changed") {
		t.Errorf("the run's tool reached the new program: %+v, its record %q", res, b)
	}
	if res := call(t, toolNamed(t, m.Tools(), "garden__record"), `{"text":"new run"}`); res.Status != tool.Success {
		t.Errorf("a new run's tool: %+v", res)
	}
}

// A tools/list_changed that comes while Quire first lists a server's tools
// is not lost: one more listing follows, and the next run is offered it.
func TestToolListChangedDuringTheFirstListingIsTaken(t *testing.T) {
	f := &flooder{early: true, flood: make(chan int, 1), pinged: make(chan struct{}), lists: make(chan *jsonrpc.Request, 16)}
	m, ctx, changes := attach(t, "early", f.connect(t))
	select {
	case req := <-f.lists:
		f.write(t, &jsonrpc.Response{ID: req.ID, Result: toolsResult(2)})
	case <-ctx.Done():
		t.Fatal("the change during the first listing was lost: no tools/list came after it")
	}
	for s := range changes {
		if len(s.Tools) == 2 {
			if got := len(m.Tools()); got != 2 {
				t.Errorf("%d tools offered, want 2", got)
			}
			return
		}
	}
	t.Fatal("the second listing was not taken within the patience")
}
