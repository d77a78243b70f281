package core

import (
	"slices"
	"testing"

	"quire/kernel/event"
)

func queuedIDs(m Model) []string {
	out := make([]string, len(m.Queue))
	for i, in := range m.Queue {
		out[i] = in.InputID
	}
	return out
}

// TestFollowUpWhileStreamingOpensTheNextRun: a follow-up waits for the
// current run to close, then opens its own run with its own id.
func TestFollowUpWhileStreamingOpensTheNextRun(t *testing.T) {
	l := newLoop(t)
	l.open("r1", "hello", capsWith())
	step := l.send(Submitted{Input: followUp("i2", "r2", "and then?", capsWith())})
	if len(step.Records) != 0 || len(step.Cmds) != 0 {
		t.Fatalf("a follow-up during a run acted at once: %v %v", types(step.Records), step.Cmds)
	}
	l.reply("", call("c1", readTool))
	l.result("c1", "text")
	if step := l.reply("done"); len(step.Records) != 0 {
		t.Fatalf("the follow-up was taken into run r1: %v", types(step.Records))
	}
	if !slices.Equal(queuedIDs(l.m), []string{"i2"}) {
		t.Fatalf("queue %v, want the follow-up waiting", queuedIDs(l.m))
	}
	step = l.send(CheckpointDone{RunID: "r1"})
	wantTypes(t, step.Records, event.RunFinished, event.RunStarted, event.UserMessage, event.StepStarted)
	if step.Records[0].RunID != "r1" || step.Records[1].RunID != "r2" || step.Records[3].RunID != "r2" {
		t.Fatalf("run ids %q %q %q, want r1 then r2", step.Records[0].RunID, step.Records[1].RunID, step.Records[3].RunID)
	}
	if p := step.Records[1].Payload.(event.RunStartedPayload); p.InputID != "i2" {
		t.Fatalf("run r2 was opened by %q, want i2", p.InputID)
	}
	if p := step.Records[3].Payload.(event.StepStartedPayload); p.Step != 1 || !slices.Equal(p.InputIDs, []string{"i2"}) {
		t.Fatalf("step.started %+v, want step 1 of r2 with i2", p)
	}
	if want := []Cmd{StartStream{RunID: "r2", Step: 1}}; !slices.Equal(step.Cmds, want) {
		t.Fatalf("cmds %v, want %v", step.Cmds, want)
	}
	l.wantFinished("r1:completed")
}

// TestSteerJoinsTheNextStepOfTheRun: a steer sent while the reply streams is
// not shown to the model before that reply ends; it is consumed by step 2 of
// the same run, which happens even though the model asked for no tool.
func TestSteerJoinsTheNextStepOfTheRun(t *testing.T) {
	l := newLoop(t)
	l.open("r1", "write a poem", capsWith())
	step := l.send(Submitted{Input: steer("s1", "r-unused", "make it rhyme", capsWith())})
	if len(step.Records) != 0 || len(step.Cmds) != 0 {
		t.Fatalf("the steer acted before the reply ended: %v %v", types(step.Records), step.Cmds)
	}
	step = l.reply("Roses are red")
	wantTypes(t, step.Records, event.UserMessage, event.StepStarted)
	if step.Records[0].RunID != "r1" || step.Records[1].RunID != "r1" {
		t.Fatal("the steer opened another run")
	}
	if p := step.Records[0].Payload.(event.UserMessagePayload); p.InputID != "s1" || p.Intent != string(Steer) || p.Text != "make it rhyme" {
		t.Fatalf("user.message %+v", p)
	}
	if p := step.Records[1].Payload.(event.StepStartedPayload); p.Step != 2 || !slices.Equal(p.InputIDs, []string{"s1"}) {
		t.Fatalf("step.started %+v, want step 2 with s1", p)
	}
	if len(cmds[RunCheckpoint](step.Cmds)) != 0 || !slices.Equal(step.Cmds, []Cmd{StartStream{RunID: "r1", Step: 2}}) {
		t.Fatalf("cmds %v, want the stream of step 2 and no checkpoint", step.Cmds)
	}
	if len(l.m.Queue) != 0 {
		t.Fatalf("the steer is still queued: %v", queuedIDs(l.m))
	}
	// The user.message of run r1's step 1 came before the steer's.
	msgs := records[event.UserMessagePayload](t, l.log, event.UserMessage)
	if len(msgs) != 2 || msgs[0].InputID != "in-r1" || msgs[1].InputID != "s1" {
		t.Fatalf("user messages %+v", msgs)
	}
}

