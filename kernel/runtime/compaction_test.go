package runtime_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"quire/kernel/compact"
	"quire/kernel/event"
	"quire/kernel/history"
	"quire/kernel/runtime"
	"quire/test/testkit"
)

// compaction is a Compaction whose answer a test chooses; it records what
// it was shown.
type compaction struct {
	mu     sync.Mutex
	inputs []compact.Input
	answer func(in compact.Input) ([]event.Draft, error)
}

func (c *compaction) Compact(_ context.Context, in compact.Input) ([]event.Draft, error) {
	c.mu.Lock()
	c.inputs = append(c.inputs, in)
	c.mu.Unlock()
	return c.answer(in)
}

// firstTurnSummarised is a compaction that, on the second turn, replaces
// the first turn (user + reply) with the summary "the user said hello".
func firstTurnSummarised() *compaction {
	return &compaction{answer: func(in compact.Input) ([]event.Draft, error) {
		if len(in.History) < 3 {
			return nil, nil
		}
		return []event.Draft{{Type: event.HistoryReplace, Payload: event.HistoryReplacePayload{
			From: in.History[0].Seq, To: in.History[1].Seq, Summary: "the user said hello",
			Compaction: &event.CompactionRecord{Strategy: compact.StrategySummarise, Trigger: compact.TriggerSize}}}}, nil
	}}
}

// TestCompactionBeforeAStepShapesItsRequest: a replace the compaction
// returns before a step is appended with the run's id, the step's request
// is built after it (the model sees the summary, never the replaced
// message), and Request(n) rebuilds exactly that request from the log.
func TestCompactionBeforeAStepShapesItsRequest(t *testing.T) {
	c := firstTurnSummarised()
	k := kit(t, runtime.WithCompaction(c))
	s := chat(t, k)
	say(t, k, s, "hello", "")
	waitRuns(t, k, s, 1)
	run := say(t, k, s, "what did I say?", "")
	evs := waitRuns(t, k, s, 2)

	reps := only[event.HistoryReplacePayload](t, evs, event.HistoryReplace)
	if len(reps) != 1 {
		t.Fatalf("%d replaces, want 1", len(reps))
	}
	for _, e := range evs {
		if e.Type == event.HistoryReplace && e.RunID != run {
			t.Fatalf("the replace carries run %q, want %q", e.RunID, run)
		}
	}
	reqs := requests(k)
	last := transcript(reqs[len(reqs)-1])
	if !strings.Contains(last, history.SummaryLabel+"the user said hello") || strings.Contains(last, "user:hello |") {
		t.Fatalf("the second request does not show the summary in place of the first turn: %s", last)
	}
	got, err := k.Runtime.Request(t.Context(), s, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Messages) != len(reqs[1].Messages) || !strings.HasPrefix(got.Messages[0].Content, history.SummaryLabel) {
		t.Fatalf("Request(2) is not what was sent: %+v", got.Messages)
	}
	// What the compaction was shown: the request as it would go, and the
	// history with the seqs of its events.
	c.mu.Lock()
	defer c.mu.Unlock()
	in := c.inputs[len(c.inputs)-1]
	if in.Session != s || in.Forced || in.Model == nil || len(in.History) != 3 || in.History[2].Message.Content != "what did I say?" {
		t.Fatalf("compaction input %+v", in)
	}
}

// TestCompactionFailureDoesNotStopTheStep: a compaction that fails before
// a step leaves the history as it is and the step goes on.
func TestCompactionFailureDoesNotStopTheStep(t *testing.T) {
	c := &compaction{answer: func(compact.Input) ([]event.Draft, error) { return nil, errors.New("disk full") }}
	k := kit(t, runtime.WithCompaction(c))
	s := chat(t, k)
	say(t, k, s, "hello", "")
	evs := waitRuns(t, k, s, 1)
	if f := finished(t, evs); f.Reason != event.ReasonCompleted {
		t.Fatalf("run ended %+v", f)
	}
	if n := testkit.Count(evs, event.HistoryReplace); n != 0 {
		t.Fatalf("%d replaces after a failed compaction", n)
	}
}
