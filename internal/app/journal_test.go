package app

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"quire/config"
	"quire/internal/ollamatest"
)

// TestAMoveAStopInterruptedIsPutBackAtStart: a relinking move a crash
// stopped half way (one note rewritten, the rename not made) left its
// journal in the data folder; the next start rolls it back before any tool
// runs, so every file is as before, and the log says so.
func TestAMoveAStopInterruptedIsPutBackAtStart(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	dataDir, notesDir := t.TempDir(), t.TempDir()
	real, err := filepath.EvalSymlinks(notesDir)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(notesDir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.md", "# A\n")
	write("x.md", "see [[b]]\n") // rewritten before the stop
	write("y.md", "and [[a]]\n") // not yet
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	journal, _ := json.Marshal(map[string]any{"root": real, "pid": -1, "id": "chg_stopped", "from": "a.md", "to": "b.md", "edits": []map[string]any{
		{"at": "x.md", "moved": "x.md", "before": "see [[a]]\n", "afterSha256": sum("see [[b]]\n"), "temp": ".quire-chg_stopped-0.tmp"},
		{"at": "y.md", "moved": "y.md", "before": "and [[a]]\n", "afterSha256": sum("and [[b]]\n"), "temp": ".quire-chg_stopped-1.tmp"},
	}})
	journals := filepath.Join(dataDir, JournalFolder)
	os.MkdirAll(journals, 0o700)
	if err := os.WriteFile(filepath.Join(journals, "move-chg_stopped.json"), journal, 0o600); err != nil {
		t.Fatal(err)
	}
	write(".quire-chg_stopped-1.tmp", "and [[b]]\n") // staged, not renamed

	var log bytes.Buffer
	cfg := config.Config{DataDir: dataDir, OllamaHost: fake.URL(), Model: "qwen3:4b", NumCtx: 4096, NotesDir: notesDir}
	p, err := Open(t.Context(), config.NewStore(cfg), slog.New(slog.NewTextHandler(&log, nil)), Owner)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for name, want := range map[string]string{"a.md": "# A\n", "x.md": "see [[a]]\n", "y.md": "and [[a]]\n"} {
		if got, _ := os.ReadFile(filepath.Join(notesDir, name)); string(got) != want {
			t.Errorf("%s after the start: %q, want %q", name, got, want)
		}
	}
	for _, gone := range []string{filepath.Join(notesDir, ".quire-chg_stopped-1.tmp"), filepath.Join(journals, "move-chg_stopped.json")} {
		if _, err := os.Stat(gone); err == nil {
			t.Errorf("%s was left", gone)
		}
	}
	if !strings.Contains(log.String(), "rolled back") || !strings.Contains(log.String(), "chg_stopped") {
		t.Fatalf("the log does not say the move was rolled back:\n%s", log.String())
	}
}
