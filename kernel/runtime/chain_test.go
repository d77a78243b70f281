package runtime_test

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"quire/kernel/event"
	"quire/kernel/history"
	"quire/kernel/runtime"
	"quire/kernel/tool"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

var busy = ollamatest.Turn{Fail: ollamatest.Failure{Kind: ollamatest.FailStatus, Status: 503, Message: "server busy"}}

// A busy server (503) is retried after a backoff, and the step completes.
func TestBusyServerIsRetried(t *testing.T) {
	k := kit(t, runtime.WithJitter(func() float64 { return 0 }))
	k.Ollama.Script(busy, saying("hello after all"))
	s := chat(t, k)
	say(t, k, s, "hi", "")
	evs := waitRuns(t, k, s, 1)

	retries := only[event.StepRetriedPayload](t, evs, event.StepRetried)
	if len(retries) != 1 || retries[0].Step != 1 || retries[0].Attempt != 1 || !strings.Contains(retries[0].Reason, "busy") {
		t.Fatalf("retries %+v", retries)
	}
	// 0.5 s at attempt 0, times 0.8 with no jitter.
	if after := time.Duration(retries[0].AfterNS); after != 400*time.Millisecond {
		t.Fatalf("backoff %s, want 400ms", after)
	}
	var failedAt, retriedAt time.Time
	for _, e := range evs {
		if e.Type == event.StepRetried {
			failedAt = e.Time
		}
		if e.Type == event.AssistantMessage {
			retriedAt = e.Time
		}
	}
	if d := retriedAt.Sub(failedAt); d < 400*time.Millisecond {
		t.Fatalf("retried after %s, before the backoff", d)
	}
	if fin := finished(t, evs); fin.Reason != event.ReasonCompleted {
		t.Fatalf("run finished %+v", fin)
	}
	if n := len(requests(k)); n != 2 {
		t.Fatalf("%d requests, want 2", n)
	}
	if msgs := only[event.AssistantMessagePayload](t, evs, event.AssistantMessage); len(msgs) != 1 || msgs[0].Content != "hello after all" {
		t.Fatalf("replies %+v", msgs)
	}
}

// Handlers given by WithErrorHandlers are asked before the default chain;
// one that does not handle a failure passes it on.
func TestErrorHandlersArePluggable(t *testing.T) {
	var seen, passed atomic.Int32
	pass := func(_ context.Context, f runtime.Failure) (runtime.Verdict, bool) {
		passed.Add(1)
		return runtime.Verdict{}, false
	}
	now := func(_ context.Context, f runtime.Failure) (runtime.Verdict, bool) {
		if f.Class != runtime.ClassOverloaded {
			return runtime.Verdict{}, false
		}
		seen.Add(1)
		if f.Attempt >= 2 {
			return runtime.Verdict{Message: "Gave up after two quick tries."}, true
		}
		return runtime.Verdict{Retry: true, After: 0, Reason: "retry at once"}, true
	}
	k := kit(t, runtime.WithErrorHandlers(pass, now))

	// Two busy answers, then a good one: retried twice, at once.
	k.Ollama.Script(busy, busy, saying("ok"))
	s := chat(t, k)
	say(t, k, s, "hi", "")
	evs := waitRuns(t, k, s, 1)
	// The log says who decided each retry and how long it waited: the
	// default backoff would give its own reason and a wait above zero.
	retries := only[event.StepRetriedPayload](t, evs, event.StepRetried)
	if len(retries) != 2 || seen.Load() != 2 {
		t.Fatalf("retries %+v; the handler saw %d failures", retries, seen.Load())
	}
	for i, r := range retries {
		if r.Attempt != i+1 || r.Reason != "retry at once" || r.AfterNS != 0 {
			t.Fatalf("retry %d: %+v, want the handler's: at once", i+1, r)
		}
	}
	if fin := finished(t, evs); fin.Reason != event.ReasonCompleted {
		t.Fatalf("run finished %+v", fin)
	}

	// Three busy answers: the handler gives up with its own sentence.
	k.Ollama.Script(busy, busy, busy)
	say(t, k, s, "again", "")
	evs = waitRuns(t, k, s, 2)
	fins := only[event.RunFinishedPayload](t, evs, event.RunFinished)
	if fins[1].Reason != event.ReasonError || fins[1].Error != "Gave up after two quick tries." {
		t.Fatalf("second run finished %+v", fins[1])
	}
	if seen.Load() != 5 || passed.Load() != 5 {
		t.Fatalf("the handler saw %d failures and the one before it %d, want 5 each", seen.Load(), passed.Load())
	}
}

