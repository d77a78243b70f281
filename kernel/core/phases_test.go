package core

import (
	"slices"
	"testing"
	"time"

	"quire/kernel/event"
	"quire/kernel/tool"
)

// phaseState is a Model reached by driving Update from Idle with realistic
// messages.
type phaseState struct {
	name  string
	phase Phase
	build func(l *loop)
}

var phaseStates = []phaseState{
	{"idle, fresh", Idle, func(l *loop) {}},
	{"idle, after a run, an inject queued", Idle, func(l *loop) {
		l.open("r1", "hello", capsWith())
		l.reply("hi")
		l.send(CheckpointDone{RunID: "r1"})
		l.send(Submitted{Input: inject("i-inj", "by the way")})
	}},
	{"streaming", Streaming, func(l *loop) {
		l.open("r1", "hello", capsWith())
	}},
	{"streaming, a follow-up queued", Streaming, func(l *loop) {
		l.open("r1", "hello", capsWith())
		l.send(Submitted{Input: followUp("i-next", "r2", "and then?", capsWith())})
	}},
	{"streaming, stopping", Streaming, func(l *loop) {
		l.open("r1", "hello", capsWith())
		l.send(CancelRequested{Cause: "user"})
	}},
	{"awaiting permission, a read in flight", AwaitingPermission, func(l *loop) {
		l.open("r1", "hello", capsWith())
		l.reply("", call("c1", readTool), call("c2", writeTool))
	}},
	{"awaiting permission, nothing in flight", AwaitingPermission, func(l *loop) {
		l.open("r1", "hello", capsWith())
		l.reply("", call("c2", writeTool))
	}},
	{"executing tools", ExecutingTools, func(l *loop) {
		l.open("r1", "hello", capsWith())
		l.reply("", call("c1", readTool), call("c2", readTool))
	}},
	{"executing tools, one of two done", ExecutingTools, func(l *loop) {
		l.open("r1", "hello", capsWith())
		l.reply("", call("c1", readTool), call("c2", readTool))
		l.result("c1", "one")
	}},
	{"executing tools, stopping", ExecutingTools, func(l *loop) {
		l.open("r1", "hello", capsWith())
		l.reply("", call("c1", readTool))
		l.send(CancelRequested{Cause: "user"})
	}},
	{"executing tools, steer queued", ExecutingTools, func(l *loop) {
		l.open("r1", "hello", capsWith())
		l.reply("", call("c1", readTool))
		l.send(Submitted{Input: steer("i-steer", "r3", "use the other note", capsWith())})
	}},
	{"closing", Closing, func(l *loop) {
		l.open("r1", "hello", capsWith())
		l.reply("hi")
	}},
	{"closing, stopping", Closing, func(l *loop) {
		l.open("r1", "hello", capsWith())
		l.reply("hi")
		l.send(CancelRequested{Cause: "user"})
	}},
}

// phaseMsg is a message to try in every state. nonsense says whether, in
// the Model it is sent to, it must be refused with a kernel.error.
type phaseMsg struct {
	name     string
	build    func(m Model, at time.Time) Msg
	nonsense func(m Model) bool
}

// runOf is the run a message "for this run" names: the open run, or in an
// idle loop the run that just ended.
func runOf(m Model) string {
	if m.Open() {
		return m.Run.ID
	}
	return "r1"
}

func inFlight(m Model) []string { return (&stepper{m: m}).inFlight() }

func firstOr(ids []string, or string) string {
	if len(ids) > 0 {
		return ids[0]
	}
	return or
}

func always(Model) bool { return true }
func never(Model) bool  { return false }
func unless(p Phase) func(Model) bool {
	return func(m Model) bool { return m.Phase != p }
}

