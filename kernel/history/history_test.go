package history

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"quire/kernel/event"
	"quire/kernel/provider"
)

func ev(t *testing.T, seq int64, typ event.Type, payload any) event.Event {
	t.Helper()
	enc, err := event.Encode(event.Draft{Type: typ, Time: time.Unix(1, 0), Payload: payload})
	if err != nil {
		t.Fatal(err)
	}
	return event.Event{Session: "s", Seq: seq, Type: enc.Type, Time: enc.Time, Payload: enc.Payload}
}

func TestProjectKeepsOnlyMessages(t *testing.T) {
	events := []event.Event{
		ev(t, 0, event.SessionCreated, event.SessionCreatedPayload{Title: "t"}),
		ev(t, 1, event.UserMessage, event.UserMessagePayload{Text: "hi"}),
		ev(t, 2, event.RunStarted, event.RunStartedPayload{Model: "m"}),
		ev(t, 3, event.AssistantDelta, event.AssistantDeltaPayload{Content: "hel"}),
		ev(t, 4, event.AssistantDelta, event.AssistantDeltaPayload{Content: "lo"}),
		ev(t, 5, event.AssistantMessage, event.AssistantMessagePayload{Content: "hello",
			ToolCalls: []event.ToolCall{{ID: "c1", Name: "search_docs", Arguments: `{"q":"x"}`}}}),
		ev(t, 6, event.ToolResult, event.ToolResultPayload{CallID: "c1", Name: "search_docs", Content: "found"}),
		ev(t, 7, event.RunFinished, event.RunFinishedPayload{Reason: event.ReasonCompleted}),
		ev(t, 8, event.SessionRenamed, event.SessionRenamedPayload{Title: "u"}),
	}
	got, err := Project(events)
	if err != nil {
		t.Fatal(err)
	}
	want := []provider.Message{
		{Role: provider.RoleUser, Content: "hi"},
		{Role: provider.RoleAssistant, Content: "hello", ToolCalls: []provider.ToolCall{{ID: "c1", Name: "search_docs", Arguments: `{"q":"x"}`}}},
		{Role: provider.RoleTool, Content: "found", ToolName: "search_docs", ToolCallID: "c1"},
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Fatalf("projection\n got %s\nwant %s", g, w)
	}
}

func TestProjectFailsOnUndecodablePayload(t *testing.T) {
	bad := event.Event{Session: "s", Seq: 1, Type: event.UserMessage, Payload: json.RawMessage(`{"text": 5}`)}
	if _, err := Project([]event.Event{bad}); err == nil {
		t.Fatal("a payload of the wrong shape was projected without error")
	}
}

func TestToolResultsGoBackInCallOrder(t *testing.T) {
	events := []event.Event{
		ev(t, 1, event.UserMessage, event.UserMessagePayload{Text: "do both"}),
		ev(t, 2, event.AssistantMessage, event.AssistantMessagePayload{ToolCalls: []event.ToolCall{
			{ID: "a", Name: "slow"}, {ID: "b", Name: "fast"}, {ID: "c", Name: "denied"}}}),
		ev(t, 3, event.ToolResult, event.ToolResultPayload{CallID: "b", Name: "fast", Content: "B"}),
		ev(t, 4, event.ToolRefused, event.ToolRefusedPayload{CallID: "c", Name: "denied", Status: "denied", Reason: "C"}),
		ev(t, 5, event.ToolResult, event.ToolResultPayload{CallID: "a", Name: "slow", Content: "A"}),
	}
	got, err := Project(events)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, m := range got[2:] {
		order = append(order, m.ToolCallID+"="+m.Content)
	}
	if strings.Join(order, ",") != "a=A,b=B,c=C" {
		t.Fatalf("tool results in %v, want call order", order)
	}
}
