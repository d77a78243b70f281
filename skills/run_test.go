package skills_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"quire/internal/ollamatest"
	"quire/internal/testkit"
	"quire/kernel/protocol"
	"quire/kernel/provider/ollama"
	"quire/kernel/runtime"
	"quire/kernel/tool"
	"quire/skills"
)

func canonical(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// TestALoadIsAToolResultAndEveryRequestIsRebuilt: through the real runtime
// and the fake Ollama server, the first request lists the skill by name and
// description (not its instructions) and offers load_skill with the enum;
// the load is a tool.result whose instructions reach the next request; a
// skill turned off between runs is gone from the next run's list and
// enum; and every request is rebuilt from the log byte for byte.
func TestALoadIsAToolResultAndEveryRequestIsRebuilt(t *testing.T) {
	builtin := fstest.MapFS{
		"alpha/SKILL.md": {Data: []byte("---\nname: alpha\ndescription: Shipped alpha.\n---\nStep one: do alpha.\n")},
		"beta/SKILL.md":  {Data: []byte("---\nname: beta\ndescription: Shipped beta.\n---\nStep one: do beta.\n")},
	}
	var mu sync.Mutex
	var disabled []string
	cat, err := skills.New(builtin, t.TempDir(), func(context.Context) skills.State {
		mu.Lock()
		defer mu.Unlock()
		return skills.State{Disabled: append([]string(nil), disabled...)}
	}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	k := testkit.New(t, runtime.WithTools(cat), runtime.WithContributors(cat.Contributor()))
	k.Ollama.Script(
		ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "c1", Name: skills.LoadTool, Arguments: json.RawMessage(`{"name":"alpha"}`)}}},
		ollamatest.Turn{Content: []string{"Done alpha."}},
		ollamatest.Turn{Content: []string{"Only beta now."}},
	)
	s, err := protocol.Run[protocol.Session](t.Context(), k.Runtime, "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	send := func(text string) {
		if _, err := protocol.Run[protocol.SendResult](t.Context(), k.Runtime, "", protocol.SendMessage, protocol.SendMessagePayload{Session: s.ID, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	send("do alpha")
	k.WaitRuns(t, s.ID, 1)
	mu.Lock()
	disabled = []string{"alpha"}
	mu.Unlock()
	send("and again")
	k.WaitRuns(t, s.ID, 2)

	sent := k.Ollama.Requests()
	if len(sent) != 3 {
		t.Fatalf("%d requests", len(sent))
	}
	first, second, third := string(sent[0].Body), string(sent[1].Body), string(sent[2].Body)
	for _, want := range []string{`- alpha: Shipped alpha.`, `- beta: Shipped beta.`, `"enum":["alpha","beta"]`} {
		if !strings.Contains(first, want) {
			t.Errorf("the first request lacks %s", want)
		}
	}
	if strings.Contains(first, "Step one") {
		t.Error("the first request holds a skill's instructions")
	}
	if !strings.Contains(second, "Skill alpha loaded. Follow these instructions.") || !strings.Contains(second, "Step one: do alpha.") {
		t.Error("the load's result did not reach the next request")
	}
	if strings.Contains(third, "- alpha: Shipped alpha.") || !strings.Contains(third, `"enum":["beta"]`) {
		t.Errorf("the run after alpha was turned off still offers it:\n%s", third)
	}

	evs := k.Log(t, s.ID)
	loads := 0
	for _, e := range evs {
		if e.Type == "tool.result" && strings.Contains(string(e.Payload), `"name":"load_skill"`) {
			loads++
		}
		if e.Type == "permission.requested" {
			t.Error("load_skill was asked about")
		}
	}
	if loads != 1 {
		t.Fatalf("%d load_skill results in the log", loads)
	}
	for n, was := range sent {
		req, err := k.Runtime.Request(t.Context(), s.ID, n+1)
		if err != nil {
			t.Fatalf("request %d: %v", n+1, err)
		}
		body, err := ollama.RequestJSON(req)
		if err != nil {
			t.Fatal(err)
		}
		if rebuilt, sentJSON := canonical(t, body), canonical(t, was.Body); rebuilt != sentJSON {
			t.Fatalf("request %d rebuilt from the log:\n%s\nsent:\n%s", n+1, rebuilt, sentJSON)
		}
	}
}

// held is a read tool "hold" that signals when it runs and returns once
// released: a run stopped at a known point, for a change made mid-run.
type held struct{ started, release chan struct{} }

func (h held) Spec() tool.Spec {
	return tool.Spec{Name: "hold", Description: "Hold.", Effects: tool.ReadFs, Idempotency: tool.Safe, Timeout: time.Minute}
}

func (h held) Run(ctx context.Context, _ tool.Call) (tool.Result, error) {
	close(h.started)
	select {
	case <-h.release:
	case <-ctx.Done():
	}
	return tool.Result{Status: tool.Success, Content: "held"}, nil
}

type heldTools struct{ h held }

// identity is a context part besides the listing, as the product has one:
// without it a listing dropped mid-run would leave no text to refresh.
type identity struct{}

func (identity) Name() string                                       { return "Identity" }
func (identity) Contribute(context.Context, string) (string, error) { return "You are Quire.", nil }

func (p heldTools) Tools() []tool.Tool { return []tool.Tool{p.h} }

// TestASkillTurnedOffMidRunStaysForTheRun: the context is re-assembled
// before every step, and the listing still says what the run froze — the
// skill turned off while a tool ran is listed in the next step's request
// with the same enum, and gone from the next run's.
func TestASkillTurnedOffMidRunStaysForTheRun(t *testing.T) {
	builtin := fstest.MapFS{
		"alpha/SKILL.md": {Data: []byte("---\nname: alpha\ndescription: Shipped alpha.\n---\nStep one: do alpha.\n")},
		"beta/SKILL.md":  {Data: []byte("---\nname: beta\ndescription: Shipped beta.\n---\nStep one: do beta.\n")},
	}
	var mu sync.Mutex
	var disabled []string
	cat, err := skills.New(builtin, t.TempDir(), func(context.Context) skills.State {
		mu.Lock()
		defer mu.Unlock()
		return skills.State{Disabled: append([]string(nil), disabled...)}
	}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	h := held{started: make(chan struct{}), release: make(chan struct{})}
	k := testkit.New(t, runtime.WithTools(cat, heldTools{h}), runtime.WithContributors(identity{}, cat.Contributor()))
	k.Ollama.Script(
		ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "c1", Name: "hold", Arguments: json.RawMessage(`{}`)}}},
		ollamatest.Turn{Content: []string{"Done."}},
		ollamatest.Turn{Content: []string{"Next run."}},
	)
	s, err := protocol.Run[protocol.Session](t.Context(), k.Runtime, "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	send := func(text string) {
		if _, err := protocol.Run[protocol.SendResult](t.Context(), k.Runtime, "", protocol.SendMessage, protocol.SendMessagePayload{Session: s.ID, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	send("hold on")
	<-h.started
	mu.Lock()
	disabled = []string{"alpha"}
	mu.Unlock()
	close(h.release)
	k.WaitRuns(t, s.ID, 1)
	send("next")
	k.WaitRuns(t, s.ID, 2)
	sent := k.Ollama.Requests()
	if len(sent) != 3 {
		t.Fatalf("%d requests", len(sent))
	}
	for i, want := range []bool{true, true, false} {
		body := string(sent[i].Body)
		if got := strings.Contains(body, "- alpha: Shipped alpha."); got != want {
			t.Errorf("request %d lists alpha: %v, want %v", i+1, got, want)
		}
		if !strings.Contains(body, "- beta: Shipped beta.") {
			t.Errorf("request %d lost beta", i+1)
		}
	}
	if !strings.Contains(string(sent[1].Body), `"enum":["alpha","beta"]`) || !strings.Contains(string(sent[2].Body), `"enum":["beta"]`) {
		t.Error("the enum changed within the run or not after it")
	}
}
