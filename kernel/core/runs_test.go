package core

import (
	"slices"
	"strings"
	"testing"

	"quire/kernel/event"
	"quire/kernel/tool"
)

// TestEveryRunFinishesOnceWithItsReason drives one run down each path that
// ends a run and checks that it opens once, closes once, with the reason of
// that path and nothing after it (the loop checks pairing and the log on
// every step, see newLoop).
func TestEveryRunFinishesOnceWithItsReason(t *testing.T) {
	cases := []struct {
		name   string
		script func(t *testing.T, l *loop)
		reason string
		error  string // a part of run.finished's message, if it has one
	}{
		{"a text reply completes after the checkpoint", func(t *testing.T, l *loop) {
			l.open("r1", "hello", capsWith())
			step := l.reply("hi there")
			l.wantPhase(Closing)
			if got := cmds[RunCheckpoint](step.Cmds); len(got) != 1 || got[0].RunID != "r1" {
				t.Fatalf("a finished reply gave %v, want one RunCheckpoint", step.Cmds)
			}
			if len(step.Records) != 0 {
				t.Fatalf("the run closed before its checkpoint: %v", types(step.Records))
			}
			l.send(CheckpointDone{RunID: "r1"})
		}, event.ReasonCompleted, ""},
		{"a blank input has nothing to do", func(t *testing.T, l *loop) {
			step := l.open("r1", " \n\t ", capsWith())
			wantTypes(t, step.Records, event.RunStarted, event.RunFinished)
			if len(step.Cmds) != 0 {
				t.Fatalf("a blank input gave commands %v", step.Cmds)
			}
		}, event.ReasonNothingToDo, ""},
		{"an input over MaxInputTokens is denied", func(t *testing.T, l *loop) {
			step := l.open("r1", strings.Repeat("word ", 20), capsWith(limits(func(x *event.Limits) { x.MaxInputTokens = 10 })))
			wantTypes(t, step.Records, event.RunStarted, event.RunFinished)
		}, event.ReasonDenied, "at most 10 fit"},
		{"an input just under MaxInputTokens runs", func(t *testing.T, l *loop) {
			l.open("r1", strings.Repeat("a", 40), capsWith(limits(func(x *event.Limits) { x.MaxInputTokens = 10 })))
			l.wantPhase(Streaming)
			l.send(StreamFailed{RunID: "r1", Step: 1, Class: "server", Message: "The model stopped answering."})
		}, event.ReasonError, "The model stopped answering."},
		{"a failed stream ends the run with its message", func(t *testing.T, l *loop) {
			l.open("r1", "hello", capsWith())
			l.send(StepRetried{RunID: "r1", Step: 1, Attempt: 1, Reason: "busy"})
			l.send(StreamFailed{RunID: "r1", Step: 1, Class: "server", Message: "Ollama is not running."})
		}, event.ReasonError, "Ollama is not running."},
		{"max steps stops before the step past the limit", func(t *testing.T, l *loop) {
			l.open("r1", "hello", capsWith(limits(func(x *event.Limits) { x.MaxSteps = 2 })))
			l.reply("", call("c1", readTool))
			l.result("c1", "one")
			l.reply("", call("c2", readTool))
			step := l.result("c2", "two")
			if slices.Contains(types(step.Records), event.StepStarted) {
				t.Fatalf("a third step started under MaxSteps 2: %v", types(step.Records))
			}
		}, event.ReasonMaxSteps, "2 steps"},
		{"max tool calls refuses the calls past the limit", func(t *testing.T, l *loop) {
			l.open("r1", "hello", capsWith(limits(func(x *event.Limits) { x.MaxToolCalls = 2 })))
			l.reply("", call("c1", readTool))
			l.result("c1", "one")
			step := l.reply("", call("c2", readTool), call("c3", readTool))
			refused := only[event.ToolRefusedPayload](step.Records, event.ToolRefused)
			if len(refused) != 2 || refused[0].Status != string(tool.Denied) || refused[1].Status != string(tool.Denied) {
				t.Fatalf("refusals %+v, want both calls denied", refused)
			}
			if len(cmds[RunTool](step.Cmds)) != 0 {
				t.Fatal("a call past the limit was run")
			}
		}, event.ReasonMaxTools, "2 tool calls"},
		{"the budget stops a step that would pass it", func(t *testing.T, l *loop) {
			// Step 1 costs 60+10; step 2 would cost about 60 more plus the
			// tool's 200 characters: 70+60+50 > 150.
			l.open("r1", "hello", capsWith(limits(func(x *event.Limits) { x.TokenBudget = 150 })))
			l.send(StreamFinished{RunID: "r1", Step: 1, Calls: []tool.Call{call("c1", readTool)}, PromptTokens: 60, OutputTokens: 10})
			step := l.result("c1", strings.Repeat("x", 200))
			if slices.Contains(types(step.Records), event.StepStarted) {
				t.Fatalf("a step started past the budget: %v", types(step.Records))
			}
		}, event.ReasonBudget, "would pass"},
		{"the budget stops a run whose step spent past it", func(t *testing.T, l *loop) {
			l.open("r1", "hello", capsWith(limits(func(x *event.Limits) { x.TokenBudget = 100 })))
			step := l.send(StreamFinished{RunID: "r1", Step: 1, Calls: []tool.Call{call("c1", readTool)}, PromptTokens: 80, OutputTokens: 30})
			refused := only[event.ToolRefusedPayload](step.Records, event.ToolRefused)
			if len(refused) != 1 || refused[0].CallID != "c1" || refused[0].Status != string(tool.Cancelled) {
				t.Fatalf("refusals %+v, want c1 cancelled", refused)
			}
		}, event.ReasonBudget, "used 110 tokens"},
		{"a budget signal from outside stops the run once the stream reports", func(t *testing.T, l *loop) {
			l.open("r1", "hello", capsWith())
			step := l.send(BudgetExceeded{RunID: "r1", Message: "This session spent its allowance."})
			if len(step.Records) != 0 || len(cmds[CancelRun](step.Cmds)) != 1 {
				t.Fatalf("records %v, cmds %v; want a CancelRun and no record yet", types(step.Records), step.Cmds)
			}
			l.send(StreamFailed{RunID: "r1", Step: 1, Class: "cancelled", Message: "cancelled"})
		}, event.ReasonBudget, "spent its allowance"},
		{"a reply the server cut at num_predict ends the run, its calls not run", func(t *testing.T, l *loop) {
			l.open("r1", "hello", capsWith())
			step := l.send(StreamFinished{RunID: "r1", Step: 1, Content: "again and again", DoneReason: "length",
				Calls: []tool.Call{call("c1", readTool)}, PromptTokens: 80, OutputTokens: 700})
			refused := only[event.ToolRefusedPayload](step.Records, event.ToolRefused)
			if len(refused) != 1 || refused[0].Status != string(tool.Cancelled) || len(cmds[RunTool](step.Cmds)) != 0 {
				t.Fatalf("refusals %+v, cmds %v; want c1 cancelled and nothing run", refused, step.Cmds)
			}
		}, event.ReasonBudget, "limit of 700 tokens"},
		{"a runaway reply stopped for repeating itself ends as a loop", func(t *testing.T, l *loop) {
			l.open("r1", "hello", capsWith())
			l.send(BudgetExceeded{RunID: "r1", Message: "Stopped: the reply kept repeating.", Reason: event.ReasonLoop})
			l.send(StreamFinished{RunID: "r1", Step: 1, Content: "la la la", Interrupted: true})
		}, event.ReasonLoop, "kept repeating"},
		{"the same call with the same result LoopRepeats times is a loop", func(t *testing.T, l *loop) {
			l.open("r1", "hello", capsWith(limits(func(x *event.Limits) { x.LoopRepeats = 3 })))
			for i := range 3 {
				l.wantPhase(Streaming)
				l.reply("", tool.Call{ID: "c" + string(rune('1'+i)), Name: readTool.Name, Arguments: []byte(`{"path":"same.md"}`)})
				l.result(l.m.Run.Calls[0].ID, "same")
			}
		}, event.ReasonLoop, "3 times"},
		{"a cancel while streaming closes when the stream reports its partial reply", func(t *testing.T, l *loop) {
			l.open("r1", "hello", capsWith())
			l.send(CancelRequested{Cause: "user"})
			l.send(StreamFinished{RunID: "r1", Step: 1, Content: "Hel", Interrupted: true})
		}, event.ReasonCancelled, "user"},
		{"a cancel while streaming closes when the stream reports its failure", func(t *testing.T, l *loop) {
			l.open("r1", "hello", capsWith())
			l.send(CancelRequested{Cause: "user"})
			l.send(StreamFailed{RunID: "r1", Step: 1, Class: "cancelled", Message: "context canceled"})
		}, event.ReasonCancelled, "user"},
		{"a cancel while asking refuses the question at once", func(t *testing.T, l *loop) {
			l.open("r1", "hello", capsWith())
			l.reply("", call("c1", writeTool))
			step := l.send(CancelRequested{Cause: "user"})
			refused := only[event.ToolRefusedPayload](step.Records, event.ToolRefused)
			if len(refused) != 1 || refused[0].Status != string(tool.Cancelled) {
				t.Fatalf("refusals %+v, want c1 cancelled", refused)
			}
		}, event.ReasonCancelled, "user"},
		{"a cancel during the checkpoint closes when it reports", func(t *testing.T, l *loop) {
			l.open("r1", "hello", capsWith())
			l.reply("hi")
			if step := l.send(CancelRequested{Cause: "user"}); len(step.Records) != 0 {
				t.Fatalf("the run closed before its checkpoint reported: %v", types(step.Records))
			}
			l.send(CheckpointDone{RunID: "r1", Inputs: []Input{{InputID: "hook", Intent: string(Inject), Text: "more"}}})
		}, event.ReasonCancelled, "user"},
		{"an interruption closes a streaming run", func(t *testing.T, l *loop) {
			l.open("r1", "hello", capsWith())
			l.send(Interrupted{})
		}, event.ReasonInterrupted, "before this request finished"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := newLoop(t)
			tc.script(t, l)
			l.wantPhase(Idle)
			l.wantFinished("r1:" + tc.reason)
			fin := records[event.RunFinishedPayload](t, l.log, event.RunFinished)
			if !strings.Contains(fin[0].Error, tc.error) {
				t.Fatalf("run.finished message %q does not say %q", fin[0].Error, tc.error)
			}
		})
	}
}

