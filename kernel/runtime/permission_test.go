package runtime_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/runtime"
	"quire/kernel/tool"
	"quire/test/testkit"
)

func writeTool() *fakeTool {
	return &fakeTool{spec: tool.Spec{Name: "write_note", Description: "Write a note.", Effects: tool.WriteFs, Idempotency: tool.Unsafe},
		run: replying("written")}
}

// asker records the questions it gets and answers each with answer, which
// may block.
type asker struct {
	mu        sync.Mutex
	questions []runtime.Question
	returned  int
	returns   chan struct{} // a token each time ask returns (dropped when full: released reads the count)
	answer    func(ctx context.Context) (runtime.Answer, error)
}

func (a *asker) ask(ctx context.Context, q runtime.Question) (runtime.Answer, error) {
	a.mu.Lock()
	a.questions = append(a.questions, q)
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		a.returned++
		a.mu.Unlock()
		select {
		case a.returns <- struct{}{}:
		default:
		}
	}()
	return a.answer(ctx)
}

// released waits until ask has returned n times, failing after
// testkit.Patience.
func (a *asker) released(t *testing.T, n int) {
	t.Helper()
	timeout := time.After(testkit.Patience)
	for {
		if _, returned := a.asked(); returned >= n {
			return
		}
		select {
		case <-a.returns:
		case <-timeout:
			_, returned := a.asked()
			t.Fatalf("the Asker returned %d times, want %d: it was never released", returned, n)
		}
	}
}

func (a *asker) asked() ([]runtime.Question, int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]runtime.Question(nil), a.questions...), a.returned
}

func answering(ans runtime.Answer) *asker {
	return &asker{returns: make(chan struct{}, 1), answer: func(context.Context) (runtime.Answer, error) { return ans, nil }}
}

// neverAnswering blocks until the run's context ends.
func neverAnswering() *asker {
	return &asker{returns: make(chan struct{}, 1), answer: func(ctx context.Context) (runtime.Answer, error) {
		<-ctx.Done()
		return runtime.Answer{}, context.Cause(ctx)
	}}
}

// askTwoWrites runs a turn in which the model makes two write calls under
// the "ask" profile and waits for the run to end.
func askTwoWrites(t *testing.T, k *testkit.Kernel) (session string, evs []event.Event) {
	t.Helper()
	k.Ollama.Script(calling(`w1:write_note:{"path":"a.md"}`, `w2:write_note:{"path":"b.md"}`), saying("done"))
	s := chat(t, k)
	say(t, k, s, "write two notes", "")
	return s, waitRuns(t, k, s, 1)
}

func refusals(t *testing.T, evs []event.Event) map[string]event.ToolRefusedPayload {
	out := map[string]event.ToolRefusedPayload{}
	for _, r := range only[event.ToolRefusedPayload](t, evs, event.ToolRefused) {
		out[r.CallID] = r
	}
	return out
}

// Two calls that need permission in one reply make one question; allowing
// it runs both.
func TestPermissionOneQuestionForTheCallsOfAReply(t *testing.T) {
	w := writeTool()
	a := answering(runtime.Answer{Allowed: true})
	k := kit(t, withTools(w), runtime.WithAsker(a.ask))
	_, evs := askTwoWrites(t, k)

	qs, _ := a.asked()
	if len(qs) != 1 || len(qs[0].Calls) != 2 || qs[0].Calls[0].ID != "w1" || qs[0].Calls[1].ID != "w2" {
		t.Fatalf("questions %+v, want one about w1 and w2", qs)
	}
	if qs[0].RunID == "" || qs[0].Calls[0].Name != "write_note" {
		t.Fatalf("question %+v", qs[0])
	}
	reqd := only[event.PermissionRequestedPayload](t, evs, event.PermissionRequested)
	if len(reqd) != 1 || len(reqd[0].Calls) != 2 {
		t.Fatalf("permission.requested %+v", reqd)
	}
	if w.runs() != 2 || testkit.Count(evs, event.ToolResult) != 2 {
		t.Fatalf("allowed calls: %d runs, %d results", w.runs(), testkit.Count(evs, event.ToolResult))
	}
	if fin := finished(t, evs); fin.Reason != event.ReasonCompleted {
		t.Fatalf("run finished %+v", fin)
	}
}