// TestSteerWhileToolsRunJoinsTheStepAfterThem: a steer waits for the calls
// of the step and is consumed with their results.
func TestSteerWhileToolsRunJoinsTheStepAfterThem(t *testing.T) {
	l := newLoop(t)
	l.open("r1", "hello", capsWith())
	l.reply("", call("c1", readTool))
	if step := l.send(Submitted{Input: steer("s1", "r-unused", "also check b.md", capsWith())}); len(step.Records) != 0 {
		t.Fatalf("the steer acted while a tool ran: %v", types(step.Records))
	}
	step := l.result("c1", "a")
	wantTypes(t, step.Records, event.UserMessage, event.StepStarted)
	if p := step.Records[1].Payload.(event.StepStartedPayload); p.Step != 2 || !slices.Equal(p.InputIDs, []string{"s1"}) {
		t.Fatalf("step.started %+v, want step 2 with s1", p)
	}
}

// TestInjectNeverWakesTheLoop: an inject sent while idle opens no run and
// waits, and one sent during a run does not add a step; each is consumed by
// the next step, whenever it comes.
func TestInjectNeverWakesTheLoop(t *testing.T) {
	l := newLoop(t)
	step := l.send(Submitted{Input: inject("j1", "the project is called Quire")})
	if len(step.Records) != 0 || len(step.Cmds) != 0 || l.m.Phase != Idle || l.m.Open() {
		t.Fatalf("an inject woke the loop: %v %v %s", types(step.Records), step.Cmds, l.m.Phase)
	}
	if !slices.Equal(queuedIDs(l.m), []string{"j1"}) {
		t.Fatalf("queue %v, want j1", queuedIDs(l.m))
	}
	step = l.open("r1", "hello", capsWith())
	wantTypes(t, step.Records, event.RunStarted, event.UserMessage, event.UserMessage, event.StepStarted)
	if p := step.Records[3].Payload.(event.StepStartedPayload); !slices.Equal(p.InputIDs, []string{"j1", "in-r1"}) {
		t.Fatalf("step 1 consumed %v, want j1 and in-r1 in arrival order", p.InputIDs)
	}
	if p := step.Records[0].Payload.(event.RunStartedPayload); p.InputID != "in-r1" {
		t.Fatalf("the run was opened by %q, not the follow-up", p.InputID)
	}

	l.send(Submitted{Input: inject("j2", "prefer short answers")})
	if step := l.reply("hi"); l.m.Phase != Closing || len(cmds[StartStream](step.Cmds)) != 0 {
		t.Fatalf("an inject forced another step: phase %s, cmds %v", l.m.Phase, step.Cmds)
	}
	l.send(CheckpointDone{RunID: "r1"})
	if !slices.Equal(queuedIDs(l.m), []string{"j2"}) || l.m.Open() {
		t.Fatalf("after the run: queue %v, open %v; want j2 waiting, idle", queuedIDs(l.m), l.m.Open())
	}
	step = l.open("r2", "next", capsWith())
	if p := only[event.StepStartedPayload](step.Records, event.StepStarted); len(p) != 1 || !slices.Equal(p[0].InputIDs, []string{"j2", "in-r2"}) {
		t.Fatalf("step 1 of r2 consumed %+v, want j2 and in-r2", p)
	}
	l.wantFinished("r1:completed")
}

// TestSteerSurvivesCancel: a steer queued before a cancel is not lost with
// the run: it stays queued until the run closes, then is consumed by the
// first step of the run after it (which it opens, having no run to join).
func TestSteerSurvivesCancel(t *testing.T) {
	l := newLoop(t)
	l.open("r1", "hello", capsWith())
	l.send(Submitted{Input: steer("s1", "r2", "no, the other file", capsWith())})
	l.send(CancelRequested{Cause: "user"})
	if !slices.Equal(queuedIDs(l.m), []string{"s1"}) {
		t.Fatalf("after the cancel: queue %v, want s1", queuedIDs(l.m))
	}
	step := l.send(StreamFinished{RunID: "r1", Step: 1, Content: "Hel", Interrupted: true})
	wantTypes(t, step.Records, event.RunFinished, event.RunStarted, event.UserMessage, event.StepStarted)
	if step.Records[0].RunID != "r1" || step.Records[3].RunID != "r2" {
		t.Fatalf("run ids %q, %q; want r1 closed, then r2", step.Records[0].RunID, step.Records[3].RunID)
	}
	if p := step.Records[3].Payload.(event.StepStartedPayload); p.Step != 1 || !slices.Equal(p.InputIDs, []string{"s1"}) {
		t.Fatalf("step.started %+v, want step 1 of r2 with s1", p)
	}
	if len(l.m.Queue) != 0 {
		t.Fatalf("queue %v after the steer was consumed", queuedIDs(l.m))
	}
	l.wantFinished("r1:cancelled")
}

