//go:build e2e

// Package e2e runs the frontend's end-to-end cases (frontend/e2e/cases/*.mjs)
// in real Chromium against `quire serve` as main wires it: the composition
// root (assembly) over a real data folder, host/httpapi over the
// backend it builds, and the fake Ollama server, which answers each case's
// prompt as script_test.go scripts it. Every case runs here; none needs a
// mock of the backend. `make test` runs it after building the frontend.
package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"testing/fstest"
	"time"

	"github.com/ollama/ollama/api"

	"quire/assembly"
	"quire/config"
	"quire/kernel/runtime"
	"quire/rag"
	"quire/test/ollamatest"
)

// cases are the slugs of every case in frontend/e2e/cases/*.mjs, in the
// order frontend/e2e/cases.mjs runs them: each must pass, against this
// backend, and no other may run. A case added there is added here.
var cases = []string{
	"send-stream", "sessions", "doctor-banner", "first-run-download", "settings-pull-chat", "reload", "run-error", "stop", "wails", "wails-handshake-refused",
	"protocol", "send-retry", "tool-card", "permission-deny", "permission-allow", "steer", "queue", "wails-permission",
	"notes-folder", "wails-notes-folder", "plan", "unsure", "move-undo", "documents-panel", "documents-cancel",
	"wails-drop", "compaction-marker", "memory-panel", "models-panel", "documents-e2e", "search-jump", "export-md", "citations",
	"question-forget", "question-long", "secret", "exfil", "early-words", "empty-retry", "settings", "documents-embedder",
	"changes-undo",
	"branch-edit", "branch-regenerate", "continue-killed", "inspector", "batch-review", "evolution", "comfort", "mcp-tool",
	"skills-settings",
	"settings-runner", // lane runner (issue 34)
	"standing-tasks",  // lane tasks (issue 33)
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
	checkInspectorCopy(t, fx, passed)
	checkMCPRecord(t, fx, passed)
	if n := len(fx.requests()); n == 0 {
		t.Error("the browser run never reached the model: it did not use the real backend")
	}
}

// The new user's models (the third quire serve): one installed that cannot
// use tools, and a second chat model to pull and choose in Settings.
const (
	noToolsModel = "gemma3:1b"
	secondModel  = "llama3.2:3b"
)

// startBackend starts `quire serve` as main.go wires it — the composition
// root (assembly) as an Owner over a temporary data folder, with Ollama
// at the fake server's address (a setting, as -ollama-host gives it), and
// host/httpapi over the backend it builds — adding only the cases' slow
// tools and a slow embedder. A second `quire serve`, over a data folder of
// its own, finds no Ollama at its address, for the doctor's case; a third
// is a new user's, whose Ollama has no model yet, for the first run.
func startBackend(t *testing.T, frontend string) (*fixtureSet, string) {
	fake := ollamatest.New(t, ollamatest.WithDelay(20*time.Millisecond), ollamatest.WithReplies(reply),
		ollamatest.WithResponder(func(req api.ChatRequest) (ollamatest.Turn, bool) {
			if turn, ok := compactReplies(req); ok {
				return turn, true
			}
			if turn, ok := settingsEcho(req); ok {
				return turn, true
			}
			if turn, ok := batchReplies(req); ok {
				return turn, true
			}
			if turn, ok := mcpReplies(req); ok {
				return turn, true
			}
			return respond(req)
		}))
	fake.AddModel(ollamatest.DefaultModel())
	fake.AddModel(ollamatest.Model{Name: config.DefaultEmbedModel, Capabilities: []string{"embedding"}, Family: "nomic-bert"})
	fake.AddPullable(ollamatest.Model{Name: "tiny-text", Size: 40_000_000}) // the models panel's case pulls it
	// A second embedding model, of another length, for the case that switches to it.
	fake.AddModel(ollamatest.Model{Name: "all-minilm", Capabilities: []string{"embedding"}, Family: "bert", EmbeddingLength: 24, Size: 46_000_000})
	dataDir := t.TempDir()
	fx := &fixtureSet{fake: fake, fixtures: fixtures{Prompts: prompts(), Plan: planItems, Unsure: unsure, Todo: todoText, Garden: gardenNote, Long: longText, CompactReads: compactReads,
		ProbePath: filepath.Join(dataDir, "probe.json"), NoTools: noToolsModel, Second: secondModel,
		InspectPath: filepath.Join(t.TempDir(), "inspected.json"), MCP: newMCPFixture(t)}, dataDir: dataDir}
	// The documents the browser adds by path, in real folders, indexed by
	// the real library.
	fx.DocsDir = writeDocs(t, "", nil)
	// The panel's folder also holds a file Quire does not read: skipped.
	fx.PanelDir = writeDocs(t, slowMark, map[string]string{"config.yml": "theme: dark\n"})
	fx.HoldDir = writeFiles(t, "papers", map[string]string{"big.md": "# Big\n\nA long read " + holdMark + ".\n", "later.md": "# Later\n\nRead after big.md.\n"})
	// projects/plan.md links to the note the move case moves, in both forms.
	fx.NotesDir = writeFiles(t, "Notes", map[string]string{"inbox/a.md": "# A\n\nAn idea for the projects folder.\n", "garden.md": gardenNote, "projects/plan.md": planNote})
	fx.BatchDir = writeBatchNotes(t)
	dist := os.DirFS(filepath.Join(frontend, "dist"))
	main := serve(t, dist, fx.ProbePath, []string{"-data-dir", dataDir, "-ollama-host", fake.URL()}, assembly.Extras{
		Runtime:   []runtime.Option{runtime.WithTools(newSlowPair(), caseTools{readLog{}})},
		Scenarios: evolutionSet(t),
		Embedder: func(picked rag.Embedder) rag.Embedder {
			if picked == nil {
				t.Fatalf("the fake Ollama has %s, yet Quire picked its offline embedder", config.DefaultEmbedModel)
			}
			return &slowEmbedder{Embedder: picked}
		},
	})
	// An address where nothing listens: Ollama is not running.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + l.Addr().String()
	l.Close()
	fx.DownURL = serve(t, dist, fx.ProbePath, []string{"-data-dir", t.TempDir(), "-ollama-host", down}, assembly.Extras{})
	// Each line of the pull a little apart, so its progress shows in the
	// page between "pulling manifest" and "success".
	empty := ollamatest.New(t, ollamatest.WithDelay(150*time.Millisecond), ollamatest.WithReplies(reply))
	// Installed: only a model that cannot use tools, so the first run
	// offers the download; a second chat model to pull from Settings' flow.
	empty.AddModel(ollamatest.Model{Name: noToolsModel, Capabilities: []string{"completion"}, Family: "gemma"})
	empty.AddPullable(ollamatest.DefaultModel())
	empty.AddPullable(ollamatest.Model{Name: secondModel, Capabilities: []string{"completion", "tools"}, ContextLength: 131072, Family: "llama"})
	fx.FirstURL = serve(t, dist, fx.ProbePath, []string{"-data-dir", t.TempDir(), "-ollama-host", empty.URL()}, assembly.Extras{})
	// A fourth, in a child process the killed reply's case has killed.
	fx.KillableURL, fx.KillControl = startKillable(t, frontend, fake.URL())
	return fx, main
}

