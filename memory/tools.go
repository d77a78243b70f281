package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"quire/kernel/event"
	"quire/kernel/tool"
)

// Tools are remember and forget, for the model.
func (s *Store) Tools() []tool.Tool { return []tool.Tool{remember{s}, forget{s}} }

type remember struct{ s *Store }

func (remember) Spec() tool.Spec {
	return tool.Spec{
		Name: "remember",
		Description: "Remember something for later. kind=fact: a lasting fact about the user's world (people, projects, where things are). " +
			"kind=preference: how the user likes notes named, filed, tagged or written. kind=working: for this conversation only — " +
			"note=conclusion (something you established), note=open (a sub-task still to do) or note=attempt (a path you tried and its outcome). " +
			"One short sentence per call. Do not remember what is already listed under Memory.",
		Parameters: map[string]any{
			"type": "object", "required": []any{"kind", "text"}, "additionalProperties": false,
			"properties": map[string]any{
				"kind": map[string]any{"type": "string", "enum": []any{Fact, Preference, Working}},
				"note": map[string]any{"type": "string", "enum": []any{Conclusion, OpenTask, Attempt}, "description": "only for kind=working"},
				"text": map[string]any{"type": "string", "minLength": 1, "maxLength": MaxText},
			},
		},
		Idempotency: tool.Unsafe, Timeout: 30 * time.Second,
	}
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
	it, err := r.s.Remember(ctx, session, a.Kind, a.Note, a.Text, ByTool, r.s.callSources(ctx, session, call.ID))
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
// the call and the user message it answered: the events a remembered item
// came from.
func (s *Store) callSources(ctx context.Context, session, callID string) []int64 {
	evs, err := s.log.Events(ctx, session, 0)
	if err != nil {
		return nil
	}
	var lastUser int64 = -1
	for _, e := range evs {
		switch e.Type {
		case event.UserMessage:
			lastUser = e.Seq
		case event.AssistantMessage:
			p, err := event.As[event.AssistantMessagePayload](e)
			if err != nil {
				continue
			}
			if slices.ContainsFunc(p.ToolCalls, func(c event.ToolCall) bool { return c.ID == callID }) {
				if lastUser >= 0 {
					return []int64{lastUser, e.Seq}
				}
				return []int64{e.Seq}
			}
		}
	}
	return nil
}

type forget struct{ s *Store }

func (forget) Spec() tool.Spec {
	return tool.Spec{
		Name:        "forget",
		Description: "Forget a remembered item that is wrong or no longer true, by its id (shown in brackets under Memory).",
		Parameters: map[string]any{
			"type": "object", "required": []any{"id"}, "additionalProperties": false,
			"properties": map[string]any{"id": map[string]any{"type": "string", "minLength": 1, "maxLength": 64}},
		},
		Idempotency: tool.Safe, Timeout: 30 * time.Second,
	}
}

func (f forget) Run(ctx context.Context, call tool.Call) (tool.Result, error) {
	var a struct{ ID string }
	if err := json.Unmarshal(call.Arguments, &a); err != nil {
		return tool.Result{Status: tool.Failure, Content: "The arguments are not a JSON object: " + err.Error()}, nil
	}
	if err := f.s.Forget(ctx, a.ID, ByTool); err != nil {
		return tool.Result{Status: tool.Failure, Content: err.Error()}, nil
	}
	return tool.Result{Status: tool.Success, Content: fmt.Sprintf("Forgot [%s].", a.ID)}, nil
}
