package assembly_test

import (
	"io"
	"log/slog"
	"os"
	"testing"

	"quire/assembly"
	"quire/eval"
	"quire/kernel/protocol"
)

// BenchmarkEvaluateFragment is one prompt fragment's evaluation over the
// whole eval set (every scenario without and with it, scripted model, four
// at a time as `quire eval` runs them): what the user waits for after
// pressing Evaluate. Recorded in docs/BENCHMARKS-NOTEBOOK.md.
func BenchmarkEvaluateFragment(b *testing.B) {
	ev := assembly.NewEvaluator(slog.New(slog.NewTextHandler(io.Discard, nil)), os.DirFS(evalsDir), nil, eval.CompareOptions{})
	c := protocol.Candidate{ID: "bench", Kind: protocol.CandidatePrompt, Artifact: protocol.Artifact{Prompt: &protocol.PromptFragment{Text: receiptsRule}}}
	for b.Loop() {
		r, err := ev.Evaluate(b.Context(), c, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		if n := len(r.Regressions()); n != 0 {
			b.Fatalf("the receipts rule breaks %d scenarios: %q", n, r.Regressions())
		}
		b.ReportMetric(float64(len(r.Scenarios)), "scenarios")
	}
}
