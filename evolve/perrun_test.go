package evolve_test

import (
	"slices"
	"strings"
	"testing"

	"quire/kernel/event"
	"quire/kernel/protocol"
)

// TestTheActiveSetIsFrozenPerRun: a version activated while a reply is
// under way (here while the run waits for the user's answer, between its
// two steps) is not in that reply's later steps — they and their replay
// still say the version the run opened with, and the run's signals credit
// that version —, and the next run has the new one.
func TestTheActiveSetIsFrozenPerRun(t *testing.T) {
	r := newRig(t, map[string]string{"inbox/a.md": "# A\n", "done/.keep": ""}, false)
	ctx := t.Context()
	v1, err := r.evo.Propose(ctx, fragment("receipts", "File receipts by year."))
	if err != nil {
		t.Fatal(err)
	}
	activate(t, r, v1.ID, protocol.ScopeAll)
	v2, err := r.evo.Propose(ctx, fragment("receipts", "File receipts by month."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.evo.RecordEvaluation(ctx, protocol.EvaluationReport{Candidate: v2.ID, Scenarios: []protocol.ScenarioResult{{Name: "s"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.evo.Approve(ctx, v2.ID, protocol.Approval{}); err != nil {
		t.Fatal(err)
	}
	r.user.sayNo("not there, into archive")
	r.user.during = func() {
		r.user.during = nil // ask holds the user's lock: no other goroutine reads it meanwhile
		if _, err := r.evo.Activate(ctx, v2.ID, protocol.Activation{Scope: protocol.ScopeAll, Replaces: v1.ID}); err != nil {
			t.Error(err)
		}
	}
	s := r.chat(t)
	r.k.Ollama.Script(calling("m1", "move_note", `{"from":"inbox/a.md","to":"done/a.md"}`), saying("I did not move it."), saying("ok"))
	first := r.say(t, s, "move it")
	if r.user.asked() != 1 {
		t.Fatalf("asked %d times, want the one move", r.user.asked())
	}
	for n := 1; n <= 2; n++ {
		text := sent(t, r.k.Ollama, n)
		if !strings.Contains(text, "by year") || strings.Contains(text, "by month") {
			t.Fatalf("request %d of the run v2 was activated in says:\n%s", n, text)
		}
		if again := r.replayed(t, s, n); again != text {
			t.Fatalf("request %d replayed:\n%s\nwant what was sent:\n%s", n, again, text)
		}
	}
	sigs := r.signals(t, s)
	if len(sigs) == 0 {
		t.Fatal("the no gave no signal")
	}
	for _, sg := range sigs {
		if !slices.Equal(sg.Versions, []string{v1.ID}) {
			t.Fatalf("signal %+v credits %v, want the version the run was sent, %s", sg, sg.Versions, v1.ID)
		}
	}
	second := r.say(t, s, "and now?")
	if text := sent(t, r.k.Ollama, 3); !strings.Contains(text, "by month") || strings.Contains(text, "by year") {
		t.Fatalf("the run after the activation says:\n%s", text)
	}
	observed := map[string][]string{}
	for _, e := range r.k.Log(t, s) {
		if e.Type == event.EvolutionObserved {
			p, err := event.As[event.EvolutionObservedPayload](e)
			if err != nil {
				t.Fatal(err)
			}
			observed[e.RunID] = p.Versions
		}
	}
	if !slices.Equal(observed[first], []string{v1.ID}) || !slices.Equal(observed[second], []string{v2.ID}) {
		t.Fatalf("observed %v, want %s for run %s and %s for run %s", observed, v1.ID, first, v2.ID, second)
	}
}
