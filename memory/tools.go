package memory

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"quire/kernel/event"
	"quire/kernel/tool"
)

// Tools are remember and forget, for the model. Both change what later
// conversations are told (tool.WriteMemory), so by default each call asks
// the user; "remember without asking" (Approval off) grants remember alone,
// and the kernel still asks once the conversation has read a document or a
// note (tool.DecideGranted). Forget always asks: it removes what the user
// kept.
func (s *Store) Tools() []tool.Tool { return []tool.Tool{remember{s}, forget{s}} }

type remember struct{ s *Store }

func (r remember) Spec() tool.Spec {
	var granted tool.Effect
	if !r.s.Approval() {
		granted = tool.WriteMemory
	}
	return tool.Spec{
		Name: "remember",
		Description: "Remember one short sentence. kind=fact: the user's world; preference: how the user likes notes; " +
			"working: this conversation only, with note=conclusion, open or attempt. Skip what Memory lists.",
		Parameters: map[string]any{
			"type": "object", "required": []any{"kind", "text"}, "additionalProperties": false,
			"properties": map[string]any{
				"kind": map[string]any{"type": "string", "enum": []any{Fact, Preference, Working}},
				"note": map[string]any{"type": "string", "enum": []any{Conclusion, OpenTask, Attempt}, "description": "only for kind=working"},
				"text": map[string]any{"type": "string", "minLength": 1, "maxLength": MaxText},
			},
		},
		Effects: tool.WriteMemory, Granted: granted, Idempotency: tool.Unsafe, Timeout: 30 * time.Second,
	}
}

// Describe says exactly what would be kept, whole (the schema bounds it),
// for the question: the kind and the text, quoted, with any invisible or
// control character spelt out (shown) so the text cannot pass for another.
func (remember) Describe(call tool.Call) string {
	var a struct{ Kind, Note, Text string }
	if json.Unmarshal(call.Arguments, &a) != nil {
		return ""
	}
	what := "Remember this " + a.Kind + " for every later conversation"
	if a.Kind == Working {
		what = "Remember this working note (" + cmp.Or(a.Note, Conclusion) + ") for this conversation only"
	}
	return what + ":\n" + shown(a.Text)
}

// shown quotes a memory's text for a question: printable characters and
// line breaks as they are, anything else (a zero-width space, a
// bidirectional override, a control character) as its \u escape.
func shown(text string) string {
	var b strings.Builder
	b.WriteString("“")
	for _, r := range text {
		switch {
		case r == '\n' || r == ' ' || unicode.IsPrint(r):
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, "\\u%04x", r)
		}
	}
	b.WriteString("”")
	return b.String()
}

func (r remember) Run(ctx context.Context, call tool.Call) (tool.Result, error) {
	var a struct{ Kind, Note, Text string }
	if err := json.Unmarshal(call.Arguments, &a); err != nil {
		return tool.Result{Status: tool.Failure, Content: "The arguments are not a JSON object: " + err.Error()}, nil
	}
	session := tool.SessionOf(ctx)
	if session == "" {
		return tool.Result{Status: tool.Failure, Content: "remember works only inside a conversation."}, nil
	}
	sources, asked := r.s.callSources(ctx, session, call.ID)
	p := event.MemoryRememberPayload{Kind: a.Kind, Note: a.Note, Text: a.Text, Origin: ByTool, CallID: call.ID, Approved: WithoutAsking}
	switch {
	case asked:
		p.Approved = ByAsking
	case a.Kind != Working && r.s.Approval():
		// Ran without a yes while the setting asks for one (a kernel that
		// does not decide by effects): it waits in the panel instead.
		p.Pending = true
	}
	it, err := r.s.remember(ctx, session, p, sources)
	if err != nil {
		return tool.Result{Status: tool.Failure, Content: err.Error()}, nil
	}
	msg := fmt.Sprintf("Remembered as [%s].", it.ID)
	if it.Status == Pending {
		msg = fmt.Sprintf("Saved as [%s], pending: the user approves new memories in the memory panel before they are kept.", it.ID)
	}
	return tool.Result{Status: tool.Success, Content: msg, Data: it}, nil
}

// callSources finds, in the session's log, the assistant message that made
// the call and the user message it answered (the events a remembered item
// came from), and whether the user said yes to the call when asked.
func (s *Store) callSources(ctx context.Context, session, callID string) (sources []int64, asked bool) {
	evs, err := s.log.Events(ctx, session, 0)
	if err != nil {
		return nil, false
	}
	var lastUser int64 = -1
	for _, e := range evs {
		switch e.Type {
		case event.UserMessage:
			lastUser = e.Seq
		case event.AssistantMessage:
			p, err := event.As[event.AssistantMessagePayload](e)
			if err != nil || sources != nil {
				continue
			}
			if slices.ContainsFunc(p.ToolCalls, func(c event.ToolCall) bool { return c.ID == callID }) {
				sources = []int64{e.Seq}
				if lastUser >= 0 {
					sources = []int64{lastUser, e.Seq}
				}
			}
		case event.PermissionAnswered:
			p, err := event.As[event.PermissionAnsweredPayload](e)
			if err == nil && p.Allowed && !p.ByDefault && slices.Contains(p.CallIDs, callID) {
				asked = true
			}
		}
	}
	return sources, asked
}

type forget struct{ s *Store }

func (forget) Spec() tool.Spec {
	return tool.Spec{
		Name:        "forget",
		Description: "Forget a remembered item that is wrong, by its id (in brackets under Memory).",
		Parameters: map[string]any{
			"type": "object", "required": []any{"id"}, "additionalProperties": false,
			"properties": map[string]any{"id": map[string]any{"type": "string", "minLength": 1, "maxLength": 64}},
		},
		Effects: tool.WriteMemory, Idempotency: tool.Safe, Timeout: 30 * time.Second,
	}
}

// Describe names the item the call would forget, looked up in the memory
// index — the fold of the log, as it stands when the question is asked —
// with its kind and whole text: an id alone tells the user nothing.
func (f forget) Describe(call tool.Call) string {
	var a struct{ ID string }
	if json.Unmarshal(call.Arguments, &a) != nil {
		return ""
	}
	// Describe has no context: the lookup is one indexed row.
	it, err := f.s.Get(context.Background(), a.ID)
	if err != nil {
		return fmt.Sprintf("Forget the memory item %s — no item has this id, so nothing would be forgotten.", strconv.Quote(a.ID))
	}
	what := it.Kind
	if it.Kind == Working {
		what = "working note (" + it.Note + ")"
	}
	if it.Status == Pending {
		what = "pending " + what
	}
	return fmt.Sprintf("Forget this %s [%s]:\n%s", what, it.ID, shown(it.Text))
}

func (f forget) Run(ctx context.Context, call tool.Call) (tool.Result, error) {
	var a struct{ ID string }
	if err := json.Unmarshal(call.Arguments, &a); err != nil {
		return tool.Result{Status: tool.Failure, Content: "The arguments are not a JSON object: " + err.Error()}, nil
	}
	if err := f.s.forget(ctx, a.ID, ByTool, call.ID); err != nil {
		return tool.Result{Status: tool.Failure, Content: err.Error()}, nil
	}
	return tool.Result{Status: tool.Success, Content: fmt.Sprintf("Forgot [%s].", a.ID)}, nil
}
