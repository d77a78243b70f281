package core

import (
	"testing"

	"quire/kernel/event"
	"quire/kernel/tool"
)

// TestAFaultEndsTheRunAsErrorWithItsSentence: when the runtime could not log
// a report of the run's work (the disk filled), it closes the run with an
// interrupted fact that carries the sentence; the run ends as error with
// that sentence, and the calls it can no longer vouch for are settled like
// after a restart: dispatched ones as unknown_completion, asked ones as
// cancelled. The next waiting follow-up still opens.
func TestAFaultEndsTheRunAsErrorWithItsSentence(t *testing.T) {
	l := newLoop(t)
	l.open("r1", "hello", capsWith())
	l.reply("", call("c1", readTool), call("c2", writeTool))
	l.send(Submitted{Input: followUp("i2", "r2", "next", capsWith())})
	const sentence = "The disk is full: Quire could not save this request."
	step := l.send(Interrupted{Error: sentence})
	got := map[string]string{}
	for _, r := range only[event.ToolRefusedPayload](step.Records, event.ToolRefused) {
		got[r.CallID] = r.Status
	}
	if got["c1"] != string(tool.UnknownCompletion) || got["c2"] != string(tool.Cancelled) || len(got) != 2 {
		t.Fatalf("statuses %v, want c1 unknown_completion and c2 cancelled", got)
	}
	fin := only[event.RunFinishedPayload](step.Records, event.RunFinished)
	if len(fin) != 1 || fin[0].Reason != event.ReasonError || fin[0].Error != sentence {
		t.Fatalf("run.finished %+v, want one with reason error and the sentence", fin)
	}
	if l.m.Run.ID != "r2" {
		t.Fatalf("open run %q after the fault, want the follow-up's r2", l.m.Run.ID)
	}
}