// A missing model fails at once, with a sentence saying how to get it.
func TestMissingModelFailsAtOnce(t *testing.T) {
	k := kit(t)
	k.Runtime.SetSettings(settings(func(s *runtime.Settings) { s.Model = "absent:1b" }))
	s := chat(t, k)
	say(t, k, s, "hi", "")
	evs := waitRuns(t, k, s, 1)
	fin := finished(t, evs)
	if fin.Reason != event.ReasonError || !strings.Contains(fin.Error, "ollama pull absent:1b") {
		t.Fatalf("run finished %+v", fin)
	}
	failed := only[event.StreamFailedPayload](t, evs, event.StreamFailed)
	if len(failed) != 1 || failed[0].Class != runtime.ClassModel {
		t.Fatalf("stream.failed %+v", failed)
	}
	if testkit.Count(evs, event.StepRetried) != 0 || len(requests(k)) != 1 {
		t.Fatalf("retried a missing model: %s, %d requests", testkit.Types(evs), len(requests(k)))
	}
}

// overflowKit is a kernel whose model context is so small (num_ctx 64, about
// 256 characters for the fake server) that a long message overflows it.
func overflowKit(t *testing.T, opts ...runtime.Option) *testkit.Kernel {
	k := kit(t, opts...)
	k.Runtime.SetSettings(settings(func(s *runtime.Settings) { s.NumCtx = 64 }))
	return k
}

var longMessage = strings.Repeat("a long paragraph that will not fit. ", 12)

// compacting returns a Compactor that replaces the session's whole history
// with summary, and the kernel it must use (set it once the kernel exists).
func compacting(summary string, calls *atomic.Int32) (runtime.Compactor, **testkit.Kernel) {
	var k *testkit.Kernel
	return func(ctx context.Context, session string) error {
		calls.Add(1)
		evs, err := k.Store.Events(ctx, session, 0)
		if err != nil {
			return err
		}
		var from, to int64 = -1, -1
		for _, e := range evs {
			if event.Projected(e.Type) {
				if from < 0 {
					from = e.Seq
				}
				to = e.Seq
			}
		}
		_, err = k.Store.Append(ctx, session, event.Draft{Type: event.HistoryReplace, Time: time.Now(),
			Payload: event.HistoryReplacePayload{From: from, To: to, Summary: summary}})
		return err
	}, &k
}

