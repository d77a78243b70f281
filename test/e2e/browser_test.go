//go:build e2e

// Package e2e runs the frontend's end-to-end cases (frontend/e2e/cases.mjs)
// in real Chromium against the real HTTP host: `quire serve`'s handler over
// the real runtime, a real SQLite file and the fake Ollama server, which
// answers each case's prompt as script_test.go scripts it. Every case runs
// here; none needs a mock of the backend. `make test` runs it after building
// the frontend.
package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"quire/doctor"
	"quire/host/httpapi"
	"quire/internal/ollamatest"
	"quire/internal/testkit"
	"quire/kernel/provider/ollama"
	"quire/kernel/runtime"
	"quire/kernel/store"
	"quire/kernel/tool"
	"quire/library"
	"quire/memory"
	"quire/rag"
	"quire/tools/searchdocs"
)

type doctorProbe struct{ p *ollama.Provider }

func (d doctorProbe) Version(ctx context.Context) (string, error)  { return d.p.Version(ctx) }
func (d doctorProbe) Models(ctx context.Context) ([]string, error) { return d.p.Models(ctx) }
func (d doctorProbe) Capabilities(ctx context.Context, m string) ([]string, error) {
	info, err := d.p.ModelInfo(ctx, m)
	return info.Capabilities, err
}

// cases are the slugs of every case in frontend/e2e/cases.mjs, in order:
// each must pass, against this backend, and no other may run. A case added
// there is added here.
var cases = []string{
	"send-stream", "sessions", "doctor-banner", "reload", "run-error", "stop", "wails", "wails-handshake-refused",
	"protocol", "send-retry", "tool-card", "permission-deny", "permission-allow", "steer", "queue", "wails-permission",
	"notes-folder", "wails-notes-folder", "plan", "unsure", "move-undo", "documents-panel", "documents-cancel",
	"wails-drop", "compaction-marker", "memory-panel", "documents-e2e", "citations",
}

func TestBrowser(t *testing.T) {
	frontend, err := filepath.Abs("../../frontend")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(frontend, "dist", "index.html")); err != nil {
		t.Fatalf("frontend/dist is not built (run `make test`): %v", err)
	}
	fx, base := startBackend(t, frontend)

	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	env, err := json.Marshal(fx)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "node", "e2e/run.mjs")
	cmd.Dir = frontend
	cmd.Env = append(os.Environ(), "QUIRE_E2E_URL="+base, "QUIRE_E2E_FIXTURES="+string(env))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatalf("node: %v", err)
	}
	var passed, failed []string
	line := regexp.MustCompile(`^([✓✗]) \[([a-z0-9-]+)\] `)
	sc := bufio.NewScanner(io.Reader(out))
	for sc.Scan() {
		t.Log(sc.Text())
		switch m := line.FindStringSubmatch(sc.Text()); {
		case m == nil:
		case m[1] == "✓":
			passed = append(passed, m[2])
		default:
			failed = append(failed, m[2])
		}
	}
	runErr := cmd.Wait()
	if len(failed) > 0 {
		t.Errorf("failed: %v", failed)
	}
	if !slices.Equal(passed, cases) {
		t.Errorf("the cases that passed are not the cases expected:\n got  %v\n want %v", passed, cases)
	}
	if runErr != nil && !t.Failed() {
		t.Errorf("the e2e runner: %v", runErr)
	}
	if n := len(fx.requests()); n == 0 {
		t.Error("the browser run never reached the model: it did not use the real backend")
	}
}

