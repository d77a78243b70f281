package runtime_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/runtime"
	"quire/kernel/tool"
	"quire/test/testkit"
)

// Stopping a run while two tools run — one stops, one ignores its context —
// ends the run once, as cancelled by the user, by the cleanup bound: the
// stubborn tool is released only when the test ends, so the run can end
// only by abandoning it. Each call gets a cancelled result. A steer sent
// during the stopped run is not lost: it opens the next run.
func TestCancelWhileToolsRun(t *testing.T) {
	const cleanup = 100 * time.Millisecond
	var wg sync.WaitGroup
	wg.Add(2)
	var politeCause atomic.Value
	release, unblock := signal()
	polite := &fakeTool{spec: tool.Spec{Name: "polite", Effects: tool.ReadFs, Idempotency: tool.Safe, Parallel: true},
		run: func(ctx context.Context, _ tool.Call) (tool.Result, error) {
			wg.Done()
			<-ctx.Done()
			politeCause.Store(context.Cause(ctx).Error())
			return tool.Result{}, ctx.Err()
		}}
	stubborn := &fakeTool{spec: tool.Spec{Name: "stubborn", Effects: tool.ReadFs, Idempotency: tool.Safe, Parallel: true},
		run: func(context.Context, tool.Call) (tool.Result, error) {
			wg.Done()
			<-release // ignores ctx
			return tool.Result{Status: tool.Success, Content: "finally"}, nil
		}}
	k := kit(t, withTools(polite, stubborn), runtime.WithCleanup(cleanup))
	t.Cleanup(unblock)
	k.Ollama.Script(calling("p1:polite", "s1:stubborn"))
	s := chat(t, k)
	first := say(t, k, s, "look around", "")
	wg.Wait() // both tools are running

	steerRun := say(t, k, s, "also check the date", "steer")
	if steerRun != first {
		t.Fatalf("a steer during a run answers with run %s, want the open run %s", steerRun, first)
	}
	if err := runCmd(t, k.Runtime, protocol.CancelRun, protocol.SessionRef{Session: s}); err != nil {
		t.Fatal(err)
	}
	evs := waitRuns(t, k, s, 1)
	fins := only[event.RunFinishedPayload](t, ofRun(evs, first), event.RunFinished)
	if len(fins) != 1 || fins[0].Reason != event.ReasonCancelled || !strings.Contains(fins[0].Error, "stopped by the user") {
		t.Fatalf("the stopped run finished %+v", fins)
	}
	results := map[string]event.ToolResultPayload{}
	for _, r := range only[event.ToolResultPayload](t, ofRun(evs, first), event.ToolResult) {
		results[r.CallID] = r
	}
	for _, id := range []string{"p1", "s1"} {
		r, ok := results[id]
		if !ok || r.Status != string(tool.Cancelled) || !strings.Contains(r.Content, "stopped by the user") {
			t.Fatalf("result of %s: %+v (ok %v)", id, r, ok)
		}
	}
	if politeCause.Load() != "stopped by the user" {
		t.Fatalf("the tool saw cause %v", politeCause.Load())
	}
	if polite.runs() != 1 || stubborn.runs() != 1 {
		t.Fatalf("a cancelled safe tool was retried: polite %d, stubborn %d", polite.runs(), stubborn.runs())
	}

	// The steer opens the next run and is its first user message.
	evs = waitRuns(t, k, s, 2)
	var steered []string
	for _, e := range evs {
		if e.Type == event.UserMessage {
			p, _ := event.As[event.UserMessagePayload](e)
			if p.Text == "also check the date" {
				steered = append(steered, e.RunID)
			}
		}
	}
	if len(steered) != 1 || steered[0] == first {
		t.Fatalf("the steer was consumed by runs %v (the stopped run is %s)", steered, first)
	}
	fins = only[event.RunFinishedPayload](t, ofRun(evs, steered[0]), event.RunFinished)
	if len(fins) != 1 || fins[0].Reason != event.ReasonCompleted {
		t.Fatalf("the next run finished %+v", fins)
	}
	if n := testkit.Count(evs, event.RunFinished); n != 2 {
		t.Fatalf("%d run.finished events, want 2: %s", n, testkit.Types(evs))
	}
}

// Pressing Stop twice, or on an idle session, is harmless: the next run
// completes (a stray second cancel would stop it) and nothing is an error.
func TestCancelTwiceOrIdleIsHarmless(t *testing.T) {
	k := kit(t)
	s := chat(t, k)
	if err := runCmd(t, k.Runtime, protocol.CancelRun, protocol.SessionRef{Session: s}); err != nil {
		t.Fatal(err)
	}
	k.Ollama.Script(hanging("thinking"))
	say(t, k, s, "hi", "")
	waitType(t, k, s, event.AssistantDelta)
	for range 2 {
		if err := runCmd(t, k.Runtime, protocol.CancelRun, protocol.SessionRef{Session: s}); err != nil {
			t.Fatal(err)
		}
	}
	waitRuns(t, k, s, 1)
	k.Ollama.Script(saying("still here"))
	say(t, k, s, "again", "")
	evs := waitRuns(t, k, s, 2)
	fins := only[event.RunFinishedPayload](t, evs, event.RunFinished)
	if len(fins) != 2 || fins[0].Reason != event.ReasonCancelled || fins[1].Reason != event.ReasonCompleted {
		t.Fatalf("runs finished %+v, want cancelled then completed: %s", fins, testkit.Types(evs))
	}
	if n := testkit.Count(evs, event.KernelError); n != 0 {
		t.Fatalf("%d kernel errors: %s", n, testkit.Types(evs))
	}
}

// Close ends every run with the shutdown reason: the open one, and the
// follow-up that the cancel lets open after it.
func TestCloseEndsTheRunsQueuedBehindTheOpenOne(t *testing.T) {
	k := kit(t)
	k.Ollama.Script(hanging("first"), hanging("second"))
	s := chat(t, k)
	first := say(t, k, s, "one", "")
	waitType(t, k, s, event.AssistantDelta)
	second := say(t, k, s, "two", "")
	if second == first {
		t.Fatal("a follow-up during a run joined it")
	}
	// Close is bounded on its own (a run that does not stop in time is left
	// behind), so a Close that failed to cancel shows as runs without their
	// shutdown ending, below.
	k.Runtime.Close()
	evs := logOf(t, k, s)
	for _, run := range []string{first, second} {
		fins := only[event.RunFinishedPayload](t, ofRun(evs, run), event.RunFinished)
		if len(fins) != 1 || fins[0].Reason != event.ReasonCancelled || !strings.Contains(fins[0].Error, "shutting down") {
			t.Fatalf("run %s finished %+v: %s", run, fins, testkit.Types(evs))
		}
	}
}