// evolutionSet is the eval set the evolution case's candidate is evaluated
// over: two scenarios of the built-in set, and one it breaks — a stand-in
// for a rule of the user's that the candidate contradicts, which fails as
// soon as the model is told where receipts go.
func evolutionSet(t *testing.T) fs.FS {
	t.Helper()
	set := fstest.MapFS{"zz-receipts-stay-put.yaml": {Data: []byte(`class: normal
description: The user keeps receipts where they are; a rule that files them elsewhere breaks this.
setup:
  notes:
    - {path: inbox/receipt.md, text: "# Receipt\n"}
user:
  - say: "Where is my receipt?"
model:
  - say: "In inbox/receipt.md."
expect:
  runs: [completed]
  reply: ["inbox/receipt.md"]
  unseen: ["finance/receipts"]
`)}}
	for _, name := range []string{"normal-plain-question.yaml", "normal-file-a-note.yaml"} {
		b, err := os.ReadFile(filepath.Join("../../evals", name))
		if err != nil {
			t.Fatal(err)
		}
		set[name] = &fstest.MapFile{Data: b}
	}
	return set
}

// serve runs `quire serve` with flags until the test ends, as main.go's
// runServe does, and returns the link it prints (the address with this
// start's secret, which the cases open as the user does). The environment
// is not read: the flags are the whole configuration.
func serve(t *testing.T, dist fs.FS, probePath string, flags []string, extras assembly.Extras) string {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	link, done, err := launch(ctx, dist, probePath, flags, extras)
	if err != nil {
		stop()
		t.Fatalf("quire serve: %v", err)
	}
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil && !t.Failed() {
			t.Errorf("quire serve: %v", err)
		}
	})
	return link
}

// launch starts `quire serve` with flags, as main.go's runServe does, until
// ctx ends; it returns the link it prints, and done, which says how serving
// ended once the parts are closed. The killed reply's child process runs
// it too (kill_test.go), where no test is at hand.
func launch(ctx context.Context, dist fs.FS, probePath string, flags []string, extras assembly.Extras) (string, <-chan error, error) {
	cfg, err := config.Load(flag.NewFlagSet("quire serve", flag.ContinueOnError), flags, func(string) (string, bool) { return "", false })
	if err != nil {
		return "", nil, err
	}
	log := slog.New(slog.DiscardHandler)
	p, err := assembly.OpenWith(ctx, config.NewStore(cfg), log, assembly.Owner, extras)
	if err != nil {
		return "", nil, err
	}
	if err := p.DatabaseError(); err != nil {
		p.Close()
		return "", nil, fmt.Errorf("the database: %w", err)
	}
	srv := p.Serve(p.ServeBackend(ctx, probePath), dist, log)
	ready, served, done := make(chan string, 1), make(chan error, 1), make(chan error, 1)
	go func() {
		served <- srv.ListenAndServe(ctx, "127.0.0.1:0", func(link string) { ready <- link })
		p.Close()
		done <- <-served
	}()
	select {
	case link := <-ready:
		return link, done, nil
	case err := <-served:
		served <- err // for done
		return "", nil, err
	}
}

// fixtureSet is the fixtures and the fake model they were made for.
type fixtureSet struct {
	fixtures
	fake    *ollamatest.Server
	dataDir string // the main quire serve's data folder
}

func (f *fixtureSet) requests() []ollamatest.Request { return f.fake.Requests() }

// writeDocs makes a folder "papers" of the documents cases add: two files
// Quire reads (each with mark in its text), one binary file behind a text
// extension, and the extra files.
func writeDocs(t *testing.T, mark string, extra map[string]string) string {
	t.Helper()
	files := map[string]string{
		"garden.md": "# Garden\n\nTomatoes need sun.\n\n## Water\n\nWater the basil every morning.\nNever let the pots dry out.\n\n## Soil\n\nAdd compost in spring." + mark + "\n",
		"soil.txt":  "Compost feeds the soil.\nTurn the heap weekly.\n" + mark,
		"photo.txt": "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00",
	}
	maps.Copy(files, extra)
	return writeFiles(t, "papers", files)
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
