//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"quire/assembly"
	"quire/test/crashtest"
	"quire/test/mcptest"
)

// The killed reply's case ("continue after a killed reply", cases.mjs): a
// `quire serve` of its own runs as a child process (this test binary run
// again), so the case can have it killed with SIGKILL in the middle of a
// reply and started again over the same data folder, as a user whose
// machine lost power would. The case drives both through a control
// address of the test's: POST /kill kills the child, starts the next one
// and answers {"killed": true, "link": "…"} with the new start's link.

// serveChildEnv makes this binary a `quire serve` child; its value is the
// childSpec as JSON.
const serveChildEnv = "QUIRE_E2E_SERVE_CHILD"

// TestMain also makes this binary the MCP case's stdio server (mcp_test.go).
func TestMain(m *testing.M) {
	mcptest.ServeIfChild()
	crashtest.Main(m, serveChildEnv, serveChild)
}

// childSpec is what a child serves: the built frontend and serve's flags.
type childSpec struct {
	Frontend string   `json:"frontend"`
	Probe    string   `json:"probe"`
	Flags    []string `json:"flags"`
}

// serveChild serves until it is killed (or told to stop), saying its link
// on stdout as "link <url>".
func serveChild(raw string) {
	var spec childSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		os.Stderr.WriteString("the child's spec: " + err.Error() + "\n")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	link, done, err := launch(ctx, os.DirFS(filepath.Join(spec.Frontend, "dist")), spec.Probe, spec.Flags, assembly.Extras{})
	if err != nil {
		os.Stderr.WriteString("quire serve: " + err.Error() + "\n")
		os.Exit(1)
	}
	os.Stdout.WriteString("link " + link + "\n")
	if err := <-done; err != nil {
		os.Stderr.WriteString("quire serve: " + err.Error() + "\n")
		os.Exit(1)
	}
}

// killable is the child `quire serve` and the control address the case
// kills it through.
type killable struct {
	t     *testing.T
	crash *crashtest.Crash
	spec  string
	mu    sync.Mutex
	child *crashtest.Child
}

// startKillable starts the first child over a data folder of its own, with
// Ollama at ollamaURL, and the control address; it returns both links.
func startKillable(t *testing.T, frontend, ollamaURL string) (link, control string) {
	spec, err := json.Marshal(childSpec{Frontend: frontend, Probe: filepath.Join(t.TempDir(), "probe.json"),
		Flags: []string{"-data-dir", t.TempDir(), "-ollama-host", ollamaURL}})
	if err != nil {
		t.Fatal(err)
	}
	k := &killable{t: t, crash: crashtest.New(t, serveChildEnv, 1), spec: string(spec)}
	link = k.start()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(k.kill)}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return link, "http://" + l.Addr().String()
}

// start runs a child and returns the link it printed.
func (k *killable) start() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.child = k.crash.Start(k.spec)
	for {
		line, ok := k.child.Line()
		if !ok {
			k.t.Errorf("the serve child ended before it served; stderr: %s", k.child.Stderr())
			return ""
		}
		if link, found := strings.CutPrefix(line, "link "); found {
			return link
		}
	}
}

// kill is POST /kill: SIGKILL the child, start the next over the same
// folder, and say whether the signal ended it and the new link.
func (k *killable) kill(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/kill" {
		http.NotFound(w, r)
		return
	}
	k.mu.Lock()
	killed := k.child.Kill()
	k.mu.Unlock()
	link := k.start()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"killed": killed, "link": link})
}
