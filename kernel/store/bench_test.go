package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"quire/kernel/event"
	"quire/kernel/history"
	"quire/kernel/store"
)

var tb0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func benchStore(b *testing.B) *store.Store {
	b.Helper()
	s, err := store.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	if _, _, err := s.CreateSession(context.Background(), "s", "bench", tb0, nil, nil); err != nil {
		b.Fatal(err)
	}
	return s
}

func delta(i int) event.Draft {
	return event.Draft{Type: event.AssistantDelta, Time: tb0, RunID: "r", Payload: event.AssistantDeltaPayload{Content: fmt.Sprintf("token %d ", i)}}
}

// BenchmarkAppendOne is one durable append: one event, one transaction.
func BenchmarkAppendOne(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	d := event.Draft{Type: event.UserMessage, Time: tb0, Payload: event.UserMessagePayload{Text: "a short message from the user"}}
	for b.Loop() {
		if _, err := s.Append(ctx, "s", d); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendBatchedDeltas appends streamed deltas in batches, as the
// runtime does, and reports events per second.
func BenchmarkAppendBatchedDeltas(b *testing.B) {
	for _, size := range []int{10, 100} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) {
			s := benchStore(b)
			ctx := context.Background()
			batch := make([]event.Draft, size)
			for i := range batch {
				batch[i] = delta(i)
			}
			for b.Loop() {
				if _, err := s.Append(ctx, "s", batch...); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*size)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// fill writes n events into session s: a conversation where every tenth
// event is a message and the rest are deltas, as real logs look.
func fill(b *testing.B, s *store.Store, session string, n int) {
	b.Helper()
	ctx := context.Background()
	var batch []event.Draft
	for i := 1; i < n; i++ {
		switch {
		case i%10 == 1:
			batch = append(batch, event.Draft{Type: event.UserMessage, Time: tb0, Payload: event.UserMessagePayload{Text: fmt.Sprintf("question %d about my notes", i)}})
		case i%10 == 0:
			batch = append(batch, event.Draft{Type: event.AssistantMessage, Time: tb0, RunID: "r", Payload: event.AssistantMessagePayload{Content: fmt.Sprintf("answer %d with some words in it", i), Model: "m"}})
		default:
			batch = append(batch, delta(i))
		}
		if len(batch) == 1000 || i == n-1 {
			if _, err := s.Append(ctx, session, batch...); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
}

// BenchmarkOpenAndFold100k opens the database, reads a 100,000-event session
// and folds it into the model's history: what reopening a long chat costs.
func BenchmarkOpenAndFold100k(b *testing.B) {
	path := filepath.Join(b.TempDir(), "fold.db")
	ctx := context.Background()
	s, err := store.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	s.CreateSession(ctx, "s", "long", tb0, nil, nil)
	fill(b, s, "s", 100_000)
	s.Close()
	b.ResetTimer()
	for b.Loop() {
		s, err := store.Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		msgs, err := history.NewProjector(s).Messages(ctx, "s")
		if err != nil || len(msgs) != 19_999 { // 10,000 questions and 9,999 answers
			b.Fatalf("%d messages, %v", len(msgs), err)
		}
		s.Close()
	}
}

// BenchmarkProjection10k projects a session of 10,000 messages, cold (a new
// projector) and cached (unchanged log).
func BenchmarkProjection10k(b *testing.B) {
	s := benchStore(b)
	fill(b, s, "s", 50_000) // 10,000 messages among 50,000 events
	ctx := context.Background()
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			if _, err := history.NewProjector(s).Messages(ctx, "s"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		p := history.NewProjector(s)
		if _, err := p.Messages(ctx, "s"); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := p.Messages(ctx, "s"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkProjectionCached1k is the cached case at a tenth of the size: the
// same time as at 10k shows the cache hit does not grow with the history.
func BenchmarkProjectionCached1k(b *testing.B) {
	s := benchStore(b)
	fill(b, s, "s", 5_000)
	ctx := context.Background()
	p := history.NewProjector(s)
	if _, err := p.Messages(ctx, "s"); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := p.Messages(ctx, "s"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFollowReplay reads a 100,000-event session through a cursor from
// seq 0, as a reconnecting window does, and reports events per second.
func BenchmarkFollowReplay(b *testing.B) {
	s := benchStore(b)
	fill(b, s, "s", 100_000)
	feed := event.NewFeed(s)
	b.ResetTimer()
	for b.Loop() {
		ctx, cancel := context.WithCancel(context.Background())
		evs, _ := feed.Follow(ctx, "s", 0)
		n := 0
		for e := range evs {
			n++
			if e.Seq == 99_999 {
				break
			}
		}
		cancel()
		if n != 100_000 {
			b.Fatalf("followed %d events", n)
		}
	}
	b.ReportMetric(float64(b.N*100_000)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkCheck1M is the check of a 1,000,000-event log (its size in MB
// is reported): the full integrity_check every owner's Open makes, against
// the quick_check of the log a reader makes (store.go, checkLog; on this
// file, which holds only the log, the two are the same).
func BenchmarkCheck1M(b *testing.B) {
	path := filepath.Join(b.TempDir(), "check.db")
	ctx := context.Background()
	s, err := store.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	s.CreateSession(ctx, "s", "long", tb0, nil, nil)
	fill(b, s, "s", 1_000_000)
	if _, err := s.DB().Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		full bool
	}{{"quick_check", false}, {"integrity_check", true}} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				if err := s.Check(ctx, tc.full); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(st.Size())/1e6, "MB")
		})
	}
	// What a start scans besides the check: SessionsToRecover's one pass.
	b.Run("sessions_to_recover", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := s.SessionsToRecover(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSearchSaid searches what was said in 1,000 conversations of 20
// messages each (20,000 messages, the replies 40-odd words): a word in
// every conversation, a rare one, and a prefix as it is being typed.
func BenchmarkSearchSaid(b *testing.B) {
	s, err := store.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	ctx := context.Background()
	for c := range 1000 {
		id := fmt.Sprintf("c%04d", c)
		if _, _, err := s.CreateSession(ctx, id, "chat "+id, tb0, nil, nil); err != nil {
			b.Fatal(err)
		}
		drafts := make([]event.Draft, 0, 20)
		for m := range 10 {
			drafts = append(drafts,
				event.Draft{Type: event.UserMessage, Time: tb0, Payload: event.UserMessagePayload{Text: fmt.Sprintf("question %d about the garden budget and note %d", m, c)}},
				event.Draft{Type: event.AssistantMessage, Time: tb0, Payload: event.AssistantMessagePayload{DoneReason: "stop",
					Content: fmt.Sprintf("The garden budget in note %d is kept in plan.md under Goals; water the basil every morning, feed the soil with compost in spring, and move the tomatoes to the sunny bed before May. Reply %d.", c, m)}})
		}
		if _, err := s.Append(ctx, id, drafts...); err != nil {
			b.Fatal(err)
		}
	}
	for _, q := range []struct{ name, query string }{{"common", "garden budget"}, {"rare", "note 517"}, {"prefix", "tomat"}} {
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				hits, err := s.SearchSaid(ctx, q.query, 0)
				if err != nil || len(hits) == 0 {
					b.Fatalf("%q: %d hits, %v", q.query, len(hits), err)
				}
			}
		})
	}
}

// BenchmarkOpenAfterCleanEnd is an owner's start of the log after a run
// that ended cleanly (Open, SessionsToRecover, Close), on an empty file —
// the floor — and on one of 1,000,000 events in 1,000 sessions, each with
// its runs: issue 30's start must not grow with the file. The large arm
// reports its time over the floor's.
func BenchmarkOpenAfterCleanEnd(b *testing.B) {
	ctx := context.Background()
	var floor time.Duration
	for _, n := range []int{0, 1_000_000} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "quire.db")
			s, err := store.Open(ctx, path)
			if err != nil {
				b.Fatal(err)
			}
			const sessions = 1000
			for k := range min(n, sessions) {
				id := fmt.Sprintf("s%04d", k)
				if _, _, err := s.CreateSession(ctx, id, id, tb0, nil, nil); err != nil {
					b.Fatal(err)
				}
				run := fmt.Sprintf("r%d", k)
				if _, err := s.Append(ctx, id, event.Draft{Type: event.RunStarted, Time: tb0, RunID: run, Payload: event.RunStartedPayload{}}); err != nil {
					b.Fatal(err)
				}
				fill(b, s, id, n/sessions-2)
				if _, err := s.Append(ctx, id, event.Draft{Type: event.RunFinished, Time: tb0, RunID: run, Payload: event.RunFinishedPayload{Reason: "completed"}}); err != nil {
					b.Fatal(err)
				}
			}
			s.Close()
			st, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				s, err := store.Open(ctx, path)
				if err != nil {
					b.Fatal(err)
				}
				if open, _, err := s.SessionsToRecover(ctx); err != nil || len(open) > 0 {
					b.Fatalf("open runs %v: %v", open, err)
				}
				s.Close()
			}
			per := b.Elapsed() / time.Duration(b.N)
			b.ReportMetric(float64(st.Size())/1e6, "MB")
			if n == 0 {
				floor = per
			} else if floor > 0 {
				b.ReportMetric(float64(per)/float64(floor), "vs-empty")
			}
		})
	}
}