// A call whose arguments do not match its schema is answered with the
// schema error as the reply arrives: the user is asked only about the valid
// call of the reply, and the invalid one never runs.
func TestPermissionIsNotAskedForAMalformedCall(t *testing.T) {
	w := writeTool()
	w.spec.Parameters = map[string]any{"type": "object", "required": []any{"path"},
		"properties": map[string]any{"path": map[string]any{"type": "string"}}}
	a := answering(runtime.Answer{Allowed: true})
	k := kit(t, withTools(w), runtime.WithAsker(a.ask))
	k.Ollama.Script(calling(`w1:write_note:{"path":7}`, `w2:write_note:{"path":"b.md"}`), saying("done"))
	s := chat(t, k)
	say(t, k, s, "write two notes", "")
	evs := waitRuns(t, k, s, 1)

	qs, _ := a.asked()
	if len(qs) != 1 || len(qs[0].Calls) != 1 || qs[0].Calls[0].ID != "w2" {
		t.Fatalf("questions %+v, want one about w2 only", qs)
	}
	r := refusals(t, evs)
	if r["w1"].Status != "failure" || !strings.Contains(r["w1"].Reason, "match its schema") {
		t.Fatalf("w1 refusal %+v", r["w1"])
	}
	if w.runs() != 1 {
		t.Fatalf("the tool ran %d times, want once (w2)", w.runs())
	}
	msgs := only[event.AssistantMessagePayload](t, evs, event.AssistantMessage)
	if c := msgs[0].ToolCalls; len(c) != 2 || c[0].Invalid == "" || c[1].Invalid != "" {
		t.Fatalf("the verdicts are not in the log with the calls: %+v", c)
	}
}

// The user's reason for saying no reaches the model as the calls' result.
func TestPermissionDeniedWithFeedbackTellsTheModelWhy(t *testing.T) {
	w := writeTool()
	a := answering(runtime.Answer{Allowed: false, Feedback: "not that folder"})
	k := kit(t, withTools(w), runtime.WithAsker(a.ask))
	_, evs := askTwoWrites(t, k)

	if w.runs() != 0 {
		t.Fatalf("a denied tool ran %d times", w.runs())
	}
	refused := refusals(t, evs)
	for _, id := range []string{"w1", "w2"} {
		r := refused[id]
		if r.Status != string(tool.Denied) || !strings.Contains(r.Reason, "not that folder") {
			t.Fatalf("refusal of %s: %+v", id, r)
		}
	}
	reqs := requests(k)
	tm := toolMessages(reqs[len(reqs)-1])
	if len(tm) != 2 || !strings.Contains(tm[0].Content, "not that folder") || !strings.Contains(tm[1].Content, "not that folder") {
		t.Fatalf("next request: %s", transcript(reqs[len(reqs)-1]))
	}
}

// Without an Asker (no UI) the default answer comes at once.
func TestPermissionWithoutAskerGetsTheDefaultAtOnce(t *testing.T) {
	for _, c := range []struct {
		dflt    string
		allowed bool
	}{{"", false}, {"deny", false}, {"allow", true}} {
		t.Run("default "+c.dflt, func(t *testing.T) {
			w := writeTool()
			k := kit(t, withTools(w))
			// The deadline is an hour, far past the wait's bound: only an
			// immediate default answer ends the run before the wait fails.
			limits := runtime.DefaultLimits
			limits.PermissionWaitNS = int64(time.Hour)
			k.Runtime.SetSettings(settings(func(s *runtime.Settings) { s.Limits, s.PermissionDefault = limits, c.dflt }))
			_, evs := askTwoWrites(t, k)
			ans := only[event.PermissionAnsweredPayload](t, evs, event.PermissionAnswered)
			if len(ans) != 1 || !ans[0].ByDefault || ans[0].Allowed != c.allowed || len(ans[0].CallIDs) != 2 {
				t.Fatalf("answers %+v", ans)
			}
			if c.allowed {
				if w.runs() != 2 {
					t.Fatalf("allowed by default, ran %d times", w.runs())
				}
			} else {
				if w.runs() != 0 {
					t.Fatalf("denied by default, ran %d times", w.runs())
				}
				for id, r := range refusals(t, evs) {
					if r.Status != string(tool.Denied) || !strings.Contains(r.Reason, "Nobody answered") {
						t.Fatalf("refusal of %s: %+v", id, r)
					}
				}
			}
			if fin := finished(t, evs); fin.Reason != event.ReasonCompleted {
				t.Fatalf("run finished %+v", fin)
			}
		})
	}
}

