package runtime_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/runtime"
	"quire/kernel/tool"
	"quire/test/testkit"
)

// The model calls a read-only tool; the runtime runs it without asking, and
// the next request carries the assistant's call and then the tool's result.
func TestToolLoopSendsTheCallAndItsResultBackToTheModel(t *testing.T) {
	var got atomic.Value
	read := &fakeTool{spec: tool.Spec{Name: "read_note", Description: "Read a note.", Effects: tool.ReadFs, Idempotency: tool.Safe,
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}},
		run: func(_ context.Context, c tool.Call) (tool.Result, error) {
			got.Store(c)
			return tool.Result{Status: tool.Success, Content: "the note says 42"}, nil
		}}
	k := kit(t, withTools(read))
	turn := calling(`c1:read_note:{"path":"a.txt"}`)
	turn.Content = []string{"Let me look."}
	k.Ollama.Script(turn, saying("It says 42."))
	s := chat(t, k)
	run := say(t, k, s, "what is in a.txt?", "")
	evs := waitRuns(t, k, s, 1)

	if fin := finished(t, evs); fin.Reason != event.ReasonCompleted {
		t.Fatalf("run finished %+v", fin)
	}
	if read.runs() != 1 {
		t.Fatalf("tool ran %d times", read.runs())
	}
	if c, _ := got.Load().(tool.Call); c.ID != "c1" || !strings.Contains(string(c.Arguments), `"path":"a.txt"`) {
		t.Fatalf("tool got call %+v", c)
	}
	res := only[event.ToolResultPayload](t, evs, event.ToolResult)
	if len(res) != 1 || res[0].CallID != "c1" || res[0].Status != string(tool.Success) || res[0].Attempts != 1 {
		t.Fatalf("tool results %+v", res)
	}
	if n := testkit.Count(ofRun(evs, run), event.StepStarted); n != 2 {
		t.Fatalf("%d steps, want 2: %s", n, testkit.Types(evs))
	}

	reqs := requests(k)
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if len(reqs[0].Tools) != 1 || reqs[0].Tools[0].Function.Name != "read_note" {
		t.Fatalf("first request offers tools %+v", reqs[0].Tools)
	}
	want := `user:what is in a.txt? | assistant:Let me look. [call c1 read_note {"path":"a.txt"}] | tool:the note says 42 [for c1]`
	if got := transcript(reqs[1]); got != want {
		t.Fatalf("second request\n got %s\nwant %s", got, want)
	}
	if tm := toolMessages(reqs[1]); tm[0].ToolName != "read_note" {
		t.Fatalf("tool message names %q", tm[0].ToolName)
	}
}

// Calls of one reply run at once; the results go back in call order even
// when a later call finishes first.
func TestToolResultsGoBackInCallOrder(t *testing.T) {
	fastLogged, logged := signal()
	slow := &fakeTool{spec: tool.Spec{Name: "slow", Effects: tool.ReadFs, Idempotency: tool.Safe, Parallel: true},
		run: func(ctx context.Context, _ tool.Call) (tool.Result, error) {
			// Finish only once the fast call's result is in the log, so
			// the results are logged out of call order.
			select {
			case <-fastLogged:
			case <-ctx.Done():
				return tool.Result{}, ctx.Err()
			}
			return tool.Result{Status: tool.Success, Content: "slow result"}, nil
		}}
	fast := &fakeTool{spec: tool.Spec{Name: "fast", Effects: tool.ReadFs, Idempotency: tool.Safe, Parallel: true},
		run: replying("fast result")}
	k := kit(t, withTools(slow, fast))
	defer k.Runtime.Subscribe(func(u protocol.Update) {
		for _, e := range u.Events {
			if e.Type == string(event.ToolResult) && strings.Contains(string(e.Payload), `"callId":"c2"`) {
				logged()
			}
		}
	})()
	k.Ollama.Script(calling("c1:slow", "c2:fast"), saying("both done"))
	s := chat(t, k)
	say(t, k, s, "go", "")
	evs := waitRuns(t, k, s, 1)
	if fin := finished(t, evs); fin.Reason != event.ReasonCompleted {
		t.Fatalf("run finished %+v", fin)
	}
	var order []string
	for _, r := range only[event.ToolResultPayload](t, evs, event.ToolResult) {
		order = append(order, r.CallID)
	}
	if strings.Join(order, ",") != "c2,c1" {
		t.Fatalf("results logged in order %v; the test needs the slow call to finish last", order)
	}
	reqs := requests(k)
	tm := toolMessages(reqs[len(reqs)-1])
	if len(tm) != 2 || tm[0].ToolCallID != "c1" || tm[0].Content != "slow result" || tm[1].ToolCallID != "c2" || tm[1].Content != "fast result" {
		t.Fatalf("tool messages of the next request: %s", transcript(reqs[len(reqs)-1]))
	}
}

