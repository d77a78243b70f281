package core

import (
	"slices"
	"testing"

	"quire/kernel/event"
)

// TestEmptyReplyIsAskedAgainOnceThenSaid: a reply with no text and no call
// (what Ollama returns when the model called a tool the request did not
// offer) opens one more step with a note to the model, recorded as a
// user.message so the request is rebuilt from the log; a second empty reply
// ends the run with a sentence, never as a silent success.
func TestEmptyReplyIsAskedAgainOnceThenSaid(t *testing.T) {
	for _, tc := range []struct {
		name    string
		replies []string // the model's text, step by step
		reason  string
		notes   int
	}{
		{"an answer after the note completes", []string{"", "Here you are."}, event.ReasonCompleted, 1},
		{"whitespace is nothing too", []string{" \n", "Here you are."}, event.ReasonCompleted, 1},
		{"a second empty reply ends the run saying so", []string{"", ""}, event.ReasonEmpty, 1},
		{"an answer at once needs no note", []string{"Hi."}, event.ReasonCompleted, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLoop(t)
			l.open("r1", "hello", capsWith())
			for i, text := range tc.replies {
				step := l.reply(text)
				if i == 0 && tc.notes == 1 {
					started := only[event.StepStartedPayload](step.Records, event.StepStarted)
					if len(started) != 1 || started[0].Step != 2 {
						t.Fatalf("the empty reply opened %+v, want step 2", started)
					}
				}
			}
			if l.m.Phase == Closing {
				l.send(CheckpointDone{RunID: "r1"})
			}
			var notes []event.UserMessagePayload
			for _, u := range records[event.UserMessagePayload](t, l.log, event.UserMessage) {
				if u.Intent == string(Note) {
					notes = append(notes, u)
				}
			}
			if len(notes) != tc.notes || (tc.notes == 1 && notes[0].Text != EmptyReplyNote) {
				t.Fatalf("notes to the model %+v, want %d", notes, tc.notes)
			}
			fin := records[event.RunFinishedPayload](t, l.log, event.RunFinished)
			if len(fin) != 1 || fin[0].Reason != tc.reason {
				t.Fatalf("run.finished %+v, want %s", fin, tc.reason)
			}
			if tc.reason == event.ReasonEmpty && fin[0].Error != EmptyReplySentence {
				t.Fatalf("the empty run says %q", fin[0].Error)
			}
			if slices.ContainsFunc(l.m.Queue, func(in Input) bool { return Intent(in.Intent) == Note }) {
				t.Fatalf("a note outlived its run: %+v", l.m.Queue)
			}
		})
	}
}

// TestNoteNeverOpensTheNextRun: a run that ends before the note's step
// (its step limit) leaves no note behind for the next run to take up.
func TestNoteNeverOpensTheNextRun(t *testing.T) {
	l := newLoop(t)
	l.open("r1", "hello", capsWith(limits(func(x *event.Limits) { x.MaxSteps = 1 })))
	l.reply("")
	if fin := l.finished(); len(fin) != 1 || fin[0] != "r1:"+event.ReasonMaxSteps {
		t.Fatalf("runs %v, want r1 stopped by its step limit", fin)
	}
	if len(l.m.Queue) != 0 || l.m.Open() {
		t.Fatalf("after the run: queue %+v, open %v", l.m.Queue, l.m.Open())
	}
}