// An Asker that never answers: at the permission deadline a clock.tick
// gives the default answer, and the Asker is released when the run ends.
func TestPermissionDeadlineAnswersByDefault(t *testing.T) {
	const wait = 200 * time.Millisecond
	for _, c := range []struct {
		dflt    string
		allowed bool
	}{{"deny", false}, {"allow", true}} {
		t.Run("default "+c.dflt, func(t *testing.T) {
			w := writeTool()
			a := neverAnswering()
			k := kit(t, withTools(w), runtime.WithAsker(a.ask))
			limits := runtime.DefaultLimits
			limits.PermissionWaitNS = int64(wait)
			k.Runtime.SetSettings(settings(func(s *runtime.Settings) { s.Limits, s.PermissionDefault = limits, c.dflt }))
			_, evs := askTwoWrites(t, k)

			if testkit.Count(evs, event.ClockTick) == 0 {
				t.Fatalf("no clock.tick: %s", testkit.Types(evs))
			}
			var asked, answered time.Time
			for _, e := range evs {
				switch {
				case e.Type == event.PermissionRequested:
					asked = e.Time
				case e.Type == event.ClockTick && answered.IsZero():
					answered = e.Time
				}
			}
			if d := answered.Sub(asked); d < wait {
				t.Fatalf("the deadline answered after %s, before the %s it allows", d, wait)
			}
			if c.allowed && w.runs() != 2 || !c.allowed && w.runs() != 0 {
				t.Fatalf("default %s: tool ran %d times", c.dflt, w.runs())
			}
			if !c.allowed {
				for id, r := range refusals(t, evs) {
					if r.Status != string(tool.Denied) || !strings.Contains(r.Reason, "in time") {
						t.Fatalf("refusal of %s: %+v", id, r)
					}
				}
			}
			if fin := finished(t, evs); fin.Reason != event.ReasonCompleted {
				t.Fatalf("run finished %+v", fin)
			}
			// The Asker that was left waiting is released once the run ends.
			a.released(t, 1)
			if qs, returned := a.asked(); len(qs) != 1 || returned != 1 {
				t.Fatalf("the Asker was asked %d times and returned %d, want once", len(qs), returned)
			}
		})
	}
}

// A host can answer in-page (protocol.AnswerAsk) while the Asker waits; a
// second answer is a conflict.
func TestPermissionAnsweredByTheHost(t *testing.T) {
	for _, allowed := range []bool{true, false} {
		name := "deny"
		if allowed {
			name = "allow"
		}
		t.Run(name, func(t *testing.T) {
			w := writeTool()
			a := neverAnswering()
			k := kit(t, withTools(w), runtime.WithAsker(a.ask))
			k.Ollama.Script(calling(`w1:write_note:{"path":"a.md"}`, `w2:write_note:{"path":"b.md"}`), saying("done"))
			s := chat(t, k)
			say(t, k, s, "write two notes", "")
			evs := waitType(t, k, s, event.PermissionRequested)
			req := only[event.PermissionRequestedPayload](t, evs, event.PermissionRequested)[0]
			var ids []string
			for _, c := range req.Calls {
				ids = append(ids, c.ID)
			}
			// A question about other calls is not the open one.
			if err := runCmd(t, k.Runtime, protocol.AnswerAsk, protocol.AnswerPayload{Session: s, CallIDs: ids[:1], Allowed: true}); !errors.Is(err, protocol.ErrConflict) {
				t.Fatalf("an answer about only some of the asked calls: %v, want a conflict", err)
			}
			ans := protocol.AnswerPayload{Session: s, CallIDs: ids, Allowed: allowed, Feedback: "use drafts/"}
			if err := runCmd(t, k.Runtime, protocol.AnswerAsk, ans); err != nil {
				t.Fatal(err)
			}
			evs = waitRuns(t, k, s, 1)
			if err := runCmd(t, k.Runtime, protocol.AnswerAsk, ans); !errors.Is(err, protocol.ErrConflict) {
				t.Fatalf("a second answer: %v, want a conflict", err)
			}
			if allowed && w.runs() != 2 || !allowed && w.runs() != 0 {
				t.Fatalf("tool ran %d times", w.runs())
			}
			if !allowed {
				for id, r := range refusals(t, evs) {
					if !strings.Contains(r.Reason, "use drafts/") {
						t.Fatalf("refusal of %s: %+v", id, r)
					}
				}
			}
			if n := testkit.Count(evs, event.KernelError); n != 0 {
				t.Fatalf("%d kernel errors: %s", n, testkit.Types(evs))
			}
			if fin := finished(t, evs); fin.Reason != event.ReasonCompleted {
				t.Fatalf("run finished %+v", fin)
			}
		})
	}
}

