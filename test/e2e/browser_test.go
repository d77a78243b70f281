//go:build e2e

// Package e2e runs the frontend's end-to-end cases in real Chromium against
// the real HTTP host: `quire serve`'s handler over the real runtime, a real
// SQLite file and the fake Ollama server. `make test` runs it after building
// the frontend.
package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

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

const (
	failPrompt = "/fail please"
	slowPrompt = "/slow count"
	// citePrompt's first request calls search_docs; the next cites [1] and [2]
	// (the reply the frontend's mock gives, e2e/mock-server.mjs CITE_REPLY).
	citePrompt = "/cite how do I water the basil?"
	citeReply  = "Water the basil every morning [1], and feed the soil with compost [2]."
)

var citeCalls sync.Map // prompt -> *int: requests seen for it

// rememberPrefix makes the model remember the rest as a preference (the
// memory panel's case): the first request for such a message calls the
// remember tool, the next (with its result) says so.
const rememberPrefix = "/remember "

// replies picks the fake model's answer by what the browser typed.
func replies() func(last string) (ollamatest.Turn, bool) {
	var mu sync.Mutex
	remembered := map[string]bool{}
	return func(last string) (ollamatest.Turn, bool) {
		if text, ok := strings.CutPrefix(last, rememberPrefix); ok {
			mu.Lock()
			defer mu.Unlock()
			if remembered[last] {
				return ollamatest.Turn{Content: []string{"I will remember that."}}, true
			}
			remembered[last] = true
			args, _ := json.Marshal(map[string]string{"kind": "preference", "text": text})
			return ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{Name: "remember", Arguments: args}}}, true
		}
		return reply(last)
	}
}

func reply(last string) (ollamatest.Turn, bool) {
	switch last {
	case failPrompt:
		return ollamatest.Turn{Content: []string{"Starting"}, Fail: ollamatest.Failure{Kind: ollamatest.FailErrorLine, After: 1,
			Message: "model runner has unexpectedly stopped"}}, true
	case citePrompt:
		n, _ := citeCalls.LoadOrStore(last, new(int))
		*n.(*int)++
		if *n.(*int) == 1 {
			return ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "cite-1", Name: searchdocs.Name,
				Arguments: []byte(`{"query":"water the basil every morning; compost for the soil"}`)}}}, true
		}
		return ollamatest.Turn{Content: []string{"Water the basil every morning [1], ", "and feed the soil with compost [2]."}}, true
	case slowPrompt:
		var words []string
		for i := range 60 {
			words = append(words, strconv.Itoa(i+1)+" ")
		}
		return ollamatest.Turn{Content: words, Delay: 150 * time.Millisecond}, true
	}
	return ollamatest.Turn{}, false
}

type doctorProbe struct{ p *ollama.Provider }

func (d doctorProbe) Version(ctx context.Context) (string, error)  { return d.p.Version(ctx) }
func (d doctorProbe) Models(ctx context.Context) ([]string, error) { return d.p.Models(ctx) }
func (d doctorProbe) Capabilities(ctx context.Context, m string) ([]string, error) {
	info, err := d.p.ModelInfo(ctx, m)
	return info.Capabilities, err
}

