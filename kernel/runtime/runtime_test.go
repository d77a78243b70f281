package runtime_test

import (
	"context"
	"errors"

	"path/filepath"
	"strings"
	"testing"
	"time"

	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/runtime"
	"quire/kernel/store"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

const model = "qwen3:4b"

type harness struct {
	k     *testkit.Kernel
	rt    *runtime.Runtime
	store *store.Store
	fake  *ollamatest.Server
	path  string
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	return attach(t, fake, filepath.Join(t.TempDir(), "quire.db"))
}

func attach(t *testing.T, fake *ollamatest.Server, path string) *harness {
	t.Helper()
	k := testkit.Open(t, fake, path, runtime.WithFlushEvery(5*time.Millisecond))
	return &harness{k: k, rt: k.Runtime, store: k.Store, fake: fake, path: path}
}

// waitFinished waits until the session's log has runs terminal events and returns all events.
func (h *harness) waitFinished(t *testing.T, session string, runs int) []event.Event {
	t.Helper()
	return h.k.WaitRuns(t, session, runs)
}

func newSession(t *testing.T, rt *runtime.Runtime, title string) (protocol.Session, error) {
	t.Helper()
	return protocol.Run[protocol.Session](t.Context(), rt, "", protocol.CreateSession, protocol.CreateSessionPayload{Title: title})
}

func submit(t *testing.T, rt *runtime.Runtime, session, text string) (string, error) {
	t.Helper()
	r, err := protocol.Run[protocol.SendResult](t.Context(), rt, "", protocol.SendMessage, protocol.SendMessagePayload{Session: session, Text: text})
	return r.RunID, err
}

func runCmd(t *testing.T, rt *runtime.Runtime, typ string, payload any) error {
	t.Helper()
	_, err := protocol.Run[struct{}](t.Context(), rt, "", typ, payload)
	return err
}

func only[T any](t *testing.T, evs []event.Event, typ event.Type) []T {
	t.Helper()
	var out []T
	for _, e := range evs {
		if e.Type == typ {
			p, err := event.As[T](e)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, p)
		}
	}
	return out
}

func TestChatStreamsThroughTheLog(t *testing.T) {
	h := newHarness(t)
	h.fake.Script(ollamatest.Turn{Content: []string{"Hel", "lo ", "there"}, PromptEvalCount: 12, EvalCount: 3})
	s, err := newSession(t, h.rt, "greeting")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := submit(t, h.rt, s.ID, "hi"); err != nil {
		t.Fatal(err)
	}
	evs := h.waitFinished(t, s.ID, 1)
	if got := testkit.Types(evs); !strings.HasPrefix(got, "session.created input.received run.started user.message step.started assistant.delta") ||
		!strings.HasSuffix(got, "assistant.message checkpoint.done run.finished") {
		t.Fatalf("event sequence: %s", got)
	}
	var streamed string
	for _, d := range only[event.AssistantDeltaPayload](t, evs, event.AssistantDelta) {
		streamed += d.Content
	}
	msg := only[event.AssistantMessagePayload](t, evs, event.AssistantMessage)[0]
	if streamed != "Hello there" || msg.Content != "Hello there" {
		t.Fatalf("streamed %q, final %q", streamed, msg.Content)
	}
	if msg.Usage.PromptTokens != 12 || msg.Usage.OutputTokens != 3 || msg.DoneReason != "stop" {
		t.Fatalf("usage %+v reason %q", msg.Usage, msg.DoneReason)
	}
	fin := only[event.RunFinishedPayload](t, evs, event.RunFinished)[0]
	if fin.Reason != event.ReasonCompleted {
		t.Fatalf("finished %+v", fin)
	}

	// The second request carries the history projected from the log.
	h.fake.Script(ollamatest.Turn{Content: []string{"ok"}})
	if _, err := submit(t, h.rt, s.ID, "again"); err != nil {
		t.Fatal(err)
	}
	h.waitFinished(t, s.ID, 2)
	reqs := h.fake.Requests()
	last := reqs[len(reqs)-1].Chat
	var roles []string
	for _, m := range last.Messages {
		roles = append(roles, m.Role+":"+m.Content)
	}
	if got := strings.Join(roles, "|"); got != "user:hi|assistant:Hello there|user:again" {
		t.Fatalf("second request messages: %s", got)
	}
	if last.Truncate == nil || *last.Truncate || last.Options["num_ctx"] != float64(8192) {
		t.Fatalf("request must forbid silent truncation and set num_ctx: truncate=%v options=%v", last.Truncate, last.Options)
	}
}

