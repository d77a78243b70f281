package compact_test

import (
	"testing"

	"quire/kernel/compact"
	"quire/kernel/event"
)

// benchInput is the request of step 60 of the long note-reading task: a
// fact, the latest request and 60 reads of about 1,000 characters.
func benchInput() compact.Input {
	return input(nil, 60, 1000)
}

// BenchmarkDecide is the pure decision made before every step: estimate
// each message, compute the pollution figures, decide, and find the spans.
func BenchmarkDecide(b *testing.B) {
	in := benchInput()
	var cal compact.Calibration
	p := compact.DefaultPolicy
	b.ReportAllocs()
	for b.Loop() {
		f := cal.Factor(in.Request.Model)
		fixed := 0
		for _, m := range in.Request.Messages[:len(in.Request.Messages)-len(in.History)] {
			fixed += compact.MessageTokens(m)
		}
		sized := make([]compact.Sized, len(in.History))
		for i, e := range in.History {
			sized[i] = compact.Sized{Entry: e, Tokens: int(float64(compact.MessageTokens(e.Message)) * f)}
		}
		fig := compact.Measure(fixed, sized, p.KeepRecent, 40960, p.LowValueTokens)
		d := compact.Decide(fig, p, false, false)
		if d.Compact {
			compact.Spans(in.History, in.Session, p.KeepRecent)
		}
	}
}

// BenchmarkCompactNothingToDo is what a step costs when the request is
// fine as it is (the common case): Compact with a window it fits in.
func BenchmarkCompactNothingToDo(b *testing.B) {
	in := benchInput()
	in.Request.ContextLen = 65536 // fill about 0.23: below every trigger
	c := compact.New()
	b.ReportAllocs()
	for b.Loop() {
		drafts, err := c.Compact(b.Context(), in)
		if err != nil || len(drafts) != 0 {
			b.Fatalf("%d drafts, %v", len(drafts), err)
		}
	}
}

// BenchmarkCompactDropLogs is a step that compacts without a model call:
// the 60 long reads become a stub.
func BenchmarkCompactDropLogs(b *testing.B) {
	in := benchInput()
	in.Request.ContextLen = 16384
	c := compact.New()
	b.ReportAllocs()
	for b.Loop() {
		drafts, err := c.Compact(b.Context(), in)
		if err != nil || len(drafts) == 0 {
			b.Fatalf("%d drafts, %v", len(drafts), err)
		}
		if p := drafts[0].Payload.(event.HistoryReplacePayload); p.Compaction.Strategy != compact.StrategyDropLogs {
			b.Fatalf("strategy %s", p.Compaction.Strategy)
		}
	}
}
