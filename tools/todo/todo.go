// Package todo gives the assistant a working plan it keeps and the user sees
// (update_todos), and a way to report its own state when it is confused
// (report_state, seed 002 §5.2).
//
// Both are stateless: the log is the state. Every update carries the whole
// list, so the latest update_todos result in a session is the plan; the plan
// reminder (reminder.go) reads it, and whether this run was reminded, from
// the log too. It imports only the standard library, kernel/tool and
// kernel/event; never a database driver, a model client or Wails.
package todo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"quire/kernel/tool"
)

// Item is one entry of the plan.
type Item struct {
	Text string `json:"text"`
	Done bool   `json:"done"`
}

// Plan is what update_todos keeps; it is the Data of its result.
type Plan struct {
	Items []Item `json:"items"`
}

// Open lists the items not done yet.
func (p Plan) Open() []Item {
	var out []Item
	for _, it := range p.Items {
		if !it.Done {
			out = append(out, it)
		}
	}
	return out
}

// Report is what report_state records; it is the Data of its result.
type Report struct {
	State     string `json:"state"`
	Plan      string `json:"plan,omitempty"`
	Confusion string `json:"confusion,omitempty"`
}

type simple struct {
	spec tool.Spec
	run  func(ctx context.Context, call tool.Call) (tool.Result, error)
}

func (s simple) Spec() tool.Spec { return s.spec }
func (s simple) Run(ctx context.Context, call tool.Call) (tool.Result, error) {
	return s.run(ctx, call)
}

// Tools are update_todos and report_state.
func Tools() []tool.Tool { return []tool.Tool{updateTodos(), reportState()} }

func updateTodos() tool.Tool {
	return simple{
		spec: tool.Spec{
			Name:        "update_todos",
			Description: "Your plan for a request of several steps; the user sees it. Send the WHOLE list each time, marking items done.",
			Parameters: map[string]any{
				"type": "object", "required": []any{"items"}, "additionalProperties": false,
				"properties": map[string]any{"items": map[string]any{
					"type": "array", "maxItems": 50,
					"items": map[string]any{"type": "object", "required": []any{"text"}, "additionalProperties": false,
						"properties": map[string]any{"text": map[string]any{"type": "string", "minLength": 1, "maxLength": 300}, "done": map[string]any{"type": "boolean"}}},
				}},
			},
			Idempotency: tool.Safe, Timeout: time.Second, Parallel: true,
		},
		run: func(_ context.Context, call tool.Call) (tool.Result, error) {
			var p Plan
			if err := json.Unmarshal(call.Arguments, &p); err != nil {
				return tool.Result{}, fmt.Errorf("update_todos: %w", err)
			}
			open := len(p.Open())
			return tool.Result{Status: tool.Success, Data: p,
				Content: fmt.Sprintf("Plan saved: %d items, %d still open.", len(p.Items), open)}, nil
		},
	}
}

func reportState() tool.Tool {
	return simple{
		spec: tool.Spec{
			Name:        "report_state",
			Description: "When unsure what to do next, report your state and plan; the user sees it and can help.",
			Parameters: map[string]any{
				"type": "object", "required": []any{"state"}, "additionalProperties": false,
				"properties": map[string]any{
					"state":     map[string]any{"type": "string", "minLength": 1, "maxLength": 2000},
					"plan":      map[string]any{"type": "string", "maxLength": 2000},
					"confusion": map[string]any{"type": "string", "maxLength": 2000},
				},
			},
			Idempotency: tool.Safe, Timeout: time.Second, Parallel: true,
		},
		run: func(_ context.Context, call tool.Call) (tool.Result, error) {
			var r Report
			if err := json.Unmarshal(call.Arguments, &r); err != nil {
				return tool.Result{}, fmt.Errorf("report_state: %w", err)
			}
			return tool.Result{Status: tool.Success, Data: r,
				Content: "Reported. The user can see your report; continue if you can, or ask the user."}, nil
		},
	}
}

// DecodePlan reads a plan back from a result's Data as the log stores it.
func DecodePlan(data any) (Plan, bool) {
	b, err := json.Marshal(data)
	if err != nil {
		return Plan{}, false
	}
	var p Plan
	if err := json.Unmarshal(b, &p); err != nil || p.Items == nil {
		return Plan{}, false
	}
	return p, true
}

// Reminder is the checkpoint text for a plan with open items, or "".
func Reminder(p Plan) string {
	open := p.Open()
	if len(open) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, reminderLead+"%d open item(s):", len(open))
	for _, it := range open {
		b.WriteString("\n- " + it.Text)
	}
	b.WriteString("\nContinue with them, or update the plan if they are no longer needed.")
	return b.String()
}