func TestRunEndings(t *testing.T) {
	cases := []struct {
		name        string
		turn        ollamatest.Turn
		modelName   string
		cancel      error // cancel the run with this cause once streaming started
		wantReason  string
		wantError   string
		wantPartial string
	}{
		{"user stops mid-stream", ollamatest.Turn{Content: []string{"part", "ial"}, Fail: ollamatest.Failure{Kind: ollamatest.FailHang, After: 2}},
			model, runtime.ErrCancelledByUser, event.ReasonCancelled, "stopped by the user", "partial"},
		{"server dies mid-stream", ollamatest.Turn{Content: []string{"cut ", "off", "never"}, Fail: ollamatest.Failure{Kind: ollamatest.FailDrop, After: 2}},
			model, nil, event.ReasonError, "", "cut off"},
		{"error line mid-stream", ollamatest.Turn{Content: []string{"a", "b"}, Fail: ollamatest.Failure{Kind: ollamatest.FailErrorLine, After: 1, Message: "runner crashed"}},
			model, nil, event.ReasonError, "runner crashed", "a"},
		{"model missing", ollamatest.Turn{}, "absent:1b", nil, event.ReasonError, "ollama pull absent:1b", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.rt.SetSettings(runtime.Settings{Model: tc.modelName, NumCtx: 4096})
			h.fake.Script(tc.turn)
			s, _ := newSession(t, h.rt, "x")
			if tc.cancel != nil {
				started := make(chan struct{}, 1)
				unsub := h.rt.Subscribe(func(u protocol.Update) {
					for _, e := range u.Events {
						if e.Type == string(event.AssistantDelta) {
							select {
							case started <- struct{}{}:
							default:
							}
						}
					}
				})
				defer unsub()
				if _, err := submit(t, h.rt, s.ID, "go"); err != nil {
					t.Fatal(err)
				}
				<-started
				runCmd(t, h.rt, protocol.CancelRun, protocol.SessionRef{Session: s.ID})
			} else if _, err := submit(t, h.rt, s.ID, "go"); err != nil {
				t.Fatal(err)
			}
			evs := h.waitFinished(t, s.ID, 1)
			fins := only[event.RunFinishedPayload](t, evs, event.RunFinished)
			if len(fins) != 1 {
				t.Fatalf("%d terminal events", len(fins))
			}
			if fins[0].Reason != tc.wantReason || !strings.Contains(fins[0].Error, tc.wantError) {
				t.Fatalf("finished %+v, want reason %s and error containing %q", fins[0], tc.wantReason, tc.wantError)
			}
			msgs := only[event.AssistantMessagePayload](t, evs, event.AssistantMessage)
			if tc.wantPartial == "" {
				if len(msgs) != 0 {
					t.Fatalf("unexpected reply %+v", msgs)
				}
				return
			}
			if len(msgs) != 1 || msgs[0].Content != tc.wantPartial || !msgs[0].Interrupted {
				t.Fatalf("partial reply %+v, want %q marked interrupted", msgs, tc.wantPartial)
			}
		})
	}
}

func TestSubmitRules(t *testing.T) {
	h := newHarness(t)
	h.fake.Script(ollamatest.Turn{Content: []string{"slow"}, Fail: ollamatest.Failure{Kind: ollamatest.FailHang, After: 1}})
	s, _ := newSession(t, h.rt, "x")
	if _, err := submit(t, h.rt, s.ID, "   "); !errors.Is(err, runtime.ErrEmptyMessage) {
		t.Fatalf("empty message: %v", err)
	}
	first, err := submit(t, h.rt, s.ID, "first")
	if err != nil {
		t.Fatal(err)
	}
	// A follow-up while the first run streams is queued for the next run.
	second, err := submit(t, h.rt, s.ID, "second")
	if err != nil || second == first {
		t.Fatalf("follow-up while answering: %q %v (first %q)", second, err, first)
	}
	if _, err := submit(t, h.rt, "no-such-session", "x"); !errors.Is(err, store.ErrNoSession) {
		t.Fatalf("unknown session: %v", err)
	}
	// Closing the runtime ends the hanging run with the shutdown reason; the
	// queued follow-up then opens its run, which the shutdown ends too.
	h.rt.Close()
	evs, _ := h.store.Events(t.Context(), s.ID, 0)
	fins := only[event.RunFinishedPayload](t, evs, event.RunFinished)
	if len(fins) == 0 || fins[0].Reason != event.ReasonCancelled || !strings.Contains(fins[0].Error, "shutting down") {
		t.Fatalf("after Close: %+v", fins)
	}
}

