package tui

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	tea "charm.land/bubbletea/v2"

	"quire/kernel/protocol"
)

// bubbletea runs each Update's command in a goroutine of its own, so the
// commands of two Updates may run in either order. Run in the reverse of
// the order they were returned (the worst the scheduler can do), the
// prints still come out in the order of the events: the reply, then the
// tool line that follows it.
func TestTerminalPrintsInEventOrder(t *testing.T) {
	tm := &teaModel{m: Model{Session: protocol.Session{ID: "s1"}}}
	event := func(typ string, payload any) Event {
		b, _ := json.Marshal(payload)
		return Event{Session: "s1", Type: typ, Visibility: protocol.Public, Payload: b}
	}
	var cmds []tea.Cmd
	for _, e := range []Event{
		event("run.started", map[string]any{}),
		event("assistant.message", map[string]any{"content": "Let me look at inbox first."}),
		event("tool.started", map[string]any{"name": "list_notes"}),
		event("tool.result", map[string]any{"name": "list_notes", "status": "failure"}),
	} {
		if _, c := tm.Update(e); c != nil {
			cmds = append(cmds, c)
		}
	}
	var lines []string
	for len(cmds) > 0 {
		c := cmds[len(cmds)-1]
		cmds = cmds[:len(cmds)-1]
		for _, msg := range run(c) {
			if body, ok := printLine(msg); ok {
				lines = append(lines, body)
				continue
			}
			if _, c := tm.Update(msg); c != nil {
				cmds = append(cmds, c)
			}
		}
	}
	want := []string{"quire › Let me look at inbox first.", "  · Listed the notes", "  · Listed the notes: failed"}
	if !slices.Equal(lines, want) {
		t.Fatalf("printed %q, want %q", lines, want)
	}
}

// run runs c as bubbletea does a sequence: each command in turn, its
// message delivered before the next runs.
func run(c tea.Cmd) []tea.Msg {
	msg := c()
	v := reflect.ValueOf(msg)
	if v.Kind() != reflect.Slice || v.Type().Elem() != reflect.TypeFor[tea.Cmd]() {
		return []tea.Msg{msg}
	}
	var out []tea.Msg
	for i := range v.Len() {
		if sub := v.Index(i).Interface().(tea.Cmd); sub != nil {
			out = append(out, run(sub)...)
		}
	}
	return out
}

// printLine is the text of a tea.Println's message (its type is
// bubbletea's own, unexported).
func printLine(msg tea.Msg) (string, bool) {
	v := reflect.ValueOf(msg)
	if v.Kind() != reflect.Struct || v.Type().Name() != "printLineMessage" {
		return "", false
	}
	return v.Field(0).String(), true
}
