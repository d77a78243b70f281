package assembly

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/test/mcptest"
	"quire/test/ollamatest"
)

// goSDKNewest is the newest MCP version the Go SDK of go.mod (v1.8.0)
// speaks; the handshake must settle on the newest version both sides
// share.
const goSDKNewest = "2026-07-28"

// referenceServer is the MCP project's reference test server
// (@modelcontextprotocol/server-everything, installed by make test's npm
// ci) and the newest protocol version its own SDK speaks, read from the
// installed package. The test is skipped, saying why, only when node or
// the package is missing.
func referenceServer(t *testing.T) (node, script, newest string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the reference MCP server (@modelcontextprotocol/server-everything) cannot run")
	}
	modules, err := filepath.Abs("../frontend/node_modules/@modelcontextprotocol")
	if err != nil {
		t.Fatal(err)
	}
	script = filepath.Join(modules, "server-everything", "dist", "index.js")
	if _, err := os.Stat(script); err != nil {
		t.Skipf("the reference MCP server is not installed (%v): run npm ci in frontend", err)
	}
	// The server is an ES module: node resolves its SDK to the hoisted
	// package's ESM build.
	types, err := os.ReadFile(filepath.Join(modules, "sdk", "dist", "esm", "types.js"))
	if err != nil {
		t.Fatalf("the reference server's SDK: %v", err)
	}
	m := regexp.MustCompile(`LATEST_PROTOCOL_VERSION = '(\d{4}-\d{2}-\d{2})'`).FindSubmatch(types)
	if m == nil {
		t.Fatal("the reference server's SDK names no LATEST_PROTOCOL_VERSION")
	}
	return node, script, string(m[1])
}

// streamableReference starts the reference server over Streamable HTTP on
// a free loopback port (it takes the port from PORT) and returns its MCP
// address once it listens; it is killed when the test ends.
func streamableReference(t *testing.T, node, script string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(node, script, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	listening := make(chan bool, 1)
	go func() {
		var seen strings.Builder
		buf := make([]byte, 4096)
		told := false
		for {
			n, err := stderr.Read(buf)
			seen.Write(buf[:n])
			if !told && strings.Contains(seen.String(), "listening on port") {
				listening <- true
				told = true
			}
			if err != nil {
				if !told {
					listening <- false
				}
				return
			}
		}
	}()
	if !<-listening {
		t.Fatal("the reference server ended before it listened")
	}
	return "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"
}

// TestReferenceMCPServerThroughTheGate: the reference server, over stdio
// and over Streamable HTTP, plugged in through Quire's own client in an
// Owner's wiring: the handshake settles on the newest version both SDKs
// speak; its tools' effects follow the annotations it really sends (echo
// readOnlyHint true: read; toggle-simulated-logging readOnlyHint false:
// write+net); and in a conversation (runtime + fake Ollama) echo runs
// unasked and its text reaches the model, while the toggle waits for the
// user's yes, its question naming the server and the tool.
func TestReferenceMCPServerThroughTheGate(t *testing.T) {
	node, script, serverNewest := referenceServer(t)
	want := min(serverNewest, goSDKNewest) // dates: the earlier string is the older version
	for _, tc := range []struct {
		name string
		cfg  func(t *testing.T) protocol.MCPServerConfig
	}{
		{"stdio", func(*testing.T) protocol.MCPServerConfig {
			return protocol.MCPServerConfig{Name: "everything", Command: node, Args: []string{script, "stdio"}, Enabled: true}
		}},
		{"streamableHttp", func(t *testing.T) protocol.MCPServerConfig {
			return protocol.MCPServerConfig{Name: "everything", URL: streamableReference(t, node, script), Enabled: true}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := ollamatest.New(t)
			fake.AddModel(ollamatest.DefaultModel())
			fake.Script(
				mcpCall("c1", "everything__echo", `{"message":"hello from Quire"}`),
				mcpCall("c2", "everything__toggle-simulated-logging", `{}`),
				ollamatest.Turn{Content: []string{"Done."}},
			)
			o := openMCPOwner(t, fake, t.TempDir(), 0, true)
			if _, err := o.MCP().Put(t.Context(), tc.cfg(t)); err != nil {
				t.Fatal(err)
			}
			s := mcptest.WaitState(t, o.MCP(), "everything", protocol.MCPRunning)
			t.Logf("the reference server %s speaks %s (its SDK's newest: %s; the Go SDK's: %s)", s.Server, s.ProtocolVersion, serverNewest, goSDKNewest)
			if s.ProtocolVersion != want {
				t.Errorf("the handshake settled on %q, want %q, the newest both sides speak", s.ProtocolVersion, want)
			}
			effects := map[string]string{}
			for _, tl := range s.Tools {
				effects[tl.Tool] = tl.Effects
			}
			if effects["echo"] != "read" || effects["toggle-simulated-logging"] != "write+net" {
				t.Fatalf("effects from the annotations: echo %q, toggle-simulated-logging %q; want read and write+net", effects["echo"], effects["toggle-simulated-logging"])
			}

			session := o.say(t, "", "Echo hello, then turn the logging on.", 1)
			o.mu.Lock()
			questions := o.questions
			o.mu.Unlock()
			if len(questions) != 1 || len(questions[0].Calls) != 1 || questions[0].Calls[0].Name != "everything__toggle-simulated-logging" {
				t.Fatalf("questions %+v, want one, about the toggle only (echo is read-only)", questions)
			}
			if d := questions[0].Descriptions; len(d) != 1 || !strings.Contains(d[0], "toggle-simulated-logging") || !strings.Contains(d[0], "everything") {
				t.Errorf("the question says %q; it must name the tool and its server", d)
			}
			results := map[string]event.ToolResultPayload{}
			for _, r := range o.results(t, session) {
				results[r.Name] = r
			}
			if r := results["everything__echo"]; r.Status != "success" || r.Content != "Echo: hello from Quire" {
				t.Errorf("echo's result: %+v", r)
			}
			if r := results["everything__toggle-simulated-logging"]; r.Status != "success" || !strings.Contains(r.Content, "simulated") {
				t.Errorf("the toggle's result: %+v", r)
			}
			reqs := fake.Requests()
			if len(reqs) != 3 || !strings.Contains(string(reqs[1].Body), "Echo: hello from Quire") {
				t.Errorf("%d requests; the second must carry echo's text to the model", len(reqs))
			}
		})
	}
}
