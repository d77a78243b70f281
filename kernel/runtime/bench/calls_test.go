package bench_test

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"

	"quire/kernel/protocol"
	"quire/kernel/runtime"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

// BenchmarkInspectCall is what the inspector costs to open on the last
// reply of a conversation of `turns` turns: the run's list of calls
// (Calls), and one call in full (Call: the log read, the request built
// twice — this call and the one before, for the diff — with origins,
// estimates and bounds), from the real runtime over a SQLite file.
func BenchmarkInspectCall(b *testing.B) {
	for _, turns := range []int{10, 100} {
		b.Run(fmt.Sprintf("turns=%d", turns), func(b *testing.B) {
			fake := ollamatest.New(b)
			fake.AddModel(ollamatest.DefaultModel())
			k := testkit.Open(b, fake, filepath.Join(b.TempDir(), "quire.db"), runtime.WithLogger(slog.New(slog.DiscardHandler)))
			ctx := b.Context()
			s, err := protocol.Run[protocol.Session](ctx, k.Runtime, "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "bench"})
			if err != nil {
				b.Fatal(err)
			}
			var run string
			for i := range turns {
				r, err := protocol.Run[protocol.SendResult](ctx, k.Runtime, "", protocol.SendMessage,
					protocol.SendMessagePayload{Session: s.ID, Text: fmt.Sprintf("question %d about the garden and its soil", i)})
				if err != nil {
					b.Fatal(err)
				}
				run = r.RunID
				testkit.WaitRuns(b, k.Runtime, s.ID, i+1)
			}
			for b.Loop() {
				list, err := k.Runtime.Calls(ctx, s.ID, run)
				if err != nil || len(list.Calls) != 1 {
					b.Fatalf("calls %+v, %v", list, err)
				}
				c, err := k.Runtime.Call(ctx, s.ID, list.Calls[0].N)
				if err != nil || c.Call.MessageCount != 2*turns-1 || c.Call.Diff == nil {
					b.Fatalf("call: %d messages, %v", c.Call.MessageCount, err)
				}
			}
		})
	}
}
