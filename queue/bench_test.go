package queue_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"quire/kernel/protocol"
	"quire/queue"
	"quire/test/ollamatest"
)

// BenchmarkBatch is a batch of 24 notes through 1, 2 and 4 workers with the
// fake model: each worker's run is two model calls (propose, then the
// closing words), each streamed in chunks the fake server spaces by delay
// (0: Quire's own cost alone; 20ms: a model that takes time, where workers
// overlap). tasks/min is the figure in docs/BENCHMARKS-NOTEBOOK.md.
func BenchmarkBatch(b *testing.B) {
	const notes = 24
	for _, delay := range []time.Duration{0, 20 * time.Millisecond} {
		for _, workers := range []int{1, 2, 4} {
			b.Run(fmt.Sprintf("delay=%s/workers=%d", delay, workers), func(b *testing.B) {
				fake := ollamatest.New(b, script(fileUnder), ollamatest.WithDelay(delay))
				fake.AddModel(ollamatest.DefaultModel())
				dir := b.TempDir()
				inbox(b, dir, notes)
				w := openStreams(b, fake, filepath.Join(b.TempDir(), "quire.db"), dir, workers, queue.WithWorkers(workers))
				start := time.Now()
				for b.Loop() {
					batch, err := w.Q.Start(b.Context(), "inbox")
					if err != nil {
						b.Fatal(err)
					}
					if end := until(b, w.Q, batch.ID, protocol.BatchReviewing); end.Done != notes {
						b.Fatalf("batch ended %+v", end)
					}
				}
				b.ReportMetric(float64(notes*b.N)/time.Since(start).Minutes(), "tasks/min")
			})
		}
	}
}
