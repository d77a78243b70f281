//go:build e2e

package e2e

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/ollama/ollama/api"

	"quire/queue"
	"quire/test/ollamatest"
)

// The batch case's scripted workers (the queue's own workers over the fake
// model): each task's message names its note, and the worker proposes what
// batchPlan says for it, then ends its run. batchFail answers with words
// only, so its task fails with the queue's reason and the others go on.
var (
	batchTask = regexp.MustCompile(`^Organise the note (\S+)\. `)
	batchPlan = map[string]map[string]any{
		"inbox/a.md": {"path": "projects/a.md", "tags": []string{"idea"}, "links": []string{}, "reason": "a project idea"},
		"inbox/b.md": {"path": "journal/b.md", "tags": []string{}, "links": []string{}, "reason": "a diary entry"},
		"inbox/c.md": {"path": "people/c.md", "tags": []string{}, "links": []string{"inbox/a.md"}, "reason": "about Carol, who had the idea"},
	}
)

const batchFail = "inbox/d.md"

// writeBatchNotes is the batch case's notes folder: an inbox of four notes
// and a note elsewhere, which a destination can collide with.
func writeBatchNotes(t *testing.T) string {
	return writeFiles(t, "BatchNotes", map[string]string{
		"inbox/a.md":     "# A\n\nAn idea for a project.\n",
		"inbox/b.md":     "# B\n\nToday I walked.\n",
		"inbox/c.md":     "# C\n\nCarol called about the idea.\n",
		"inbox/d.md":     "# D\n\nUnreadable scribbles.\n",
		"archive/old.md": "# Old\n\nAn old note.\n",
	})
}

// batchReplies is the workers' side of the fake model.
func batchReplies(req api.ChatRequest) (ollamatest.Turn, bool) {
	if len(req.Messages) == 0 {
		return ollamatest.Turn{}, false
	}
	// The task's message is the worker session's first user message.
	var note string
	for _, m := range req.Messages {
		if m.Role == "user" {
			if g := batchTask.FindStringSubmatch(m.Content); g != nil {
				note = g[1]
			}
			break
		}
	}
	if note == "" {
		return ollamatest.Turn{}, false
	}
	if req.Messages[len(req.Messages)-1].Role == "tool" {
		return say("Proposed."), true
	}
	plan, ok := batchPlan[note]
	if note == batchFail || !ok {
		return say("I cannot tell where this note belongs."), true
	}
	args, _ := json.Marshal(plan)
	return ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{Name: queue.ProposeName, Arguments: args}}}, true
}