var phaseMsgs = []phaseMsg{
	{"submitted follow-up", func(m Model, at time.Time) Msg {
		return Submitted{At: at, Input: followUp("i-fu", "r9", "another thing", capsWith())}
	}, never},
	{"submitted steer", func(m Model, at time.Time) Msg {
		return Submitted{At: at, Input: steer("i-st", "r8", "rather this", capsWith())}
	}, never},
	{"submitted inject", func(m Model, at time.Time) Msg {
		return Submitted{At: at, Input: inject("i-in", "fyi")}
	}, never},
	{"submitted with an unknown intent", func(m Model, at time.Time) Msg {
		return Submitted{At: at, Input: Input{InputID: "i-x", Intent: "shout", Text: "HEY", RunID: "r7", Caps: capsWith()}}
	}, always},

	{"stream delta for this run", func(m Model, at time.Time) Msg {
		return StreamDelta{At: at, RunID: runOf(m)}
	}, unless(Streaming)},
	{"stream delta for another run", func(m Model, at time.Time) Msg {
		return StreamDelta{At: at, RunID: "other"}
	}, always},

	{"stream finished with text", func(m Model, at time.Time) Msg {
		return StreamFinished{At: at, RunID: runOf(m), Step: m.Run.Step, Content: "done", PromptTokens: 10, OutputTokens: 5}
	}, unless(Streaming)},
	{"stream finished with calls", func(m Model, at time.Time) Msg {
		return StreamFinished{At: at, RunID: runOf(m), Step: m.Run.Step, Calls: []tool.Call{call("c7", readTool), call("c8", writeTool)}}
	}, unless(Streaming)},
	{"stream finished, interrupted", func(m Model, at time.Time) Msg {
		return StreamFinished{At: at, RunID: runOf(m), Step: m.Run.Step, Content: "par", Interrupted: true}
	}, unless(Streaming)},
	{"stream finished for another step", func(m Model, at time.Time) Msg {
		return StreamFinished{At: at, RunID: runOf(m), Step: m.Run.Step + 1, Content: "late"}
	}, always},
	{"stream finished for another run", func(m Model, at time.Time) Msg {
		return StreamFinished{At: at, RunID: "other", Step: m.Run.Step, Content: "stray"}
	}, always},

	{"stream failed", func(m Model, at time.Time) Msg {
		return StreamFailed{At: at, RunID: runOf(m), Step: m.Run.Step, Class: "server", Message: "The model broke."}
	}, unless(Streaming)},
	{"stream failed for another step", func(m Model, at time.Time) Msg {
		return StreamFailed{At: at, RunID: runOf(m), Step: m.Run.Step + 1, Class: "server", Message: "late"}
	}, always},
	{"stream failed for another run", func(m Model, at time.Time) Msg {
		return StreamFailed{At: at, RunID: "other", Step: m.Run.Step, Class: "server", Message: "stray"}
	}, always},

	{"step retried", func(m Model, at time.Time) Msg {
		return StepRetried{At: at, RunID: runOf(m), Step: m.Run.Step, Attempt: 1, After: time.Second, Reason: "busy"}
	}, func(m Model) bool { return m.Phase != Streaming || m.Run.Stopping != "" }},
	{"step retried for another step", func(m Model, at time.Time) Msg {
		return StepRetried{At: at, RunID: runOf(m), Step: m.Run.Step + 1, Attempt: 1, After: time.Second}
	}, always},
	{"step retried for another run", func(m Model, at time.Time) Msg {
		return StepRetried{At: at, RunID: "other", Step: m.Run.Step, Attempt: 1, After: time.Second}
	}, always},

	{"tool finished for a call in flight", func(m Model, at time.Time) Msg {
		return ToolFinished{At: at, RunID: runOf(m), CallID: firstOr(inFlight(m), "c1"), Status: "success", Content: "ok"}
	}, func(m Model) bool { return len(inFlight(m)) == 0 }},
	{"tool finished for an unknown call", func(m Model, at time.Time) Msg {
		return ToolFinished{At: at, RunID: runOf(m), CallID: "nope", Status: "success", Content: "ok"}
	}, always},
	{"tool finished a second time", func(m Model, at time.Time) Msg {
		return ToolFinished{At: at, RunID: runOf(m), CallID: firstOr(m.Run.Done, "nope"), Status: "success", Content: "again"}
	}, always},
	{"tool finished for a call waiting for the user", func(m Model, at time.Time) Msg {
		return ToolFinished{At: at, RunID: runOf(m), CallID: firstOr(m.Run.Asking, "nope"), Status: "success", Content: "early"}
	}, always},
	{"tool finished for another run", func(m Model, at time.Time) Msg {
		return ToolFinished{At: at, RunID: "other", CallID: firstOr(inFlight(m), "c1"), Status: "success", Content: "stray"}
	}, always},

	{"permission allowed", func(m Model, at time.Time) Msg {
		return PermissionAnswered{At: at, RunID: runOf(m), CallIDs: slices.Clone(m.Run.Asking), Allowed: true}
	}, unless(AwaitingPermission)},
	{"permission denied with feedback", func(m Model, at time.Time) Msg {
		return PermissionAnswered{At: at, RunID: runOf(m), CallIDs: slices.Clone(m.Run.Asking), Feedback: "not that file"}
	}, unless(AwaitingPermission)},
	{"permission answered for calls not asked about", func(m Model, at time.Time) Msg {
		return PermissionAnswered{At: at, RunID: runOf(m), CallIDs: []string{"nope"}, Allowed: true}
	}, always},
	{"permission answered for another run", func(m Model, at time.Time) Msg {
		return PermissionAnswered{At: at, RunID: "other", CallIDs: slices.Clone(m.Run.Asking), Allowed: true}
	}, always},

	{"cancel requested", func(m Model, at time.Time) Msg {
		return CancelRequested{At: at, Cause: "user"}
	}, never},

	{"budget exceeded", func(m Model, at time.Time) Msg {
		return BudgetExceeded{At: at, RunID: runOf(m), Message: "Spent too much."}
	}, func(m Model) bool { return !m.Open() }},
	{"budget exceeded for another run", func(m Model, at time.Time) Msg {
		return BudgetExceeded{At: at, RunID: "other", Message: "Spent too much."}
	}, always},

	{"checkpoint done", func(m Model, at time.Time) Msg {
		return CheckpointDone{At: at, RunID: runOf(m)}
	}, unless(Closing)},
	{"checkpoint done with inputs", func(m Model, at time.Time) Msg {
		return CheckpointDone{At: at, RunID: runOf(m), Inputs: []Input{{InputID: "i-hook", Intent: string(Inject), Text: "save the note"}}}
	}, unless(Closing)},
	{"checkpoint done for another run", func(m Model, at time.Time) Msg {
		return CheckpointDone{At: at, RunID: "other"}
	}, always},

	{"tick", func(m Model, at time.Time) Msg { return Tick{At: at} }, never},
	{"tick long after any deadline", func(m Model, at time.Time) Msg { return Tick{At: at.Add(time.Hour)} }, never},

	{"interrupted", func(m Model, at time.Time) Msg { return Interrupted{At: at} }, never},
}

