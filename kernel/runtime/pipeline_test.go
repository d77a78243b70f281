package runtime_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"quire/kernel/event"
	"quire/kernel/runtime"
	"quire/kernel/tool"
	"quire/kernel/tool/registry"
)

func readNote(run func(context.Context, tool.Call) (tool.Result, error)) *fakeTool {
	return &fakeTool{spec: tool.Spec{Name: "read_note", Description: "Read a note.", Effects: tool.ReadFs, Idempotency: tool.Safe,
		Parameters: map[string]any{"type": "object", "required": []any{"path"},
			"properties": map[string]any{"path": map[string]any{"type": "string"}, "limit": map[string]any{"type": "integer"}}}},
		run: run}
}

// Bad arguments never break the loop: they become a result the model reads
// and corrects, and the tool does not run on them.
func TestBadArgumentsBecomeACorrectableResult(t *testing.T) {
	var got []string
	read := readNote(func(_ context.Context, c tool.Call) (tool.Result, error) {
		got = append(got, string(c.Arguments))
		return tool.Result{Status: tool.Success, Content: "contents"}, nil
	})
	k := kit(t, withTools(read))
	k.Ollama.Script(
		calling(`c1:read_note:{"limit":"ten"}`),
		calling(`c2:read_note:{"path":"plan.md","limit":10}`),
		saying("done"),
	)
	s := chat(t, k)
	say(t, k, s, "read it", "")
	evs := waitRuns(t, k, s, 1)
	if fin := finished(t, evs); fin.Reason != event.ReasonCompleted {
		t.Fatalf("run %+v", fin)
	}
	// The bad call is answered as the reply arrives, and the model reads why.
	bad := only[event.ToolRefusedPayload](t, evs, event.ToolRefused)
	if len(bad) != 1 || bad[0].CallID != "c1" || bad[0].Status != "failure" ||
		!strings.Contains(bad[0].Reason, `"path" is required`) || !strings.Contains(bad[0].Reason, `"limit" must be an integer`) {
		t.Fatalf("refusals %+v", bad)
	}
	if second := transcript(requests(k)[1]); !strings.Contains(second, `"path" is required`) {
		t.Fatalf("the model was not told why: %s", second)
	}
	if len(got) != 1 || !strings.Contains(got[0], `"plan.md"`) {
		t.Fatalf("the tool ran on %v; it must run only on valid arguments", got)
	}
}

// Long output is cut for the model with a note, the whole is kept in the
// log, and secrets are redacted from both.
func TestLongOutputIsCutAndSecretsRedacted(t *testing.T) {
	long := "AKIAABCDEFGHIJKLMNOP\n" + strings.Repeat("line of a long note\n", 1000)
	read := readNote(func(context.Context, tool.Call) (tool.Result, error) {
		return tool.Result{Status: tool.Success, Content: long}, nil
	})
	k := kit(t, withTools(read))
	k.Ollama.Script(calling(`c1:read_note:{"path":"big.md"}`), saying("ok"))
	s := chat(t, k)
	say(t, k, s, "read big", "")
	evs := waitRuns(t, k, s, 1)
	r := only[event.ToolResultPayload](t, evs, event.ToolResult)[0]
	if len(r.Content) > 9000 || !strings.Contains(r.Content, "more characters not shown") {
		t.Fatalf("content for the model is %d chars: %q", len(r.Content), r.Content[len(r.Content)-200:])
	}
	if !strings.Contains(r.Full, "line of a long note") || len(r.Full) < 20000 {
		t.Fatalf("the whole output is not kept (%d chars)", len(r.Full))
	}
	for _, text := range []string{r.Content, r.Full} {
		if strings.Contains(text, "AKIAABCDEFGHIJKLMNOP") {
			t.Fatal("a secret reached the log")
		}
	}
	reqs := k.Ollama.Requests()
	body, _ := json.Marshal(reqs[len(reqs)-1].Chat.Messages)
	if strings.Contains(string(body), "AKIA") || len(body) > 12000 {
		t.Fatalf("the model saw %d bytes of tool output or a secret", len(body))
	}
}

type describing struct{ *fakeTool }

func (d describing) Describe(c tool.Call) string { return "Move a.md → b.md (" + c.ID + ")" }

