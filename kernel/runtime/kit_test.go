package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/runtime"
	"quire/kernel/tool"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

// Helpers shared by the loop tests (loop_test.go, permission_test.go,
// chain_test.go, snapshot_test.go, cancel_test.go, kill_test.go). Every
// kernel they start is a testkit kernel, so every log they produce is
// checked by core.Verify and core.Replay when the test ends.

// kit starts a kernel over a new database and a fake Ollama server with the
// default model; deltas are flushed every 5 ms.
func kit(t *testing.T, opts ...runtime.Option) *testkit.Kernel {
	t.Helper()
	return testkit.New(t, append([]runtime.Option{runtime.WithFlushEvery(5 * time.Millisecond)}, opts...)...)
}

// handsEveryCallOn makes the kit's model one whose built-in parser hands on
// calls to tools the request does not declare (the template parser of the
// default model drops them before Quire sees them), for the tests of what
// Quire does with such a call.
func handsEveryCallOn(k *testkit.Kernel) {
	m := ollamatest.DefaultModel()
	m.Parser = "qwen3"
	k.Ollama.AddModel(m)
}

// settings are the kit's settings changed by edit.
func settings(edit func(*runtime.Settings)) runtime.Settings {
	s := runtime.Settings{Model: testkit.Model, NumCtx: 8192}
	if edit != nil {
		edit(&s)
	}
	return s
}

// waiting is a read tool "wait" that signals started when it runs and
// holds its call until release is called (or the run ends): a run stopped
// at a known point, for a change made mid-run. release is also a cleanup.
func waiting(t *testing.T) (wait *fakeTool, started <-chan struct{}, release func()) {
	begun, start := signal()
	released, unblock := signal()
	t.Cleanup(unblock)
	return &fakeTool{spec: tool.Spec{Name: "wait", Effects: tool.ReadFs, Idempotency: tool.Safe},
		run: func(ctx context.Context, _ tool.Call) (tool.Result, error) {
			start()
			select {
			case <-released:
				return tool.Result{Status: tool.Success, Content: "waited"}, nil
			case <-ctx.Done():
				return tool.Result{}, ctx.Err()
			}
		}}, begun, unblock
}

// fakeTool is a tool whose behaviour is a function; it counts its runs.
type fakeTool struct {
	spec tool.Spec
	run  func(ctx context.Context, call tool.Call) (tool.Result, error)
	n    atomic.Int32
}

func (f *fakeTool) Spec() tool.Spec { return f.spec }

func (f *fakeTool) Run(ctx context.Context, call tool.Call) (tool.Result, error) {
	f.n.Add(1)
	return f.run(ctx, call)
}

// runs is how many times the tool was run.
func (f *fakeTool) runs() int { return int(f.n.Load()) }

// replying is a tool run that always succeeds with content.
func replying(content string) func(context.Context, tool.Call) (tool.Result, error) {
	return func(context.Context, tool.Call) (tool.Result, error) {
		return tool.Result{Status: tool.Success, Content: content}, nil
	}
}

type toolset []tool.Tool

func (s toolset) Tools() []tool.Tool { return s }

func withTools(ts ...tool.Tool) runtime.Option { return runtime.WithTools(toolset(ts)) }

// calling is a scripted reply that calls tools: each call is "id:name" or
// "id:name:{json arguments}".
func calling(calls ...string) ollamatest.Turn {
	turn := ollamatest.Turn{}
	for _, c := range calls {
		parts := strings.SplitN(c, ":", 3)
		tc := ollamatest.ToolCall{ID: parts[0], Name: parts[1]}
		if len(parts) == 3 {
			tc.Arguments = json.RawMessage(parts[2])
		}
		turn.ToolCalls = append(turn.ToolCalls, tc)
	}
	return turn
}

func saying(text ...string) ollamatest.Turn { return ollamatest.Turn{Content: text} }

// hanging is a reply that streams text and then hangs until the request ends.
func hanging(text ...string) ollamatest.Turn {
	return ollamatest.Turn{Content: text, Fail: ollamatest.Failure{Kind: ollamatest.FailHang, After: len(text)}}
}

// chat creates a session and returns its id.
func chat(t *testing.T, k *testkit.Kernel) string {
	t.Helper()
	s, err := newSession(t, k.Runtime, "test")
	if err != nil {
		t.Fatal(err)
	}
	return s.ID
}

// say submits text with intent ("" is a follow-up) and returns the run id.
func say(t *testing.T, k *testkit.Kernel, session, text, intent string) string {
	t.Helper()
	r, err := protocol.Run[protocol.SendResult](t.Context(), k.Runtime, "", protocol.SendMessage,
		protocol.SendMessagePayload{Session: session, Text: text, Intent: intent})
	if err != nil {
		t.Fatal(err)
	}
	return r.RunID
}

func logOf(t *testing.T, k *testkit.Kernel, session string) []event.Event {
	t.Helper()
	return k.Log(t, session)
}

// waitRuns waits until the session's log has n run.finished events.
func waitRuns(t *testing.T, k *testkit.Kernel, session string, n int) []event.Event {
	t.Helper()
	return k.WaitRuns(t, session, n)
}

// waitType waits until the session's log has an event of type typ.
func waitType(t *testing.T, k *testkit.Kernel, session string, typ event.Type) []event.Event {
	t.Helper()
	return k.Wait(t, session, string(typ), func(evs []event.Event) bool { return testkit.Count(evs, typ) > 0 })
}

// ofRun keeps the events of one run.
func ofRun(evs []event.Event, runID string) []event.Event {
	var out []event.Event
	for _, e := range evs {
		if e.RunID == runID {
			out = append(out, e)
		}
	}
	return out
}

// finished is the one run.finished of the session's log, failing if there
// is not exactly one.
func finished(t *testing.T, evs []event.Event) event.RunFinishedPayload {
	t.Helper()
	fins := only[event.RunFinishedPayload](t, evs, event.RunFinished)
	if len(fins) != 1 {
		t.Fatalf("%d run.finished events, want 1: %s", len(fins), testkit.Types(evs))
	}
	return fins[0]
}

// signal returns a channel and a func that closes it once.
func signal() (chan struct{}, func()) {
	ch := make(chan struct{})
	var done atomic.Bool
	return ch, func() {
		if done.CompareAndSwap(false, true) {
			close(ch)
		}
	}
}

// requests are the chat requests the fake server received.
func requests(k *testkit.Kernel) []api.ChatRequest {
	var out []api.ChatRequest
	for _, r := range k.Ollama.Requests() {
		out = append(out, r.Chat)
	}
	return out
}

// toolMessages are the tool messages of a request, in order.
func toolMessages(req api.ChatRequest) []api.Message {
	var out []api.Message
	for _, m := range req.Messages {
		if m.Role == "tool" {
			out = append(out, m)
		}
	}
	return out
}

// transcript is a request's messages as "role:content" joined by " | ".
func transcript(req api.ChatRequest) string {
	var b []string
	for _, m := range req.Messages {
		s := m.Role + ":" + m.Content
		for _, c := range m.ToolCalls {
			s += fmt.Sprintf(" [call %s %s %s]", c.ID, c.Function.Name, c.Function.Arguments.String())
		}
		if m.ToolCallID != "" {
			s += " [for " + m.ToolCallID + "]"
		}
		b = append(b, s)
	}
	return strings.Join(b, " | ")
}
