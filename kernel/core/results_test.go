package core

import (
	"slices"
	"testing"

	"quire/kernel/event"
	"quire/kernel/tool"
)

// TestNextStepWaitsForEveryParallelCall: calls of a step may finish in any
// order; the next step starts only once the last one has.
func TestNextStepWaitsForEveryParallelCall(t *testing.T) {
	l := newLoop(t)
	l.open("r1", "hello", capsWith())
	step := l.reply("", call("c1", readTool), call("c2", readTool))
	if got := cmds[RunTool](step.Cmds); len(got) != 2 {
		t.Fatalf("cmds %v, want both calls dispatched together", step.Cmds)
	}
	step = l.result("c2", "second")
	if len(step.Records) != 0 || len(step.Cmds) != 0 {
		t.Fatalf("the step moved on with c1 running: %v %v", types(step.Records), step.Cmds)
	}
	l.wantPhase(ExecutingTools)
	step = l.result("c1", "first")
	wantTypes(t, step.Records, event.StepStarted)
	if want := []Cmd{StartStream{RunID: "r1", Step: 2}}; !slices.Equal(step.Cmds, want) {
		t.Fatalf("cmds %v, want %v", step.Cmds, want)
	}
}

// TestStrayToolResultsAreKernelErrors: a result that belongs to no running
// call is refused and changes nothing — in particular a second result does
// not count as the result of another call.
func TestStrayToolResultsAreKernelErrors(t *testing.T) {
	cases := []struct {
		name   string
		result ToolFinished
	}{
		{"an unknown call id", ToolFinished{RunID: "r1", CallID: "c9", Status: "success"}},
		{"a second result for the same call", ToolFinished{RunID: "r1", CallID: "c1", Status: "success", Content: "again"}},
		{"a call waiting for permission", ToolFinished{RunID: "r1", CallID: "c3", Status: "success"}},
		{"a call refused by the policy", ToolFinished{RunID: "r1", CallID: "c4", Status: "success"}},
		{"a running call of another run", ToolFinished{RunID: "r0", CallID: "c2", Status: "success"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := newLoop(t)
			l.strayFacts = true
			l.open("r1", "hello", capsWith())
			l.reply("", call("c1", readTool), call("c2", readTool), call("c3", writeTool), tool.Call{ID: "c4", Name: "nope", Arguments: []byte(`{}`)})
			l.result("c1", "first")
			before := clone(l.m)
			step := l.send(tc.result)
			wantTypes(t, step.Records, event.KernelError)
			if len(step.Cmds) != 0 || !slices.Equal(l.m.Run.Done, before.Run.Done) {
				t.Fatalf("a stray result changed the run: done %v, cmds %v", l.m.Run.Done, step.Cmds)
			}
			// c2 is still awaited: its own result is accepted.
			if step := l.result("c2", "second"); slices.Contains(types(step.Records), event.KernelError) {
				t.Fatalf("the real result was refused after a stray one: %v", types(step.Records))
			}
		})
	}
}

// TestModelKeepsItsOwnCalls: the Model does not share the slice of calls of
// the message it was built from, so a caller that reuses the message cannot
// change the loop's state.
func TestModelKeepsItsOwnCalls(t *testing.T) {
	m := Update(Model{}, Submitted{At: t0, Input: followUp("i1", "r1", "hello", capsWith())}).Model
	calls := []tool.Call{call("c1", readTool), call("c2", readTool)}
	m = Update(m, StreamFinished{At: t0.Add(1), RunID: "r1", Step: 1, Calls: calls}).Model
	calls[0].ID, calls[1].ID = "changed", "changed"
	if got := ids(m.Run.Calls); !slices.Equal(got, []string{"c1", "c2"}) {
		t.Fatalf("the Model's calls follow the message: %v", got)
	}
}