// TestEveryPhaseHandlesEveryMessage walks every (phase, message) pair: no
// pair panics, a pair that makes no sense gives exactly one kernel.error and
// no change, and a pair that does is handled (never refused) — and in both
// cases the step keeps the loop's invariants (see checkStep).
func TestEveryPhaseHandlesEveryMessage(t *testing.T) {
	covered := map[[2]string]bool{}
	for _, st := range phaseStates {
		for _, pm := range phaseMsgs {
			t.Run(st.name+"/"+pm.name, func(t *testing.T) {
				l := newLoop(t)
				st.build(l)
				l.wantPhase(st.phase)
				msg := pm.build(l.m, l.now.Add(time.Second))
				step := checkStep(t, l.m, msg)
				refused := len(step.Records) == 1 && step.Records[0].Type == event.KernelError
				if want := pm.nonsense(l.m); refused != want {
					t.Fatalf("refused = %v, want %v (records %v)", refused, want, types(step.Records))
				}
				if !refused && slices.Contains(types(step.Records), event.KernelError) {
					t.Fatalf("a message that fits got a kernel.error among %v", types(step.Records))
				}
				covered[[2]string{st.phase.String(), msg.name()}] = true
			})
		}
	}
	for p := Idle; p <= Closing; p++ {
		for _, name := range []string{"submitted", "stream-delta", "stream-finished", "stream-failed", "step-retried",
			"tool-finished", "permission-answered", "cancel-requested", "budget-exceeded", "checkpoint-done", "tick", "interrupted"} {
			if !covered[[2]string{p.String(), name}] {
				t.Errorf("the walk never sent %s in phase %s", name, p)
			}
		}
	}
}

// TestMismatchedMessagesChangeNothing spells out the refusals the walk
// relies on, with the reason each is nonsense.
func TestMismatchedMessagesChangeNothing(t *testing.T) {
	cases := []struct {
		name string
		msg  func(m Model) Msg
	}{
		{"a reply for the step before", func(m Model) Msg {
			return StreamFinished{At: t0.Add(time.Hour), RunID: m.Run.ID, Step: m.Run.Step - 1, Content: "old"}
		}},
		{"a failure of another run", func(m Model) Msg {
			return StreamFailed{At: t0.Add(time.Hour), RunID: "r0", Step: m.Run.Step, Message: "old"}
		}},
		{"a retry of the step before", func(m Model) Msg {
			return StepRetried{At: t0.Add(time.Hour), RunID: m.Run.ID, Step: m.Run.Step - 1, Attempt: 2}
		}},
		{"a checkpoint while streaming", func(m Model) Msg {
			return CheckpointDone{At: t0.Add(time.Hour), RunID: m.Run.ID}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := newLoop(t)
			l.open("r1", "hello", capsWith())
			l.reply("", call("c1", readTool))
			l.result("c1", "text")
			l.wantPhase(Streaming)
			step := l.send(tc.msg(l.m))
			wantTypes(t, step.Records, event.KernelError)
			if len(step.Cmds) != 0 {
				t.Fatalf("a refused message gave commands %v", step.Cmds)
			}
		})
	}
}
