package cli

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"quire/config"
	"quire/internal/app"
	"quire/kernel/protocol"
)

func TestIndexAndSearchCommands(t *testing.T) {
	dir := t.TempDir()
	// No Ollama at all: the offline embedder makes the vectors.
	p, err := app.Open(t.Context(), config.NewStore(config.Config{DataDir: dir, OllamaHost: "http://127.0.0.1:1", Model: "m", NumCtx: 4096}),
		slog.New(slog.DiscardHandler), app.Owner)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	idx, err := p.Index(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(dir, "notes")
	os.MkdirAll(notes, 0o755)
	old := time.Now().Add(-time.Hour)
	for name, body := range map[string]string{"plan.md": "# Plan\n\n## Budget\n\nThe zeppelin budget is tight.\n", "photo.png": "\x89PNG\r\n"} {
		p := filepath.Join(notes, name)
		os.WriteFile(p, []byte(body), 0o644)
		os.Chtimes(p, old, old)
	}
	var out, errb strings.Builder
	if code := index(context.Background(), idx, []string{notes}, &out, &errb); code != 0 {
		t.Fatalf("index exit %d: %s %s", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "1 files indexed, 1 not indexed (1 processed in") || !strings.Contains(out.String(), `photo.png: unsupported format ".png"`) ||
		!strings.Contains(out.String(), "Embeddings: built-in offline embedder") || !strings.Contains(errb.String(), "[") {
		t.Errorf("index output:\n%s\nstderr:\n%q", out.String(), errb.String())
	}

	out.Reset()
	if code := search(context.Background(), idx, "zeppelin budget", 5, false, &out, &errb); code != 0 {
		t.Fatalf("search exit %d: %s", code, errb.String())
	}
	if first := strings.SplitN(out.String(), "\n", 2)[0]; first != "[1] notes/plan.md › Plan › Budget (lines 1–5): # Plan ## Budget The zeppelin budget is tight." {
		t.Errorf("search output %q", out.String())
	}
	out.Reset()
	if code := search(context.Background(), idx, "zeppelin", 1, true, &out, &errb); code != 0 {
		t.Fatal(code)
	}
	var data protocol.SearchResult
	if err := json.Unmarshal([]byte(out.String()), &data); err != nil || len(data.Hits) != 1 || data.Hits[0].Name != "notes/plan.md" {
		t.Errorf("json output %s (%v)", out.String(), err)
	}
	if code := search(context.Background(), idx, " ", 5, false, &out, &errb); code != 2 {
		t.Errorf("empty query exit %d", code)
	}
	if code := runIndex(context.Background(), nil, Env{Stdout: &out, Stderr: &errb}); code != 2 {
		t.Errorf("no paths exit %d", code)
	}
	errb.Reset()
	if code := index(context.Background(), idx, []string{filepath.Join(dir, "missing")}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "not there") {
		t.Errorf("missing path: exit %d, %q", code, errb.String())
	}
}
