package skills_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"quire/kernel/protocol"
	"quire/kernel/runtime"
	"quire/kernel/tool"
	"quire/skills"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

// chat is a testkit kernel offered two shipped skills, alpha and beta,
// with the catalog's tools and listing (and the extra tool providers), one
// session, and a switch that turns alpha off as Settings would.
type chat struct {
	k       *testkit.Kernel
	session string
	mu      sync.Mutex
	off     []string
}

func newChat(t *testing.T, extra ...runtime.ToolProvider) *chat {
	t.Helper()
	builtin := fstest.MapFS{
		"alpha/SKILL.md": {Data: []byte("---\nname: alpha\ndescription: Shipped alpha.\n---\nStep one: do alpha.\n")},
		"beta/SKILL.md":  {Data: []byte("---\nname: beta\ndescription: Shipped beta.\n---\nStep one: do beta.\n")},
	}
	c := &chat{}
	cat, err := skills.New(builtin, t.TempDir(), func(context.Context) skills.State {
		c.mu.Lock()
		defer c.mu.Unlock()
		return skills.State{Disabled: append([]string(nil), c.off...)}
	}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	c.k = testkit.New(t, runtime.WithTools(append([]runtime.ToolProvider{cat}, extra...)...), runtime.WithContributors(identity{}, cat.Contributor()))
	s, err := protocol.Run[protocol.Session](t.Context(), c.k.Runtime, "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	c.session = s.ID
	return c
}

func (c *chat) turnOff(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.off = append(c.off, name)
}

func (c *chat) send(t *testing.T, text string) {
	t.Helper()
	if _, err := protocol.Run[protocol.SendResult](t.Context(), c.k.Runtime, "", protocol.SendMessage, protocol.SendMessagePayload{Session: c.session, Text: text}); err != nil {
		t.Fatal(err)
	}
}

// identity is a context part besides the listing, as the product has one:
// without it a listing dropped mid-run would leave no text to refresh.
type identity struct{}

func (identity) Name() string                                       { return "Identity" }
func (identity) Contribute(context.Context, string) (string, error) { return "You are Quire.", nil }

// TestALoadIsAToolResultAndEveryRequestIsRebuilt: through the real runtime
// and the fake Ollama server, the first request lists the skill by name and
// description (not its instructions) and offers load_skill with the enum;
// the load is a tool.result whose instructions reach the next request; a
// skill turned off between runs is gone from the next run's list and
// enum; and every request is rebuilt from the log byte for byte.
func TestALoadIsAToolResultAndEveryRequestIsRebuilt(t *testing.T) {
	c := newChat(t)
	c.k.Ollama.Script(
		ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "c1", Name: skills.LoadTool, Arguments: json.RawMessage(`{"name":"alpha"}`)}}},
		ollamatest.Turn{Content: []string{"Done alpha."}},
		ollamatest.Turn{Content: []string{"Only beta now."}},
	)
	c.send(t, "do alpha")
	c.k.WaitRuns(t, c.session, 1)
	c.turnOff("alpha")
	c.send(t, "and again")
	c.k.WaitRuns(t, c.session, 2)

	sent := c.k.Ollama.Requests()
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
	loads := 0
	for _, e := range c.k.Log(t, c.session) {
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
	testkit.RebuiltAsSent(t, c.k.Runtime, c.session, sent)
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

func (h held) Tools() []tool.Tool { return []tool.Tool{h} }

// TestASkillTurnedOffMidRunStaysForTheRun: the context is re-assembled
// before every step, and the listing still says what the run froze — the
// skill turned off while a tool ran is listed in the next step's request
// with the same enum, and gone from the next run's.
func TestASkillTurnedOffMidRunStaysForTheRun(t *testing.T) {
	h := held{started: make(chan struct{}), release: make(chan struct{})}
	c := newChat(t, h)
	c.k.Ollama.Script(
		ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "c1", Name: "hold", Arguments: json.RawMessage(`{}`)}}},
		ollamatest.Turn{Content: []string{"Done."}},
		ollamatest.Turn{Content: []string{"Next run."}},
	)
	c.send(t, "hold on")
	<-h.started
	c.turnOff("alpha")
	close(h.release)
	c.k.WaitRuns(t, c.session, 1)
	c.send(t, "next")
	c.k.WaitRuns(t, c.session, 2)
	sent := c.k.Ollama.Requests()
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
	testkit.RebuiltAsSent(t, c.k.Runtime, c.session, sent)
}
