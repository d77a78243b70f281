//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"

	"github.com/ollama/ollama/api"

	"quire/internal/ollamatest"
	"quire/kernel/compact"
	"quire/kernel/runtime"
	"quire/kernel/tool"
)

// compactPrompt starts the compaction case against the real backend: the
// fake model reads a long build log twice, and before its third step the
// real compaction drops the first read (drop-logs, by size), so the page
// shows the marker Go's history.replace made.
const compactPrompt = "/compact read the build log"

// compactPolicy triggers by size at 30 % of the kit's num_ctx 8192: two
// reads of buildLog pass it; no other case comes near it.
func compactPolicy() runtime.Option {
	p := compact.DefaultPolicy
	p.SizeTrigger, p.PollutionTrigger, p.KeepRecent = 0.3, 10, 2
	return runtime.WithCompaction(compact.New(compact.WithPolicy(p)))
}

// buildLog is what read_log returns: 40 lines of about 150 characters.
var buildLog = func() string {
	var b strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "Line %d of the build log: compiling module %d %s\n", i, i, strings.Repeat("·", 100))
	}
	return b.String()
}()

// compactReplies answers the compaction case from the whole request: read,
// read again, then the answer once a compaction's summary is in the
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
	if compacted || reads >= 2 {
		return ollamatest.Turn{Content: []string{"The build log shows 40 modules compiled."}}, true
	}
	return ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{Name: "read_log", Arguments: []byte(`{"path":"logs/build.md"}`)}}}, true
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
