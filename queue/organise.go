package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"quire/kernel/tool"
)

// OrganiseName is the conversation's tool that starts a batch: "organise
// my inbox" in the chat.
const OrganiseName = "organise_folder"

// organiseTool starts a batch over a folder. It changes no note: the
// workers only propose, and the user answers once for the whole batch in
// its review, so it runs without a question, like a read.
type organiseTool struct{ q *Queue }

// OrganiseTool is the conversation's organise_folder tool.
func (q *Queue) OrganiseTool() tool.Tool { return organiseTool{q} }

func (o organiseTool) Spec() tool.Spec {
	return tool.Spec{
		Name:        OrganiseName,
		Description: "Organise a folder's notes as a batch: workers propose where each goes; nothing changes until the user reviews it.",
		Parameters: map[string]any{
			"type":                 "object",
			"properties":           map[string]any{"folder": map[string]any{"type": "string", "description": "Like inbox."}},
			"required":             []string{"folder"},
			"additionalProperties": false,
		},
		Idempotency: tool.Unsafe, // each call starts a batch of its own
		Timeout:     10 * time.Second,
	}
}

func (o organiseTool) Run(ctx context.Context, call tool.Call) (tool.Result, error) {
	var a struct {
		Folder string `json:"folder"`
	}
	if err := json.Unmarshal(call.Arguments, &a); err != nil {
		return refused("The arguments of %s must be an object with the folder: %v.", OrganiseName, err), nil
	}
	b, err := o.q.Start(ctx, a.Folder)
	if err != nil {
		return refused("The batch could not start: %v.", err), nil
	}
	return tool.Result{Status: tool.Success, Data: b, Content: fmt.Sprintf("Started %s (batch %s, %d workers). "+
		"The user will review every proposal at once in the batch's review; nothing changes before that.", b.Title, b.ID, b.Workers)}, nil
}
