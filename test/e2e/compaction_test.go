//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"

	"github.com/ollama/ollama/api"

	"quire/kernel/tool"
	"quire/test/ollamatest"
)

// compactPrompt starts the compaction case against `quire serve`'s own
// compaction (the default policy: by size at 75 % of the window, the last 4
// messages kept; the window is the default num_ctx 8192, below the fake
// model's context length). The fake model reads a long build log three
// times: the request after two reads (with the note tools on, about 5,700
// tokens) stays under the trigger's 6,144, the one after three (about
// 7,200) passes it, so before the last step the first read — the only one
// outside the 4 kept messages — is dropped (drop-logs), and the page shows
// the marker Go's history.replace made.
const compactPrompt = "/compact read the build log"

// compactReads is how many times the model reads the log.
const compactReads = 3

// buildLog is what read_log returns: 40 lines of about 150 ASCII characters
// (the fake counts a character outside ASCII as a token, as a tokenizer
// does for most scripts, which would make each read four times heavier).
var buildLog = func() string {
	var b strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "Line %d of the build log: compiling module %d %s\n", i, i, strings.Repeat(".", 100))
	}
	return b.String()
}()

// compactReplies answers the compaction case from the whole request: read
// compactReads times, then the answer once a compaction's summary is in the
// history; other requests fall through to the other replies.
func compactReplies(req api.ChatRequest) (ollamatest.Turn, bool) {
	reads, compacted, mine := 0, false, false
	for _, m := range req.Messages {
		switch {
		case m.Role == "user" && m.Content == compactPrompt:
			mine = true
		case m.Role == "user" && strings.HasPrefix(m.Content, "Summary of the earlier conversation"):
			compacted = true
		case m.Role == "tool":
			reads++
		}
	}
	if !mine {
		return ollamatest.Turn{}, false
	}
	if compacted || reads >= compactReads {
		return ollamatest.Turn{Content: []string{"The build log shows 40 modules compiled."}}, true
	}
	// Each read names another part of the log: the runtime stops a run that
	// makes the same call three times in a row.
	path := "logs/build.md"
	if reads > 0 {
		path = fmt.Sprintf("logs/build-%d.md", reads+1)
	}
	return ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{Name: "read_log", Arguments: []byte(`{"path":"` + path + `"}`)}}}, true
}

// readLog is the case's read-only tool (not the note tools' read_note: the
// notes folder is on for other cases, and one name is one tool).
type readLog struct{}

func (readLog) Spec() tool.Spec {
	return tool.Spec{Name: "read_log", Description: "Read a note.", Effects: tool.ReadFs, Idempotency: tool.Safe,
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []any{"path"}}}
}

func (readLog) Run(context.Context, tool.Call) (tool.Result, error) {
	return tool.Result{Status: tool.Success, Content: buildLog}, nil
}

type caseTools []tool.Tool

func (t caseTools) Tools() []tool.Tool { return t }
