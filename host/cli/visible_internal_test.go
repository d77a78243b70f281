package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"quire/kernel/protocol"
)

// hostile is text a note or a reply may hold that a terminal would run:
// move up a line, erase it, write there; set the window's title; CR.
const hostile = "\x1b[1A\x1b[2Kharmless\x1b]0;pwned\x07\rover"

// answerTaker is a kernel that takes every answer (the run's printing is
// what is tested, not the kernel).
type answerTaker struct{ protocol.Kernel }

func (answerTaker) Execute(context.Context, protocol.Command) (json.RawMessage, error) {
	return json.RawMessage(`{}`), nil
}

// What `quire run` and `quire organise` print of the model's and the
// notes' text reaches the terminal with its escape sequences escaped: the
// reply, a refusal, the question it answered, a conversation's title, a
// worker's reason in the review list the one yes is about.
func TestNothingPrintedRunsAsAnEscapeSequence(t *testing.T) {
	var out, errs bytes.Buffer
	h := &headless{o: &runOptions{approve: approveAll}, env: Env{Stdout: &out, Stderr: &errs}, k: answerTaker{}, answered: map[string]bool{}}
	payload := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	h.show(protocol.Event{Type: "assistant.delta", Payload: payload(map[string]string{"content": hostile})}, "r")
	h.show(protocol.Event{Type: "tool.refused", Payload: payload(map[string]string{"name": "create_note", "status": "denied", "reason": hostile})}, "r")
	h.answer(t.Context(), protocol.Question{Session: "s", Calls: []protocol.QuestionCall{{ID: "c1", Name: "create_note"}}, Descriptions: []string{"Create evil.md\n" + hostile}})
	printSessions(&out, []protocol.Session{{ID: "s1", Title: "a title " + hostile}})
	printReview(&out, protocol.BatchReview{Batch: protocol.Batch{Title: "Organise inbox"}, Items: []protocol.ReviewItem{
		{From: "inbox/a.md", To: "projects/a.md", Tags: []string{hostile}, Reason: hostile, Selected: true},
	}})
	all := out.String() + errs.String()
	if strings.ContainsAny(all, "\x1b\x07\r") {
		t.Fatalf("the terminal is sent control characters: %q", all)
	}
	for _, want := range []string{`\u001b[2Kharmless`, "Create evil.md", "inbox/a.md → projects/a.md", "a title "} {
		if !strings.Contains(all, want) {
			t.Fatalf("%q is not shown: %q", want, all)
		}
	}
}