func TestBrowser(t *testing.T) {
	frontend, err := filepath.Abs("../../frontend")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(frontend, "dist", "index.html")); err != nil {
		t.Fatalf("frontend/dist is not built (run `make test`): %v", err)
	}
	fake := ollamatest.New(t, ollamatest.WithDelay(20*time.Millisecond), ollamatest.WithReplies(replies()), ollamatest.WithResponder(compactReplies))
	fake.AddModel(ollamatest.DefaultModel())
	dataDir := t.TempDir()
	// The documents the browser adds by path (the cases' DOC_FILES), in a
	// real folder, indexed by the real library into its own SQLite file.
	docsDir := writeDocs(t)
	docsDB, err := store.Open(t.Context(), filepath.Join(dataDir, "docs.db"))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := rag.Open(t.Context(), docsDB.DB(), nil)
	if err != nil {
		t.Fatal(err)
	}
	lib := library.New(idx, slog.New(slog.DiscardHandler))
	libCtx, stopLib := context.WithCancel(context.Background())
	lib.Start(libCtx)
	t.Cleanup(func() { lib.Close(); stopLib(); idx.Close(); docsDB.Close() })
	var mem *memory.Store
	k := testkit.OpenWith(t, fake, filepath.Join(dataDir, "quire.db"), func(st *store.Store) []runtime.Option {
		var err error
		if mem, err = memory.Open(t.Context(), st.DB(), st); err != nil {
			t.Fatal(err)
		}
		return []runtime.Option{runtime.WithLogger(slog.New(slog.DiscardHandler)),
			runtime.WithTools(caseTools{readNote{}}, mem, docTools{searchdocs.New(idx)}), runtime.WithContributors(mem.Contributor()), compactPolicy()}
	})
	mem.Attach(k.Runtime)
	model := k.Model
	diagnose := func(ctx context.Context) doctor.Report {
		return doctor.Run(ctx, doctor.Inputs{DataDir: dataDir, OllamaHost: fake.URL(), Model: "qwen3:4b"}, doctorProbe{model},
			func(ctx context.Context) (string, bool, error) {
				d, err := store.Diagnose(ctx)
				return d.SQLiteVersion, d.FTS5, err
			})
	}
	h := httpapi.New(httpapi.Backend{Kernel: k.Runtime, Doctor: diagnose, Memory: mem, Documents: lib}, os.DirFS(filepath.Join(frontend, "dist")), slog.New(slog.DiscardHandler))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "e2e/run.mjs")
	cmd.Dir = frontend
	cmd.Env = append(os.Environ(), "QUIRE_E2E_URL="+srv.URL, "QUIRE_E2E_FAIL_PROMPT="+failPrompt, "QUIRE_E2E_SLOW_PROMPT="+slowPrompt, "QUIRE_E2E_COMPACT_PROMPT="+compactPrompt,
		"QUIRE_E2E_DOCS_DIR="+docsDir, "QUIRE_E2E_CITE_PROMPT="+citePrompt)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatalf("node: %v", err)
	}
	var last string
	sc := bufio.NewScanner(io.Reader(out))
	for sc.Scan() {
		t.Log(sc.Text())
		if strings.TrimSpace(sc.Text()) != "" {
			last = sc.Text()
		}
	}
	runErr := cmd.Wait()
	m := regexp.MustCompile(`^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$`).FindStringSubmatch(strings.TrimSpace(last))
	if m == nil {
		t.Fatalf("the e2e runner did not report a summary (last line %q): %v", last, runErr)
	}
	passed, _ := strconv.Atoi(m[1])
	failed, _ := strconv.Atoi(m[2])
	if runErr != nil || failed > 0 || passed < 5 {
		t.Fatalf("browser e2e against the real backend: %s (%v)", last, runErr)
	}
	if n := len(fake.Requests()); n == 0 {
		t.Fatal("the browser run never reached the model: it did not use the real backend")
	}
}

type docTools struct{ t tool.Tool }

func (d docTools) Tools() []tool.Tool { return []tool.Tool{d.t} }

// writeDocs makes the folder "papers" the documents cases add: two files
// Quire reads and one binary file behind a text extension.
func writeDocs(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "papers")
	files := map[string]string{
		"garden.md": "# Garden\n\nTomatoes need sun.\n\n## Water\n\nWater the basil every morning.\nNever let the pots dry out.\n\n## Soil\n\nAdd compost in spring.\n",
		"soil.txt":  "Compost feeds the soil.\nTurn the heap weekly.\n",
		"photo.txt": "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00",
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, old, old)
	}
	return dir
}
