package assembly

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"quire/config"
	"quire/internal/datadir"
	"quire/test/ollamatest"
)

// fakeOllamaEnv makes the test binary an `ollama serve`: it answers
// Ollama's version and model list on OLLAMA_HOST until it is killed.
const fakeOllamaEnv = "QUIRE_APP_FAKE_OLLAMA_SERVE"

func serveFakeOllamaIfChild() {
	if os.Getenv(fakeOllamaEnv) == "" {
		return
	}
	ln, err := net.Listen("tcp", os.Getenv("OLLAMA_HOST"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/version", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, `{"version":"0.0.0"}`) })
	mux.HandleFunc("/api/tags", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, `{"models":[]}`) })
	fmt.Fprintln(os.Stderr, http.Serve(ln, mux))
	os.Exit(1)
}

// installFakeOllama puts an `ollama` program on PATH that records its pid
// and arguments in the returned file and then serves as the fake above.
func installFakeOllama(t *testing.T) string {
	t.Helper()
	dir, record := t.TempDir(), filepath.Join(t.TempDir(), "ollama.args")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf("#!/bin/sh\necho \"$$ $*\" > %q\n%s=1 exec %q\n", record, fakeOllamaEnv, self)
	if err := os.WriteFile(filepath.Join(dir, "ollama"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	return record
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestOwnerStartsStoppedOllama: a window, `quire serve` or `quire chat`
// whose Ollama is installed but not running starts `ollama serve` on the
// configured address, finds it answering once open, and the child is gone
// once Quire closes. Nothing is started for a remote address, an Ollama
// that already answers, a machine without the program, or `quire index`.
func TestOwnerStartsStoppedOllama(t *testing.T) {
	running := ollamatest.New(t)
	cases := []struct {
		name      string
		kind      datadir.Kind
		host      func(t *testing.T) string
		installed bool
		started   bool
	}{
		{"window, stopped", datadir.Window, freeAddr, true, true},
		{"serve, stopped", datadir.Serve, freeAddr, true, true},
		{"chat, stopped", datadir.Terminal, func(t *testing.T) string { return "localhost:" + strings.Split(freeAddr(t), ":")[1] }, true, true},
		{"not installed", datadir.Window, freeAddr, false, false},
		{"already running", datadir.Window, func(*testing.T) string { return running.URL() }, true, false},
		{"remote", datadir.Window, func(*testing.T) string { return "http://192.0.2.1:11434" }, true, false},
		{"index", datadir.Index, freeAddr, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			record := installFakeOllama(t)
			if !tc.installed {
				t.Setenv("PATH", t.TempDir())
			}
			ctx := context.Background()
			p, err := OpenWith(ctx, config.NewStore(config.Config{DataDir: t.TempDir(), OllamaHost: tc.host(t), Model: "qwen3:4b", NumCtx: 4096}),
				slog.New(slog.DiscardHandler), Owner, Extras{Kind: tc.kind})
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(record)
			if !tc.started {
				p.Close()
				if err == nil {
					t.Fatalf("ollama was started: %s", b)
				}
				return
			}
			if err != nil {
				p.Close()
				t.Fatalf("ollama was not started: %v", err)
			}
			pid, args, _ := strings.Cut(strings.TrimSpace(string(b)), " ")
			if args != "serve" {
				t.Errorf("ollama was started with %q, want serve", args)
			}
			if _, err := p.ollama.Version(ctx); err != nil {
				t.Errorf("the started Ollama does not answer once open: %v", err)
			}
			p.Close()
			n, _ := strconv.Atoi(pid)
			if err := syscall.Kill(n, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("ollama serve (pid %d) outlived Quire: kill -0 says %v", n, err)
			}
		})
	}
}
