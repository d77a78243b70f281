package eval

import (
	"errors"
	"testing"

	"quire/kernel/event"
	"quire/kernel/protocol"
)

// TestReplayedRefusesARunItCannotReplay: a run with no user message, one
// still open and one whose call arguments are not an object are refused,
// naming the run, rather than replayed as something else.
func TestReplayedRefusesARunItCannotReplay(t *testing.T) {
	t.Parallel()
	say := func(run string) protocol.Event {
		return ev(event.UserMessage, run, event.UserMessagePayload{Text: "File it."})
	}
	done := func(run string) protocol.Event {
		return ev(event.RunFinished, run, event.RunFinishedPayload{Reason: "completed"})
	}
	badCall := ev(event.AssistantMessage, "r1", event.AssistantMessagePayload{ToolCalls: []event.ToolCall{{Name: "create_note", Arguments: "[1]"}}})
	for _, tc := range []struct {
		name string
		evs  []protocol.Event
	}{
		{"no user message in the run", []protocol.Event{say("r0"), done("r1")}},
		{"not finished", []protocol.Event{say("r1")}},
		{"arguments not an object", []protocol.Event{say("r1"), badCall, done("r1")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := Replayed("x", tc.evs, "r1"); !errors.Is(err, ErrReplay) {
				t.Errorf("err = %v, want ErrReplay", err)
			}
		})
	}
}

// TestReplayedScriptsWhatTheModelAnsweredThen: only the run's own events
// count, the first user message is the one said, the model's turns and the
// user's own answers (not a default) are scripted in order, and the run's
// end is what must happen again.
func TestReplayedScriptsWhatTheModelAnsweredThen(t *testing.T) {
	t.Parallel()
	evs := []protocol.Event{
		ev(event.UserMessage, "r0", event.UserMessagePayload{Text: "an earlier run"}),
		ev(event.AssistantMessage, "r0", event.AssistantMessagePayload{Content: "earlier"}),
		ev(event.UserMessage, "r1", event.UserMessagePayload{Text: "File the receipt."}),
		ev(event.AssistantMessage, "r1", event.AssistantMessagePayload{ToolCalls: []event.ToolCall{{ID: "c1", Name: "move_note", Arguments: `{"from":"a.md","to":"finance/a.md"}`}}}),
		ev(event.PermissionAnswered, "r1", event.PermissionAnsweredPayload{CallIDs: []string{"c1"}, Allowed: false, Feedback: "receipts go under finance/receipts"}),
		ev(event.UserMessage, "r1", event.UserMessagePayload{Text: "a steer later in the run"}),
		ev(event.AssistantMessage, "r1", event.AssistantMessagePayload{Content: "Understood."}),
		ev(event.PermissionAnswered, "r1", event.PermissionAnsweredPayload{CallIDs: []string{"c2"}, ByDefault: true}),
		ev(event.RunFinished, "r1", event.RunFinishedPayload{Reason: "completed"}),
	}
	sc, err := Replayed("receipts", evs, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.User) != 1 || sc.User[0].Say != "File the receipt." {
		t.Errorf("user = %+v, want the run's first message only", sc.User)
	}
	if len(sc.Model) != 2 || sc.Model[0].Calls[0].Name != "move_note" || sc.Model[0].Calls[0].Args["to"] != "finance/a.md" || sc.Model[1].Say != "Understood." {
		t.Errorf("model = %+v", sc.Model)
	}
	if len(sc.Answers) != 1 || sc.Answers[0].Allow || sc.Answers[0].Feedback != "receipts go under finance/receipts" {
		t.Errorf("answers = %+v, want the user's one no with its reason", sc.Answers)
	}
	if len(sc.Expect.Runs) != 1 || sc.Expect.Runs[0] != "completed" || sc.Class != Replay {
		t.Errorf("expect.runs = %q, class %q", sc.Expect.Runs, sc.Class)
	}
}