// A tool that ignores its context is cut at its Spec.Timeout with a result
// saying it took too long, and the turn goes on. While it hangs, the only
// stream slot stays free: another session's reply streams to the end.
func TestHungToolIsCutAtItsTimeoutAndDoesNotStarveStreaming(t *testing.T) {
	const timeout = time.Second
	hanging, hung := signal()
	release, unhang := signal()
	hang := &fakeTool{spec: tool.Spec{Name: "hang", Effects: tool.ReadFs, Idempotency: tool.Unsafe, Timeout: timeout},
		run: func(context.Context, tool.Call) (tool.Result, error) {
			hung()
			<-release // ignores ctx
			return tool.Result{Status: tool.Success, Content: "too late"}, nil
		}}
	k := kit(t, withTools(hang), runtime.WithStreams(1))
	t.Cleanup(unhang)
	k.Ollama.Script(calling("h1:hang"))
	a, b := chat(t, k), chat(t, k)
	say(t, k, a, "hang please", "")
	<-hanging

	// Another session streams while the tool hangs.
	say(t, k, b, "are you there?", "")
	evsB := waitRuns(t, k, b, 1)
	if fin := finished(t, evsB); fin.Reason != event.ReasonCompleted {
		t.Fatalf("other session finished %+v", fin)
	}
	if n := testkit.Count(logOf(t, k, a), event.ToolResult); n != 0 {
		t.Fatalf("the hung tool already has a result while the other session streamed")
	}
	k.Ollama.Script(saying("moving on")) // the reply to the step after the cut

	evs := waitRuns(t, k, a, 1)
	if fin := finished(t, evs); fin.Reason != event.ReasonCompleted {
		t.Fatalf("run finished %+v: %s", fin, testkit.Types(evs))
	}
	res := only[event.ToolResultPayload](t, evs, event.ToolResult)
	if len(res) != 1 || res[0].Status != string(tool.Failure) || !strings.Contains(res[0].Content, "took longer than 1s") || res[0].Attempts != 1 {
		t.Fatalf("result of the hung call %+v", res)
	}
	if d := time.Duration(res[0].DurationNS); d < timeout || d > timeout+2*time.Second {
		t.Fatalf("the hung call was cut after %s, want about %s", d, timeout)
	}
	msgs := only[event.AssistantMessagePayload](t, evs, event.AssistantMessage)
	if len(msgs) != 2 || msgs[1].Content != "moving on" {
		t.Fatalf("the turn did not go on after the cut: %+v", msgs)
	}
	reqs := requests(k)
	if tm := toolMessages(reqs[len(reqs)-1]); len(tm) != 1 || !strings.Contains(tm[0].Content, "took longer") {
		t.Fatalf("the model was not told the tool took too long: %s", transcript(reqs[len(reqs)-1]))
	}
	if hang.runs() != 1 {
		t.Fatalf("the unsafe hung tool ran %d times", hang.runs())
	}
}

// Only tools that declare themselves idempotent are retried, once.
func TestOnlyIdempotentToolsAreRetried(t *testing.T) {
	failOnce := func(fail func() (tool.Result, error)) func(context.Context, tool.Call) (tool.Result, error) {
		var n atomic.Int32
		return func(context.Context, tool.Call) (tool.Result, error) {
			if n.Add(1) == 1 {
				return fail()
			}
			return tool.Result{Status: tool.Success, Content: "worked the second time"}, nil
		}
	}
	unsafe := &fakeTool{spec: tool.Spec{Name: "append_line", Effects: tool.WriteFs, Idempotency: tool.Unsafe},
		run: failOnce(func() (tool.Result, error) { return tool.Result{}, errors.New("disk full") })}
	safe := &fakeTool{spec: tool.Spec{Name: "read_page", Effects: tool.ReadFs, Idempotency: tool.Safe},
		run: failOnce(func() (tool.Result, error) { return tool.Result{Status: tool.Failure, Content: "flaky"}, nil })}
	keyed := &fakeTool{spec: tool.Spec{Name: "put_note", Effects: tool.WriteFs, Idempotency: tool.Keyed},
		run: failOnce(func() (tool.Result, error) { return tool.Result{}, errors.New("timeout talking to disk") })}
	k := kit(t, withTools(unsafe, safe, keyed))
	k.Runtime.SetSettings(settings(func(s *runtime.Settings) { s.Profile = tool.Write }))
	k.Ollama.Script(calling("u1:append_line", "s1:read_page", "k1:put_note"), saying("ok"))
	s := chat(t, k)
	say(t, k, s, "go", "")
	evs := waitRuns(t, k, s, 1)

	byCall := map[string]event.ToolResultPayload{}
	for _, r := range only[event.ToolResultPayload](t, evs, event.ToolResult) {
		byCall[r.CallID] = r
	}
	if r := byCall["u1"]; unsafe.runs() != 1 || r.Status != string(tool.Failure) || r.Attempts != 1 || !strings.Contains(r.Content, "disk full") {
		t.Fatalf("unsafe tool: %d runs, result %+v", unsafe.runs(), r)
	}
	for _, c := range []struct {
		id string
		t  *fakeTool
	}{{"s1", safe}, {"k1", keyed}} {
		if r := byCall[c.id]; c.t.runs() != 2 || r.Status != string(tool.Success) || r.Attempts != 2 {
			t.Fatalf("%s tool: %d runs, result %+v", c.t.spec.Idempotency, c.t.runs(), r)
		}
	}
}

// A tool that panics gives a failure result instead of taking Quire down.
func TestPanickingToolGivesAFailure(t *testing.T) {
	boom := &fakeTool{spec: tool.Spec{Name: "boom", Effects: tool.ReadFs, Idempotency: tool.Unsafe},
		run: func(context.Context, tool.Call) (tool.Result, error) { panic("nil map") }}
	k := kit(t, withTools(boom))
	k.Ollama.Script(calling("b1:boom"), saying("sorry"))
	s := chat(t, k)
	say(t, k, s, "go", "")
	evs := waitRuns(t, k, s, 1)
	res := only[event.ToolResultPayload](t, evs, event.ToolResult)
	if len(res) != 1 || res[0].Status != string(tool.Failure) || !strings.Contains(res[0].Content, "nil map") {
		t.Fatalf("result %+v", res)
	}
	if fin := finished(t, evs); fin.Reason != event.ReasonCompleted {
		t.Fatalf("run finished %+v", fin)
	}
}
