package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"quire/kernel/protocol"
)

// hostile is text a note or a reply may hold that a terminal would run:
// move up a line, erase it, write there; set the window's title; CR.
const hostile = "\x1b[1A\x1b[2Kharmless\x1b]0;pwned\x07\rover"

// What the chat prints and shows live reaches the terminal with its escape
// sequences escaped: a question's description, a reply, a streamed delta,
// a tool's refusal.
func TestNothingPrintedRunsAsAnEscapeSequence(t *testing.T) {
	s := protocol.Session{ID: "s1", Title: "t"}
	m, _ := Update(Model{}, Opened(s))
	payload := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	var shown []string
	for _, msg := range []Msg{
		Event(protocol.Event{Session: "s1", Type: "assistant.delta", Visibility: protocol.Public, Payload: payload(map[string]string{"content": hostile})}),
		Event(protocol.Event{Session: "s1", Type: "assistant.message", Visibility: protocol.Public, Payload: payload(map[string]string{"content": hostile})}),
		Event(protocol.Event{Session: "s1", Type: "tool.refused", Visibility: protocol.Public, Payload: payload(map[string]string{"name": "create_note", "reason": hostile})}),
		Questions{{Session: "s1", Calls: []protocol.QuestionCall{{ID: "c1", Name: "create_note"}}, Descriptions: []string{"Create evil.md\n" + hostile}}},
	} {
		var acts []Action
		m, acts = Update(m, msg)
		shown = append(shown, View(m))
		for _, a := range acts {
			if p, ok := a.(Print); ok {
				shown = append(shown, printed(p))
			}
		}
	}
	all := strings.Join(shown, "\n")
	if strings.ContainsAny(all, "\x1b\x07\r") {
		t.Fatalf("the terminal is sent control characters: %q", all)
	}
	if !strings.Contains(all, `\u001b[2Kharmless`) || !strings.Contains(all, "Create evil.md") {
		t.Fatalf("the text is not shown escaped: %q", all)
	}
}
