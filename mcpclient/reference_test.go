package mcpclient_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"quire/kernel/protocol"
	"quire/kernel/tool"
	"quire/test/mcptest"
)

// everything is the reference test server's script, installed by make
// test's npm ci (frontend/package.json): node and it are needed, or the
// test is skipped saying which is missing.
func everything(t *testing.T) (node, script string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the reference MCP server (@modelcontextprotocol/server-everything) cannot run")
	}
	script, err = filepath.Abs("../frontend/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(script); err != nil {
		t.Skipf("the reference MCP server is not installed (%v): run npm ci in frontend", err)
	}
	return node, script
}

// freePort is a loopback port nothing listens on now (the reference
// server takes its port from PORT and cannot be given :0).
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// The reference server of the MCP project, over stdio and over Streamable
// HTTP: its annotations become effects (readOnlyHint false: write+net), a
// text result is read, an image described in words, structured content
// kept as Data.
func TestReferenceServer(t *testing.T) {
	node, script := everything(t)
	cases := []struct {
		name string
		cfg  func(t *testing.T) (protocol.MCPServerConfig, func())
	}{
		{"stdio", func(t *testing.T) (protocol.MCPServerConfig, func()) {
			return protocol.MCPServerConfig{Name: "everything", Command: node, Args: []string{script, "stdio"}, Enabled: true}, func() {}
		}},
		{"streamableHttp", func(t *testing.T) (protocol.MCPServerConfig, func()) {
			port := freePort(t)
			cmd := exec.Command(node, script, "streamableHttp")
			cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
			ready := &lineWaiter{want: "listening on port", seen: make(chan struct{})}
			cmd.Stderr = ready
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case <-ready.seen:
			case err := <-exited:
				t.Fatalf("the reference server ended before it listened (%v): %s", err, ready.buf.String())
			}
			return protocol.MCPServerConfig{Name: "everything", URL: "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp", Enabled: true},
				func() { _ = cmd.Process.Kill(); <-exited }
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, stop := c.cfg(t)
			defer stop()
			m, _, _ := open(t)
			if _, err := m.Put(t.Context(), cfg); err != nil {
				t.Fatal(err)
			}
			s := mcptest.WaitState(t, m, "everything", protocol.MCPRunning)
			if s.ProtocolVersion == "" || len(s.Tools) < 5 {
				t.Fatalf("reference server: protocol %q, %d tools", s.ProtocolVersion, len(s.Tools))
			}
			if e := statusTool(t, s, "echo"); e.Effects != "read" || e.Name != "everything__echo" {
				t.Errorf("echo: %+v", e)
			}
			if e := statusTool(t, s, "toggle-simulated-logging"); e.Effects != "write+net" {
				t.Errorf("a tool not read-only is %s", e.Effects)
			}
			tools := m.Tools()
			if r := call(t, toolNamed(t, tools, "everything__echo"), `{"message":"hi"}`); r.Status != tool.Success || r.Content != "Echo: hi" {
				t.Errorf("echo: %+v", r)
			}
			if r := call(t, toolNamed(t, tools, "everything__get-tiny-image"), `{}`); !strings.Contains(r.Content, "[an image (image/png") {
				t.Errorf("tiny image: %q", r.Content)
			}
			if r := call(t, toolNamed(t, tools, "everything__get-structured-content"), `{"location":"Chicago"}`); r.Data == nil {
				t.Errorf("structured content has no Data: %+v", r)
			}
		})
	}
}

// lineWaiter closes seen once a write holds want (the server says it
// listens).
type lineWaiter struct {
	want string
	buf  strings.Builder
	seen chan struct{}
	done bool
}

func (w *lineWaiter) Write(p []byte) (int, error) {
	w.buf.Write(p)
	if !w.done && strings.Contains(w.buf.String(), w.want) {
		w.done = true
		close(w.seen)
	}
	return len(p), nil
}