// TestInjectSurvivesCancel: an inject queued before a cancel is still
// queued after the run closes, and the next run's first step consumes it.
func TestInjectSurvivesCancel(t *testing.T) {
	l := newLoop(t)
	l.open("r1", "hello", capsWith())
	l.reply("", call("c1", readTool))
	l.send(Submitted{Input: inject("j1", "remember the deadline")})
	l.send(CancelRequested{Cause: "user"})
	l.result("c1", "text")
	l.wantPhase(Idle)
	if !slices.Equal(queuedIDs(l.m), []string{"j1"}) {
		t.Fatalf("after the run closed: queue %v, want j1", queuedIDs(l.m))
	}
	step := l.open("r2", "again", capsWith())
	if p := only[event.StepStartedPayload](step.Records, event.StepStarted); len(p) != 1 || !slices.Equal(p[0].InputIDs, []string{"j1", "in-r2"}) {
		t.Fatalf("step 1 of r2 consumed %+v, want j1 and in-r2", p)
	}
	l.wantFinished("r1:cancelled")
}

// TestCheckpointInputsExtendTheRun: what the pre-close hooks add is taken up
// as a steer by another step of the same run, not a new run.
func TestCheckpointInputsExtendTheRun(t *testing.T) {
	l := newLoop(t)
	l.open("r1", "hello", capsWith())
	l.reply("hi")
	step := l.send(CheckpointDone{RunID: "r1", Inputs: []Input{{InputID: "h1", Intent: string(FollowUp), Text: "tests fail: fix them"}}})
	wantTypes(t, step.Records, event.UserMessage, event.StepStarted)
	if p := step.Records[0].Payload.(event.UserMessagePayload); p.Intent != string(Steer) || step.Records[0].RunID != "r1" {
		t.Fatalf("user.message %+v in run %q, want a steer of r1", p, step.Records[0].RunID)
	}
	if p := step.Records[1].Payload.(event.StepStartedPayload); p.Step != 2 {
		t.Fatalf("step %d, want 2", p.Step)
	}
	l.reply("fixed")
	l.send(CheckpointDone{RunID: "r1"})
	l.wantFinished("r1:completed")
}

// TestFollowUpBehindAnInputWithoutRunIDStillOpens: an input that may open a
// run but has no run id is dropped with a kernel.error; the follow-up queued
// behind it opens its run in the same step rather than waiting for another
// message.
func TestFollowUpBehindAnInputWithoutRunIDStillOpens(t *testing.T) {
	m := Update(Model{}, Submitted{At: t0, Input: followUp("i1", "r1", "hello", capsWith())}).Model
	m = Update(m, Submitted{At: t0.Add(1), Input: Input{InputID: "s0", Intent: string(Steer), Text: "no run id"}}).Model
	m = Update(m, Submitted{At: t0.Add(2), Input: followUp("i2", "r2", "next", capsWith())}).Model
	m = Update(m, CancelRequested{At: t0.Add(3), Cause: "user"}).Model
	step := Update(m, StreamFailed{At: t0.Add(4), RunID: "r1", Step: 1, Class: "cancelled", Message: "cancelled"})
	wantTypes(t, step.Records, event.RunFinished, event.KernelError, event.RunStarted, event.UserMessage, event.StepStarted)
	if step.Model.Run.ID != "r2" || step.Model.Phase != Streaming || len(step.Model.Queue) != 0 {
		t.Fatalf("model after close: run %q, phase %s, queue %v; want r2 streaming", step.Model.Run.ID, step.Model.Phase, queuedIDs(step.Model))
	}
}
