package bench_test

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/runtime"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

// BenchmarkTurnAtLength is BenchmarkToolTurn's 20-step turn (no delay),
// the second of a session that already held n events (streamed deltas of earlier
// replies, which outnumber messages tenfold and are not sent to the model,
// so the request is the same at every length): a step's cost must not grow
// with the session (issue 30: LastSeqOf scanned it, five times a step).
// The 100k arm reports its time per turn over the 1k arm's.
func BenchmarkTurnAtLength(b *testing.B) {
	var short time.Duration
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			fake := ollamatest.New(b)
			fake.AddModel(ollamatest.DefaultModel())
			k := testkit.Open(b, fake, filepath.Join(b.TempDir(), "quire.db"),
				runtime.WithTools(tools{readNote{}}), runtime.WithLogger(slog.New(slog.DiscardHandler)))
			rt := k.Runtime
			finished := make(chan struct{}, 1)
			defer rt.Subscribe(func(u runtime.Update) {
				for _, e := range u.Events {
					if event.Type(e.Type) == event.RunFinished {
						select {
						case finished <- struct{}{}:
						default:
						}
					}
				}
			})()
			ctx := b.Context()
			turns := 0
			for b.Loop() {
				b.StopTimer()
				s, err := protocol.Run[protocol.Session](ctx, rt, "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "long"})
				if err != nil {
					b.Fatal(err)
				}
				earlier(b, k, s.ID, fake, n)
				select {
				case <-finished: // the earlier turns' end
				default:
				}
				// The first turn attaches the session (reads its log once,
				// as the first message after a start does); the second is
				// timed: the steps of a session in use.
				for turn := range 2 {
					fake.Script(script(0)...)
					if turn == 1 {
						b.StartTimer()
					}
					if _, err := protocol.Run[protocol.SendResult](ctx, rt, "", protocol.SendMessage,
						protocol.SendMessagePayload{Session: s.ID, Text: question}); err != nil {
						b.Fatal(err)
					}
					select {
					case <-finished:
					case <-time.After(time.Minute):
						b.Fatal("the run did not finish within a minute")
					}
					b.StopTimer()
				}
				if fake.Pending() != 0 {
					b.Fatalf("%d scripted turns unused", fake.Pending())
				}
				turns++
				b.StartTimer()
			}
			per := b.Elapsed() / time.Duration(turns)
			b.ReportMetric(float64(per)/steps/1e6, "ms/step")
			if n == 1_000 {
				short = per
			} else if short > 0 {
				b.ReportMetric(float64(per)/float64(short), "vs-1k")
			}
		})
	}
}

// earlier fills the session with one earlier turn whose reply streamed in
// about n deltas: a real turn's events (a one-step text reply), its deltas
// repeated. The reply sent to the model later is the message, not the
// deltas, so the request does not grow with n.
func earlier(b *testing.B, k *testkit.Kernel, session string, fake *ollamatest.Server, n int) {
	b.Helper()
	ctx := b.Context()
	tmpl, err := k.Store.Events(ctx, templateSession(b, k, fake), 1)
	if err != nil {
		b.Fatal(err)
	}
	var drafts []event.Draft
	flush := func() {
		if _, err := k.Store.Append(ctx, session, drafts...); err != nil {
			b.Fatal(err)
		}
		drafts = drafts[:0]
	}
	for _, e := range tmpl {
		payload, err := event.Decode(e)
		if err != nil {
			b.Fatal(err)
		}
		d := event.Draft{Type: e.Type, Time: e.Time, RunID: e.RunID, Payload: payload}
		if e.Type != event.AssistantDelta {
			drafts = append(drafts, d)
			continue
		}
		for range n / 5 {
			drafts = append(drafts, d)
			if len(drafts) == 1000 {
				flush()
			}
		}
	}
	flush()
}

// templateSession runs one text-only turn and returns its session.
func templateSession(b *testing.B, k *testkit.Kernel, fake *ollamatest.Server) string {
	b.Helper()
	ctx := b.Context()
	finished := make(chan struct{}, 1)
	defer k.Runtime.Subscribe(func(u runtime.Update) {
		for _, e := range u.Events {
			if event.Type(e.Type) == event.RunFinished {
				select {
				case finished <- struct{}{}:
				default:
				}
			}
		}
	})()
	s, err := protocol.Run[protocol.Session](ctx, k.Runtime, "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "template"})
	if err != nil {
		b.Fatal(err)
	}
	fake.Script(script(0)[steps-1:]...)
	if _, err := protocol.Run[protocol.SendResult](ctx, k.Runtime, "", protocol.SendMessage,
		protocol.SendMessagePayload{Session: s.ID, Text: question}); err != nil {
		b.Fatal(err)
	}
	select {
	case <-finished:
	case <-time.After(time.Minute):
		b.Fatal("the template turn did not finish within a minute")
	}
	return s.ID
}
