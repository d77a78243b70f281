package memory_test

import (
	"context"
	"sync"
	"testing"

	"quire/kernel/event"
	"quire/kernel/store"
	"quire/memory"
)

// reads is the log, noting where each Events read started.
type reads struct {
	*store.Store
	mu    sync.Mutex
	froms []int64
}

func (r *reads) Events(ctx context.Context, session string, from int64) ([]event.Event, error) {
	r.mu.Lock()
	r.froms = append(r.froms, from)
	r.mu.Unlock()
	return r.Store.Events(ctx, session, from)
}

// TestLearnerReadsOnlyTheFinishedRun: after a run of a long conversation,
// the post-run step reads the log from that run's start, not from the
// conversation's first event (that read, after every run, allocated the
// whole conversation each turn), unless it is to propose memories, which
// needs the whole conversation.
func TestLearnerReadsOnlyTheFinishedRun(t *testing.T) {
	cases := []struct {
		name      string
		learn     bool
		wantWhole bool
	}{
		{"searches only", false, false},
		{"learning on", true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, rigOptions{})
			s := r.chat(t)
			var last string
			for _, text := range []string{"one", "two", "three"} {
				last = r.say(t, s, text)
			}
			started := int64(-1)
			for _, e := range r.log(t, s) {
				if e.Type == event.RunStarted && e.RunID == last {
					started = e.Seq
				}
			}
			if started <= 0 {
				t.Fatalf("the last run's run.started is at %d", started)
			}
			log := &reads{Store: r.k.Store}
			mem, err := memory.Open(t.Context(), r.k.Store.DB(), log)
			if err != nil {
				t.Fatal(err)
			}
			mem.SetLearning(tc.learn)
			log.froms = nil
			mem.Learner(r.k.Model, "", 0).RunFinished(t.Context(), s, last, event.ReasonCompleted)
			whole := false
			for _, from := range log.froms {
				switch from {
				case started:
				case 0:
					whole = true
				default:
					t.Errorf("read the log from %d, want from the run's start %d (or 0 to propose)", from, started)
				}
			}
			if len(log.froms) == 0 || whole != tc.wantWhole {
				t.Errorf("reads from %v: whole log read %v, want %v", log.froms, whole, tc.wantWhole)
			}
		})
	}
}
