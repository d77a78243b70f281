package bench_test

import (
	"testing"

	"quire/kernel/compact"
	"quire/kernel/runtime"
	"quire/test/ollamatest"
)

// BenchmarkCompactionPerStep is what asking the compaction before every
// step costs in the real runtime, end to end: the same 20-step turn with no
// chunk delay, without and with runtime.WithCompaction (whose decision is
// "nothing to do" at every step of this short turn, the common case: it
// rebuilds the request, folds the history with seqs, measures and decides).
// The second arm reports the microseconds added per step.
func BenchmarkCompactionPerStep(b *testing.B) {
	fake := ollamatest.New(b)
	fake.AddModel(ollamatest.DefaultModel())
	var plain float64
	b.Run("without", func(b *testing.B) {
		plain = float64(quireArm(b, fake, 0)) / steps
		b.ReportMetric(plain/1e6, "ms/step")
	})
	b.Run("with", func(b *testing.B) {
		with := float64(quireArm(b, fake, 0, runtime.WithCompaction(compact.New()))) / steps
		b.ReportMetric(with/1e6, "ms/step")
		if plain > 0 {
			b.ReportMetric((with-plain)/1e3, "added-µs/step")
		}
	})
}