// startBackend assembles `quire serve`: the HTTP host over the real runtime
// and a real SQLite file, the document library over its own, memory, the
// note and plan tools, talking to the fake Ollama server; and, for the
// doctor's case, the same kernel behind a doctor whose Ollama is not there.
func startBackend(t *testing.T, frontend string) (*fixtureSet, string) {
	fake := ollamatest.New(t, ollamatest.WithDelay(20*time.Millisecond), ollamatest.WithReplies(reply),
		ollamatest.WithResponder(func(req api.ChatRequest) (ollamatest.Turn, bool) {
			if turn, ok := compactReplies(req); ok {
				return turn, true
			}
			return respond(req)
		}))
	fake.AddModel(ollamatest.DefaultModel())
	fake.AddModel(ollamatest.Model{Name: embedModel, Capabilities: []string{"embedding"}, Family: "nomic-bert"})
	fakeURL, err := url.Parse(fake.URL())
	if err != nil {
		t.Fatal(err)
	}
	dataDir := t.TempDir()
	fx := &fixtureSet{fake: fake, fixtures: fixtures{Prompts: prompts(), Plan: planItems, Unsure: unsure, Todo: todoText,
		ProbePath: filepath.Join(dataDir, "probe.json")}}
	// The documents the browser adds by path, in real folders, indexed by
	// the real library into its own SQLite file.
	fx.DocsDir = writeDocs(t, "")
	fx.PanelDir = writeDocs(t, slowMark)
	fx.HoldDir = writeFiles(t, "papers", map[string]string{"big.md": "# Big\n\nA long read " + holdMark + ".\n", "later.md": "# Later\n\nRead after big.md.\n"})
	fx.NotesDir = writeFiles(t, "Notes", map[string]string{"inbox/a.md": "# A\n\nAn idea for the projects folder.\n"})
	docsDB, err := store.Open(t.Context(), filepath.Join(dataDir, "docs.db"))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := rag.Open(t.Context(), docsDB.DB(), &slowEmbedder{p: ollama.New(fakeURL, &http.Client{})})
	if err != nil {
		t.Fatal(err)
	}
	lib := library.New(idx, slog.New(slog.DiscardHandler))
	libCtx, stopLib := context.WithCancel(context.Background())
	lib.Start(libCtx)
	t.Cleanup(func() { lib.Close(); stopLib(); idx.Close(); docsDB.Close() })
	var mem *memory.Store
	var folder *notesFolder
	k := testkit.OpenWith(t, fake, filepath.Join(dataDir, "quire.db"), func(st *store.Store) []runtime.Option {
		var err error
		if mem, err = memory.Open(t.Context(), st.DB(), st); err != nil {
			t.Fatal(err)
		}
		folder = &notesFolder{store: st}
		return []runtime.Option{runtime.WithLogger(slog.New(slog.DiscardHandler)), runtime.WithAsker(askInPage),
			runtime.WithTools(folder, todoTools{}, newSlowPair(), caseTools{readLog{}}, mem, docTools{searchdocs.New(idx)}),
			runtime.WithContributors(mem.Contributor()), compactPolicy()}
	})
	t.Cleanup(func() { folder.SetNotesDir("") })
	mem.Attach(k.Runtime)
	serve := func(ollamaURL string, probe doctor.Ollama) string {
		diagnose := func(ctx context.Context) doctor.Report {
			return doctor.Run(ctx, doctor.Inputs{DataDir: dataDir, OllamaHost: ollamaURL, Model: testkit.Model}, probe,
				func(ctx context.Context) (string, bool, error) {
					d, err := store.Diagnose(ctx)
					return d.SQLiteVersion, d.FTS5, err
				})
		}
		h := httpapi.New(httpapi.Backend{Kernel: k.Runtime, Doctor: diagnose, Memory: mem, Documents: lib, Settings: folder, ProbePath: fx.ProbePath},
			os.DirFS(filepath.Join(frontend, "dist")), slog.New(slog.DiscardHandler))
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		return srv.URL
	}
	main := serve(fake.URL(), doctorProbe{k.Model})
	// An address where nothing listens: Ollama is not running.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + l.Addr().String()
	l.Close()
	downURL, _ := url.Parse(down)
	fx.DownURL = serve(down, doctorProbe{ollama.New(downURL, &http.Client{})})
	return fx, main
}

// fixtureSet is the fixtures and the fake model they were made for.
type fixtureSet struct {
	fixtures
	fake *ollamatest.Server
}

func (f *fixtureSet) requests() []ollamatest.Request { return f.fake.Requests() }

type docTools struct{ t tool.Tool }

func (d docTools) Tools() []tool.Tool { return []tool.Tool{d.t} }

// writeDocs makes a folder "papers" of the documents cases add: two files
// Quire reads (each with mark in its text) and one binary file behind a
// text extension.
func writeDocs(t *testing.T, mark string) string {
	t.Helper()
	return writeFiles(t, "papers", map[string]string{
		"garden.md": "# Garden\n\nTomatoes need sun.\n\n## Water\n\nWater the basil every morning.\nNever let the pots dry out.\n\n## Soil\n\nAdd compost in spring." + mark + "\n",
		"soil.txt":  "Compost feeds the soil.\nTurn the heap weekly.\n" + mark,
		"photo.txt": "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00",
	})
}

// writeFiles makes a folder named name in a new temporary folder, with
// files (paths relative to it), last changed an hour ago.
func writeFiles(t *testing.T, name string, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	old := time.Now().Add(-time.Hour)
	for rel, text := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