// hangingRun opens a session whose run streams a piece of its reply and
// then hangs; it returns once the piece is logged, so a copy of the
// database taken then holds an open run, as a crash leaves it.
func hangingRun(t *testing.T, h *harness) protocol.Session {
	t.Helper()
	h.fake.Script(ollamatest.Turn{Content: []string{"par", "tial"}, Fail: ollamatest.Failure{Kind: ollamatest.FailHang, After: 1}})
	s, err := newSession(t, h.rt, "crashed")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := submit(t, h.rt, s.ID, "q"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, h, s.ID, event.AssistantDelta)
	return s
}

func TestRecoverClosesRunsLeftOpen(t *testing.T) {
	h := newHarness(t)
	s := hangingRun(t, h)
	h2 := attach(t, h.fake, crashCopy(t, h))
	for range 2 { // idempotent: a second recovery adds nothing
		if err := h2.rt.Recover(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	evs, _ := h2.store.Events(t.Context(), s.ID, 0)
	fins := only[event.RunFinishedPayload](t, evs, event.RunFinished)
	if len(fins) != 1 || fins[0].Reason != event.ReasonInterrupted {
		t.Fatalf("terminal events after recovery: %+v", fins)
	}
	// The session accepts new messages afterwards.
	if _, err := submit(t, h2.rt, s.ID, "again"); err != nil {
		t.Fatal(err)
	}
	h2.waitFinished(t, s.ID, 2)
}

// waitFor waits until the session's log has an event of type typ.
func waitFor(t *testing.T, h *harness, session string, typ event.Type) {
	t.Helper()
	h.k.Wait(t, session, string(typ), func(evs []event.Event) bool { return testkit.Count(evs, typ) > 0 })
}

func TestSubscribersSeeEveryEventInOrder(t *testing.T) {
	h := newHarness(t)
	h.fake.Script(ollamatest.Turn{Content: strings.Split(strings.Repeat("x", 40), "")})
	// One short run is far inside Watch's bound, so the updates can be read
	// after the run.
	watchCtx, stop := context.WithTimeout(t.Context(), testkit.Patience)
	defer stop()
	updates, _ := h.rt.Watch(watchCtx)
	s, err := newSession(t, h.rt, "x")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := submit(t, h.rt, s.ID, "go"); err != nil {
		t.Fatal(err)
	}
	evs := h.waitFinished(t, s.ID, 1)
	var seen []int64
	for len(seen) < len(evs) {
		u, ok := <-updates
		if !ok {
			t.Fatalf("watcher saw %d events, log has %d", len(seen), len(evs))
		}
		for _, e := range u.Events {
			seen = append(seen, e.Seq)
		}
	}
	stop()
	for u := range updates {
		for _, e := range u.Events {
			seen = append(seen, e.Seq)
		}
	}
	if len(seen) != len(evs) {
		t.Fatalf("watcher saw %d events, log has %d", len(seen), len(evs))
	}
	for i, seq := range seen {
		if seq != int64(i) {
			t.Fatalf("delivery out of order or with a gap: %v", seen)
		}
	}
}

func TestSessionsRenameDelete(t *testing.T) {
	h := newHarness(t)
	a, _ := newSession(t, h.rt, "  first   chat ")
	if a.Title != "first chat" {
		t.Fatalf("title %q", a.Title)
	}
	b, _ := newSession(t, h.rt, "")
	if b.Title != "New chat" {
		t.Fatalf("empty title became %q", b.Title)
	}
	if _, err := protocol.Run[protocol.Session](t.Context(), h.rt, "", protocol.RenameSession, protocol.RenameSessionPayload{Session: a.ID, Title: "renamed"}); err != nil {
		t.Fatal(err)
	}
	if err := runCmd(t, h.rt, protocol.DeleteSession, protocol.SessionRef{Session: b.ID}); err != nil {
		t.Fatal(err)
	}
	list, _ := h.rt.Sessions(t.Context())
	if len(list) != 1 || list[0].Title != "renamed" {
		t.Fatalf("sessions %+v", list)
	}
	// Rebuilt from the log alone after a restart.
	h.k.Close(t)
	h2 := attach(t, h.fake, h.path)
	list, _ = h2.rt.Sessions(t.Context())
	if len(list) != 1 || list[0].Title != "renamed" {
		t.Fatalf("after restart %+v", list)
	}

}
