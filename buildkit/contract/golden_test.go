package contract

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/runtime"
	"quire/kernel/tool"
	"quire/test/ollamatest"
	"quire/test/testkit"
	"quire/tools/todo"
)

var update = flag.Bool("update", false, "rewrite the golden event log the frontend's tests fold ("+GoldenPath+")")

// GoldenPath is the event log of a real conversation, as the page receives
// it; frontend/test/golden.test.ts folds it.
const GoldenPath = "frontend/test/golden/conversation.json"

// TestGoldenLogIsFresh runs a real conversation (the runtime over SQLite,
// the Ollama client against the fake server, the real todo tools) and
// compares the public events, as a host sends them to the page, with the
// committed log the frontend's tests fold. A changed Go payload changes the
// log, so the fold's test sees what the page would see.
func TestGoldenLogIsFresh(t *testing.T) {
	got := goldenLog(t)
	path := filepath.Join("..", "..", GoldenPath)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: run `%s` from the repository root", err, Command)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: a real conversation's events changed (first difference at line %d).\nRun `%s` from the repository root and commit the result; then make the frontend follow (cd frontend && npx vitest run test/golden.test.ts).",
			GoldenPath, firstDiffLine(want, got), Command)
	}
}

// noteWriter stands for a note tool that writes: it needs the user's yes,
// and nobody answers in this conversation, so it is refused by default.
type noteWriter struct{}

func (noteWriter) Spec() tool.Spec {
	return tool.Spec{Name: "create_note", Description: "Create a note.", Effects: tool.WriteFs, Idempotency: tool.Unsafe,
		Timeout: time.Second, Parameters: map[string]any{"type": "object"}}
}

func (noteWriter) Run(context.Context, tool.Call) (tool.Result, error) {
	return tool.Result{}, fmt.Errorf("the golden conversation never allows a write")
}

type toolset []tool.Tool

func (s toolset) Tools() []tool.Tool { return s }

// goldenLog plays the conversation: a user asks, the model thinks and plans
// with update_todos (it runs: it changes nothing), then asks for
// create_note (refused: nobody said yes), then answers; the user renames
// the chat. Ids come from a counter, so the log is the same on every run;
// times and measured durations are pinned.
func goldenLog(t *testing.T) []byte {
	t.Helper()
	var ids atomic.Int64
	k := testkit.New(t,
		runtime.WithIDs(func() string { return fmt.Sprintf("id%d", ids.Add(1)) }),
		runtime.WithFlushEvery(time.Hour), // one delta batch per step, whatever the timing
		runtime.WithTools(toolset(append(todo.Tools(), noteWriter{}))),
	)
	// One call a step: a step's tools and its question run in goroutines of
	// their own, and two of them would report in either order.
	k.Ollama.Script(
		ollamatest.Turn{
			Thinking:  []string{"A plan first."},
			Content:   []string{"Here is ", "a plan."},
			ToolCalls: []ollamatest.ToolCall{{ID: "call_plan", Name: "update_todos", Arguments: json.RawMessage(`{"items":[{"text":"Draft the week","done":true},{"text":"File the note","done":false}]}`)}},
		},
		ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "call_note", Name: "create_note", Arguments: json.RawMessage(`{"path":"week.md","text":"Monday: plan."}`)}}},
		ollamatest.Turn{Content: []string{"The plan is ready; the note was not filed."}},
	)
	ctx := t.Context()
	s, err := protocol.Run[protocol.Session](ctx, k.Runtime, "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "Week"})
	if err != nil {
		t.Fatal(err)
	}
	live, errp := k.Runtime.Follow(ctx, s.ID, 0)
	if _, err := protocol.Run[protocol.SendResult](ctx, k.Runtime, "", protocol.SendMessage,
		protocol.SendMessagePayload{Session: s.ID, Text: "Plan my week and file a note."}); err != nil {
		t.Fatal(err)
	}
	for e := range live {
		if e.Type == string(event.RunFinished) {
			break
		}
	}
	if err := errp(); err != nil {
		t.Fatal(err)
	}
	if _, err := protocol.Run[protocol.Session](ctx, k.Runtime, "", protocol.RenameSession,
		protocol.RenameSessionPayload{Session: s.ID, Title: "My week"}); err != nil {
		t.Fatal(err)
	}
	evs, err := k.Runtime.Events(ctx, s.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.WriteString("[\n")
	for i, e := range protocol.Filter(evs, protocol.Audience{}) {
		if i > 0 {
			b.WriteString(",\n")
		}
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
	}
	b.WriteString("\n]\n")
	log := regexp.MustCompile(`"(durationNs|deadlineNs)":\d+`).ReplaceAll(b.Bytes(), []byte(`"${1}":1000000`))
	return regexp.MustCompile(`"time":"[^"]+"`).ReplaceAll(log, []byte(`"time":"2026-11-30T10:00:00Z"`))
}