func TestContextOverflow(t *testing.T) {
	t.Run("without a compactor the run fails", func(t *testing.T) {
		k := overflowKit(t)
		s := chat(t, k)
		say(t, k, s, longMessage, "")
		evs := waitRuns(t, k, s, 1)
		fin := finished(t, evs)
		// A first message: the sentence names it, never "start a new chat".
		if fin.Reason != event.ReasonError || !strings.Contains(fin.Error, "Your message is too long") || strings.Contains(fin.Error, "new chat") {
			t.Fatalf("run finished %+v", fin)
		}
		if failed := only[event.StreamFailedPayload](t, evs, event.StreamFailed); len(failed) != 1 || failed[0].Class != runtime.ClassOverflow {
			t.Fatalf("stream.failed %+v", failed)
		}
		if testkit.Count(evs, event.StepRetried) != 0 {
			t.Fatalf("retried without compacting: %s", testkit.Types(evs))
		}
	})

	t.Run("a compactor that shrinks the history gets a retry", func(t *testing.T) {
		var calls atomic.Int32
		compact, kp := compacting("the user pasted a long paragraph", &calls)
		k := overflowKit(t, runtime.WithCompactor(compact))
		*kp = k
		s := chat(t, k)
		say(t, k, s, longMessage, "")
		evs := waitRuns(t, k, s, 1)
		if fin := finished(t, evs); fin.Reason != event.ReasonCompleted {
			t.Fatalf("run finished %+v: %s", fin, testkit.Types(evs))
		}
		retries := only[event.StepRetriedPayload](t, evs, event.StepRetried)
		if len(retries) != 1 || retries[0].Attempt != 1 || !strings.Contains(retries[0].Reason, "compacted") {
			t.Fatalf("retries %+v", retries)
		}
		reqs := requests(k)
		if len(reqs) != 2 || calls.Load() != 1 {
			t.Fatalf("%d requests, %d compactions", len(reqs), calls.Load())
		}
		if got := transcript(reqs[1]); got != "user:"+history.SummaryLabel+"the user pasted a long paragraph" {
			t.Fatalf("retried request: %s", got)
		}
	})

	t.Run("a compactor that does not shrink the history gets no retry", func(t *testing.T) {
		var calls atomic.Int32
		compact, kp := compacting(longMessage+" and more", &calls)
		k := overflowKit(t, runtime.WithCompactor(compact))
		*kp = k
		s := chat(t, k)
		say(t, k, s, longMessage, "")
		evs := waitRuns(t, k, s, 1)
		fin := finished(t, evs)
		if fin.Reason != event.ReasonError || !strings.Contains(fin.Error, "Your message is too long") || strings.Contains(fin.Error, "new chat") {
			t.Fatalf("run finished %+v", fin)
		}
		if testkit.Count(evs, event.StepRetried) != 0 || len(requests(k)) != 1 || calls.Load() != 1 {
			t.Fatalf("%s; %d requests; %d compactions", testkit.Types(evs), len(requests(k)), calls.Load())
		}
	})

	t.Run("a conversation past its first message is told to start anew", func(t *testing.T) {
		var calls atomic.Int32
		compact, kp := compacting(longMessage+" and more", &calls)
		k := kit(t, runtime.WithCompactor(compact))
		*kp = k
		k.Ollama.Script(saying("ok"))
		s := chat(t, k)
		say(t, k, s, "hi", "")
		waitRuns(t, k, s, 1)
		k.Runtime.SetSettings(settings(func(s *runtime.Settings) { s.NumCtx = 64 }))
		run := say(t, k, s, longMessage, "")
		fin := finished(t, ofRun(waitRuns(t, k, s, 2), run))
		if fin.Reason != event.ReasonError || !strings.Contains(fin.Error, "did not make it smaller") || !strings.Contains(fin.Error, "Start a new chat") {
			t.Fatalf("run finished %+v", fin)
		}
	})

	t.Run("tools that leave no room are left out, not refused", func(t *testing.T) {
		big := &fakeTool{spec: tool.Spec{Name: "big", Description: strings.Repeat("a very long description. ", 20)}, run: replying("")}
		k := overflowKit(t, withTools(big))
		s := chat(t, k)
		say(t, k, s, "hi", "")
		evs := waitRuns(t, k, s, 1)
		if fin := finished(t, evs); fin.Reason != event.ReasonCompleted {
			t.Fatalf("run finished %+v", fin)
		}
		if caps := only[event.InputReceivedPayload](t, evs, event.InputReceived)[0].Caps; len(caps.Tools) != 0 || !slices.Equal(caps.LeftOut, []string{"big"}) {
			t.Fatalf("tools %v, left out %v; want big left out", caps.Tools, caps.LeftOut)
		}
	})
}