// The person asked sees what each call would do, as the tool describes it.
func TestQuestionsCarryTheToolsDescriptions(t *testing.T) {
	move := describing{&fakeTool{spec: tool.Spec{Name: "move_note", Effects: tool.WriteFs, Idempotency: tool.Keyed}, run: replying("moved")}}
	plain := &fakeTool{spec: tool.Spec{Name: "other_write", Effects: tool.WriteFs}, run: replying("ok")}
	var asked runtime.Question
	k := kit(t, withTools(move, plain), runtime.WithAsker(func(_ context.Context, q runtime.Question) (runtime.Answer, error) {
		asked = q
		return runtime.Answer{Allowed: true}, nil
	}))
	k.Ollama.Script(calling(`c1:move_note:{"from":"a.md"}`, `c2:other_write:{"x":1}`), saying("done"))
	s := chat(t, k)
	say(t, k, s, "tidy up", "")
	waitRuns(t, k, s, 1)
	if len(asked.Descriptions) != 2 || asked.Descriptions[0] != "Move a.md → b.md (c1)" || asked.Descriptions[1] != `other_write {"x":1}` {
		t.Fatalf("descriptions %q", asked.Descriptions)
	}
}

// A tool denied by a visibility layer is not offered, and a call to it is
// refused like a call to a tool that does not exist; a later layer's allow
// does not lift the deny.
func TestDeniedToolsAreNotOffered(t *testing.T) {
	secret := &fakeTool{spec: tool.Spec{Name: "exec_shell", Effects: tool.Exec}, run: replying("ran")}
	read := readNote(replying("ok"))
	k := kit(t, withTools(secret, read))
	handsEveryCallOn(k)
	k.Runtime.SetSettings(runtime.Settings{Model: "qwen3:4b", NumCtx: 8192, Layers: []registry.Layer{
		{Name: "global", Deny: []string{"exec_shell"}},
		{Name: "mode", Allow: []string{"exec_shell", "read_note"}},
	}})
	k.Ollama.Script(calling(`c1:exec_shell:{}`), saying("ok"))
	s := chat(t, k)
	say(t, k, s, "run it", "")
	evs := waitRuns(t, k, s, 1)
	var offered []string
	for _, tl := range k.Ollama.Requests()[0].Chat.Tools {
		offered = append(offered, tl.Function.Name)
	}
	if len(offered) != 1 || offered[0] != "read_note" {
		t.Fatalf("offered %v", offered)
	}
	if secret.runs() != 0 {
		t.Fatal("a denied tool ran")
	}
	refused := only[event.ToolRefusedPayload](t, evs, event.ToolRefused)
	if len(refused) != 1 || !strings.Contains(refused[0].Reason, "no tool named") {
		t.Fatalf("refusals %+v", refused)
	}
}

type switchable struct {
	mu    sync.Mutex
	tools []tool.Tool
}

func (s *switchable) Tools() []tool.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tools
}

func (s *switchable) set(ts ...tool.Tool) {
	s.mu.Lock()
	s.tools = ts
	s.mu.Unlock()
}

// Tools are frozen with the run: taking a tool away mid-run (a new notes
// folder, say) affects only later runs.
func TestToolsAreFrozenForTheRun(t *testing.T) {
	read := readNote(replying("contents"))
	p := &switchable{}
	p.set(read)
	k := kit(t, runtime.WithTools(p))
	handsEveryCallOn(k)
	turn := calling(`c1:read_note:{"path":"a.md"}`)
	turn.Delay = 100 * time.Millisecond
	k.Ollama.Script(turn, saying("done"))
	s := chat(t, k)
	say(t, k, s, "read", "")
	p.set() // gone for later runs
	evs := waitRuns(t, k, s, 1)
	r := only[event.ToolResultPayload](t, evs, event.ToolResult)
	if len(r) != 1 || r[0].Status != "success" || read.runs() != 1 {
		t.Fatalf("the run lost its tool: %+v", r)
	}
	k.Ollama.Script(calling(`c2:read_note:{"path":"a.md"}`), saying("done"))
	say(t, k, s, "again", "")
	evs = waitRuns(t, k, s, 2)
	if refused := only[event.ToolRefusedPayload](t, evs, event.ToolRefused); len(refused) != 1 {
		t.Fatalf("the next run still had the tool: %+v", refused)
	}
}
