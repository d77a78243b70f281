package core

import (
	"testing"

	"quire/kernel/event"
)

// TestStopMeantForAnEndedRunDoesNotStopTheNext: a cancel names its run, so
// one that arrives after that run ended leaves the next run alone.
func TestStopMeantForAnEndedRunDoesNotStopTheNext(t *testing.T) {
	l := newLoop(t)
	l.open("r1", "first", capsWith())
	l.send(Submitted{Input: followUp("i2", "r2", "second", capsWith())})
	l.reply("done")
	l.send(CheckpointDone{RunID: "r1"}) // r1 completes, r2 opens and streams
	if step := l.send(CancelRequested{RunID: "r1", Cause: "stopped by the user"}); len(step.Records) != 0 || len(step.Cmds) != 0 {
		t.Fatalf("a stop for r1 acted on r2: %v %v", types(step.Records), step.Cmds)
	}
	l.wantPhase(Streaming)
	step := l.send(CancelRequested{RunID: "r2", Cause: "stopped by the user"})
	if len(step.Cmds) != 1 {
		t.Fatalf("a stop for r2 did not cancel it: %v", step.Cmds)
	}
}

// TestSteerDuringTheCheckpointExtendsTheRun: a steer that arrives while the
// pre-close hooks run is taken up by one more step of the same run.
func TestSteerDuringTheCheckpointExtendsTheRun(t *testing.T) {
	l := newLoop(t)
	l.open("r1", "first", capsWith())
	l.reply("done")
	l.wantPhase(Closing)
	l.send(Submitted{Input: steer("i2", "rX", "one more thing", capsWith())})
	step := l.send(CheckpointDone{RunID: "r1"})
	wantTypes(t, step.Records, event.UserMessage, event.StepStarted)
	if step.Records[0].RunID != "r1" {
		t.Fatalf("the steer went to run %q, want r1", step.Records[0].RunID)
	}
	l.wantPhase(Streaming)
}