// An Asker that ignores its context (a dialog nobody closes) does not keep
// a cancelled run open, and Close does not wait for it.
func TestAskerThatIgnoresCancelDoesNotBlockClose(t *testing.T) {
	asking, asked := signal()
	release, unblock := signal()
	a := &asker{answer: func(context.Context) (runtime.Answer, error) {
		asked()
		<-release
		return runtime.Answer{Allowed: true}, nil
	}}
	w := writeTool()
	k := kit(t, withTools(w), runtime.WithAsker(a.ask))
	t.Cleanup(unblock)
	k.Ollama.Script(calling(`w1:write_note:{"path":"a.md"}`))
	s := chat(t, k)
	say(t, k, s, "write", "")
	<-asking
	if err := runCmd(t, k.Runtime, protocol.CancelRun, protocol.SessionRef{Session: s}); err != nil {
		t.Fatal(err)
	}
	evs := waitRuns(t, k, s, 1)
	if fin := finished(t, evs); fin.Reason != event.ReasonCancelled {
		t.Fatalf("run finished %+v", fin)
	}
	if r := refusals(t, evs)["w1"]; r.Status != string(tool.Cancelled) {
		t.Fatalf("refusal %+v", r)
	}
	closed := make(chan struct{})
	go func() { k.Runtime.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(3 * time.Second):
		unblock()
		<-closed
		t.Fatal("Close waited for an Asker that ignores its context")
	}
	if w.runs() != 0 {
		t.Fatalf("the cancelled call ran")
	}
}

// TestTheSessionsListIsRightAtEveryEvent: the list a subscriber gets with an
// event is built from the state that event made (the sidebar's dot was one
// step late, and a host that answered a question at once was told none was
// open): a run.started is running, a permission.requested is waiting for
// the answer, a run.finished is idle.
func TestTheSessionsListIsRightAtEveryEvent(t *testing.T) {
	w := writeTool()
	a := neverAnswering()
	k := kit(t, withTools(w), runtime.WithAsker(a.ask))
	k.Ollama.Script(calling(`w1:write_note:{"path":"a.md"}`), saying("done"))
	var mu sync.Mutex
	seen := map[event.Type]string{}
	finished := make(chan struct{})
	stop := k.Runtime.Subscribe(func(u runtime.Update) {
		if len(u.Sessions) == 0 {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		for _, e := range u.Events {
			switch t := event.Type(e.Type); t {
			case event.RunStarted, event.PermissionRequested, event.RunFinished:
				seen[t] = u.Sessions[0].RunStatus
				if t == event.RunFinished {
					close(finished)
				}
			}
		}
	})
	defer stop()
	s := chat(t, k)
	say(t, k, s, "write a note", "")
	waitType(t, k, s, event.PermissionRequested)
	if err := runCmd(t, k.Runtime, protocol.AnswerAsk, protocol.AnswerPayload{Session: s, CallIDs: []string{"w1"}, Allowed: true}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-finished:
	case <-time.After(testkit.Patience):
		t.Fatal("no sessions list came with the run's end")
	}
	mu.Lock()
	defer mu.Unlock()
	want := map[event.Type]string{event.RunStarted: "streaming", event.PermissionRequested: "awaiting-permission", event.RunFinished: "idle"}
	for typ, status := range want {
		if seen[typ] != status {
			t.Errorf("the list sent with %s says %q, want %q (all: %v)", typ, seen[typ], status, seen)
		}
	}
}