// TestCancelWaitsForTheStreamToReport: the run stays open, with no terminal
// record, until the stream it cancelled reports back.
func TestCancelWaitsForTheStreamToReport(t *testing.T) {
	for _, report := range []Msg{
		StreamFinished{RunID: "r1", Step: 1, Content: "Hel", Interrupted: true},
		StreamFailed{RunID: "r1", Step: 1, Class: "cancelled", Message: "cancelled"},
	} {
		t.Run(report.name(), func(t *testing.T) {
			l := newLoop(t)
			l.open("r1", "hello", capsWith())
			step := l.send(CancelRequested{Cause: "user pressed stop"})
			if want := []Cmd{CancelRun{RunID: "r1", Cause: "user pressed stop"}}; !slices.Equal(step.Cmds, want) {
				t.Fatalf("cmds %v, want %v", step.Cmds, want)
			}
			if len(step.Records) != 0 || !l.m.Open() || l.m.Phase != Streaming {
				t.Fatalf("the run closed before the stream reported: %v, phase %s", types(step.Records), l.m.Phase)
			}
			l.send(StreamDelta{RunID: "r1"})
			// Stopping twice, or for another reason, changes nothing.
			for _, again := range []Msg{CancelRequested{Cause: "pressed again"}, BudgetExceeded{RunID: "r1", Message: "over"}} {
				if step := l.send(again); len(step.Records) != 0 || len(step.Cmds) != 0 {
					t.Fatalf("a second stop acted: %v %v", types(step.Records), step.Cmds)
				}
			}
			if l.finished() != nil {
				t.Fatalf("the run finished before the stream reported: %v", l.finished())
			}
			step = l.send(report)
			wantTypes(t, step.Records, event.RunFinished)
			l.wantFinished("r1:cancelled")
			if p := step.Records[0].Payload.(event.RunFinishedPayload); p.Error != "user pressed stop" {
				t.Fatalf("run.finished says %q, want the first cause", p.Error)
			}
		})
	}
}

