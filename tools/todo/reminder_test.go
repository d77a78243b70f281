package todo

import (
	"context"
	"encoding/json"
	"testing"

	"quire/kernel/event"
)

// sliceLog is a session's log as a list of events (the reminder only reads).
type sliceLog []event.Event

func (l sliceLog) EventsOfType(_ context.Context, _ string, typ event.Type) ([]event.Event, error) {
	var out []event.Event
	for _, e := range l {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out, nil
}

func ev(t *testing.T, typ event.Type, run string, payload any) event.Event {
	t.Helper()
	b, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	return event.Event{Type: typ, RunID: run, Payload: b}
}

func TestPlanReminderComesOncePerRunAsTheLogSays(t *testing.T) {
	plan := func(items ...Item) event.Event {
		return ev(t, event.ToolResult, "r1", event.ToolResultPayload{Name: "update_todos", Data: Plan{Items: items}})
	}
	reminded := func(run, text string) event.Event {
		return ev(t, event.CheckpointDone, run, event.CheckpointDonePayload{Inputs: []event.InputReceivedPayload{{InputID: "i", Intent: "steer", Text: text}}})
	}
	open := plan(Item{Text: "file plan.md"})
	text := Reminder(Plan{Items: []Item{{Text: "file plan.md"}}})
	tests := []struct {
		name string
		log  sliceLog
		want bool
	}{
		{"no plan", nil, false},
		{"open items", sliceLog{open}, true},
		{"every item done", sliceLog{plan(Item{Text: "x", Done: true})}, false},
		{"the latest plan counts", sliceLog{open, plan(Item{Text: "file plan.md", Done: true})}, false},
		{"already reminded in this run", sliceLog{open, reminded("r1", text)}, false},
		{"reminded in an earlier run", sliceLog{open, reminded("r0", text)}, true},
		{"another hook's text in this run", sliceLog{open, reminded("r1", "something else")}, true},
		{"a checkpoint with nothing added", sliceLog{open, ev(t, event.CheckpointDone, "r1", event.CheckpointDonePayload{})}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PlanReminder(tt.log)(t.Context(), "s", "r1")
			if err != nil {
				t.Fatal(err)
			}
			if (len(got) == 1) != tt.want || len(got) > 1 {
				t.Fatalf("reminders %q, want one: %v", got, tt.want)
			}
			if tt.want && got[0] != text {
				t.Fatalf("reminder %q, want %q", got[0], text)
			}
		})
	}
}
