package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"quire/eval"
)

// TestEvalSet runs every scenario in evals/ through main's own wiring and the
// fake Ollama server, and prints the table and the summary line. It writes
// them to $QUIRE_EVAL_REPORT as well, which `make test` prints, because go
// test shows a passing package's output only with -v.
func TestEvalSet(t *testing.T) {
	all, err := eval.LoadDir("evals")
	if err != nil {
		t.Fatal(err)
	}
	list, err := eval.Select(all, eval.Options{Filter: os.Getenv("QUIRE_EVAL_FILTER")})
	if err != nil {
		t.Fatal(err)
	}
	report := eval.Run(t.Context(), list, evalBuilder(quietLog(io.Discard)), eval.Options{})
	var out bytes.Buffer
	report.Table(&out)
	out.WriteString(report.Summary() + "\n")
	t.Log("\n" + out.String())
	if path := os.Getenv("QUIRE_EVAL_REPORT"); path != "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range report.Results {
		if !r.Pass {
			t.Errorf("scenario %s (%s) failed:", r.Name, r.File)
			for _, f := range r.Failures {
				t.Errorf("  %s", f)
			}
		}
	}
}