// TestCancelWaitsForEveryDispatchedTool: a run cancelled while tools run
// closes only after the last dispatched call reports.
func TestCancelWaitsForEveryDispatchedTool(t *testing.T) {
	l := newLoop(t)
	l.open("r1", "hello", capsWith())
	l.reply("", call("c1", readTool), call("c2", readTool), call("c3", writeTool))
	l.wantPhase(AwaitingPermission)
	step := l.send(CancelRequested{Cause: "user"})
	// The question is refused at once; the two reads are running.
	refused := only[event.ToolRefusedPayload](step.Records, event.ToolRefused)
	if len(refused) != 1 || refused[0].CallID != "c3" || refused[0].Status != string(tool.Cancelled) {
		t.Fatalf("refusals %+v, want only c3 cancelled", refused)
	}
	if len(cmds[CancelRun](step.Cmds)) != 1 {
		t.Fatalf("cmds %v, want a CancelRun", step.Cmds)
	}
	l.wantPhase(ExecutingTools)
	if step := l.send(ToolFinished{RunID: "r1", CallID: "c2", Status: string(tool.Cancelled), Content: "stopped"}); len(step.Records) != 0 {
		t.Fatalf("the run closed with c1 still running: %v", types(step.Records))
	}
	step = l.send(ToolFinished{RunID: "r1", CallID: "c1", Status: string(tool.Success), Content: "done anyway"})
	wantTypes(t, step.Records, event.RunFinished)
	if len(step.Cmds) != 0 {
		t.Fatalf("a cancelled run asked for more work: %v", step.Cmds)
	}
	l.wantFinished("r1:cancelled")
}

