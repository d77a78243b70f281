package runtime_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"quire/kernel/event"
	"quire/kernel/runtime"
	"quire/kernel/tool"
	"quire/test/testkit"
)

// Tools that did not declare themselves parallel-safe take turns; those that
// did run at once.
func TestOnlyParallelSafeToolsOverlap(t *testing.T) {
	for _, parallel := range []bool{false, true} {
		t.Run(map[bool]string{false: "serial", true: "parallel"}[parallel], func(t *testing.T) {
			var running, most, entered atomic.Int32
			both, bothIn := signal()
			waited, waitedIn := signal()
			var waiter atomic.Value // the call that waited its turn
			work := func(ctx context.Context, call tool.Call) (tool.Result, error) {
				n := running.Add(1)
				for {
					m := most.Load()
					if n <= m || most.CompareAndSwap(m, n) {
						break
					}
				}
				if n == 2 {
					bothIn()
				}
				first := entered.Add(1) == 1
				switch {
				case parallel:
					// Parallel calls meet: each returns only once both
					// are in, so calls that took turns never finish.
					select {
					case <-both:
					case <-time.After(testkit.Patience):
					}
				case first:
					// The first serial call holds its turn until the
					// other has found it held and waits: a second call
					// that starts instead is the overlap (both).
					select {
					case <-waited:
					case <-both:
					case <-time.After(testkit.Patience):
					}
				}
				running.Add(-1)
				return tool.Result{Status: tool.Success, Content: "ok"}, nil
			}
			a := &fakeTool{spec: tool.Spec{Name: "a", Effects: tool.ReadFs, Idempotency: tool.Safe, Parallel: parallel}, run: work}
			b := &fakeTool{spec: tool.Spec{Name: "b", Effects: tool.ReadFs, Idempotency: tool.Safe, Parallel: parallel}, run: work}
			k := kit(t, withTools(a, b), runtime.WithWaitsTurn(func(id string) { waiter.Store(id); waitedIn() }))
			k.Ollama.Script(calling("c1:a", "c2:b"), saying("done"))
			s := chat(t, k)
			say(t, k, s, "go", "")
			evs := waitRuns(t, k, s, 1)
			if fin := finished(t, evs); fin.Reason != event.ReasonCompleted {
				t.Fatalf("run finished %+v", fin)
			}
			want := int32(1)
			if parallel {
				want = 2
			}
			if got := most.Load(); got != want {
				t.Fatalf("at most %d calls ran at once, want %d", got, want)
			}
			if w, _ := waiter.Load().(string); parallel != (w == "") {
				t.Fatalf("the call that waited its turn: %q (parallel %v)", w, parallel)
			}
		})
	}
}