// TestCancelRaceWithAFinishedReplyAnswersItsCalls: the reply finished with
// calls just as the cancel was asked for. The calls never run, and each
// gets a result, so the run does not close with calls unanswered.
func TestCancelRaceWithAFinishedReplyAnswersItsCalls(t *testing.T) {
	l := newLoop(t)
	l.open("r1", "hello", capsWith())
	l.send(CancelRequested{Cause: "user"})
	step := l.reply("", call("c1", readTool), call("c2", writeTool))
	if len(cmds[RunTool](step.Cmds))+len(cmds[AskPermission](step.Cmds)) != 0 {
		t.Fatalf("a cancelled run started work: %v", step.Cmds)
	}
	wantTypes(t, step.Records, event.ToolRefused, event.ToolRefused, event.RunFinished)
	for _, r := range only[event.ToolRefusedPayload](step.Records, event.ToolRefused) {
		if r.Status != string(tool.Cancelled) {
			t.Fatalf("refusal %+v, want cancelled", r)
		}
	}
	l.wantFinished("r1:cancelled")
}

// TestInterruptedSettlesEveryOpenCall: after a restart, a call that was
// dispatched may or may not have run (unknown_completion, never re-run), and
// a call waiting for the user was never run (cancelled).
func TestInterruptedSettlesEveryOpenCall(t *testing.T) {
	l := newLoop(t)
	l.open("r1", "hello", capsWith())
	l.reply("", call("c1", readTool), call("c2", readTool), call("c3", writeTool))
	l.result("c1", "done")
	step := l.send(Interrupted{})
	wantTypes(t, step.Records, event.ToolRefused, event.ToolRefused, event.RunFinished)
	if len(step.Cmds) != 0 {
		t.Fatalf("an interrupted run asked for work: %v", step.Cmds)
	}
	got := map[string]string{}
	for _, r := range only[event.ToolRefusedPayload](step.Records, event.ToolRefused) {
		got[r.CallID] = r.Status
	}
	want := map[string]string{"c2": string(tool.UnknownCompletion), "c3": string(tool.Cancelled)}
	if len(got) != len(want) || got["c2"] != want["c2"] || got["c3"] != want["c3"] {
		t.Fatalf("statuses %v, want %v", got, want)
	}
	l.wantFinished("r1:interrupted")
}

// TestInterruptedIdleLoopDoesNothing: a restart with no open run changes
// nothing and writes nothing.
func TestInterruptedIdleLoopDoesNothing(t *testing.T) {
	l := newLoop(t)
	l.send(Submitted{Input: inject("i1", "note this")})
	before := clone(l.m)
	step := l.send(Interrupted{})
	if len(step.Records) != 0 || len(step.Cmds) != 0 || !slices.EqualFunc(l.m.Queue, before.Queue, func(a, b Input) bool { return a.InputID == b.InputID }) {
		t.Fatalf("records %v, cmds %v, queue %v", types(step.Records), step.Cmds, l.m.Queue)
	}
}

// TestBudgetCountsTheLastPromptBeforeTheFirstStep: the check before a step
// adds the last prompt's size to the estimate of what is new, across runs.
// The opener of a run refused this way is dropped, and the run after it
// still opens.
func TestBudgetCountsTheLastPromptBeforeTheFirstStep(t *testing.T) {
	l := newLoop(t)
	l.open("r1", "hello", capsWith())
	l.send(StreamFinished{RunID: "r1", Step: 1, Content: "hi", PromptTokens: 90, OutputTokens: 5})
	l.send(CheckpointDone{RunID: "r1"})
	if l.m.LastPromptTokens != 90 {
		t.Fatalf("LastPromptTokens = %d, want 90", l.m.LastPromptTokens)
	}
	tight := capsWith(limits(func(x *event.Limits) { x.TokenBudget = 100 }))
	// 90 + 10 fits (44 characters are about 11 tokens, 40 about 10).
	l.open("r2", strings.Repeat("a", 40), tight)
	l.wantPhase(Streaming)
	l.send(StreamFinished{RunID: "r2", Step: 1, Content: "ok", PromptTokens: 90, OutputTokens: 5})
	l.send(CheckpointDone{RunID: "r2"})
	step := l.open("r3", strings.Repeat("a", 44), tight)
	wantTypes(t, step.Records, event.RunStarted, event.RunFinished)
	if len(l.m.Queue) != 0 {
		t.Fatalf("the refused opener is still queued: %+v", l.m.Queue)
	}
	l.open("r4", "short", capsWith())
	l.wantPhase(Streaming)
	l.wantFinished("r1:completed", "r2:completed", "r3:budget")
}
