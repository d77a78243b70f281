package runtime_test

import (
	"fmt"
	"strings"
	"testing"

	"quire/kernel/event"
	"quire/kernel/runtime"
	"quire/kernel/tool"
	"quire/test/ollamatest"
)

// distinct is an endless reply's pieces that do not repeat within the
// repetition guard's reach (a cycle of over 512 bytes): only a bound on
// tokens can end it.
func distinct() []string {
	var out []string
	for i := range 200 {
		out = append(out, fmt.Sprintf("w%03d ", i))
	}
	return out
}

// TestRunawayReplyIsBounded: a model whose reply never ends (the fake
// plays it as Ollama does, honouring num_predict) is stopped — by the
// server at the request's num_predict, by the run's budget while it
// streams, or by the repetition guard — and the run says why and keeps
// what came.
func TestRunawayReplyIsBounded(t *testing.T) {
	t.Parallel()
	look := func() *fakeTool {
		return &fakeTool{spec: tool.Spec{Name: "look", Effects: tool.ReadFs, Idempotency: tool.Safe}, run: replying("seen")}
	}
	tests := []struct {
		name        string
		numCtx      int
		budget      int
		turns       []ollamatest.Turn
		wantReason  string
		wantMessage string
		// most is the most bytes the cut reply may have.
		most int
	}{
		{"a repeating reply is cut by the guard", 32768, 200_000,
			[]ollamatest.Turn{{Content: []string{"All work and no play makes Jack a dull boy. "}, Endless: true}},
			event.ReasonLoop, "kept repeating", 2048},
		{"a reply that never ends stops at the window's room", 2048, 200_000,
			[]ollamatest.Turn{{Content: distinct(), Endless: true}},
			event.ReasonBudget, "reached its limit", 2048 * 5},
		{"the budget is checked while the reply streams", 32768, 7000,
			[]ollamatest.Turn{
				// The server counted the first prompt at 3000 tokens, far
				// more than four characters a token: the bound sent with
				// the next request, made from the estimate, is too loose,
				// and the count as the reply streams ends it.
				{ToolCalls: []ollamatest.ToolCall{{ID: "c1", Name: "look"}}, PromptEvalCount: 3000},
				{Content: distinct(), Endless: true},
			},
			event.ReasonBudget, "would pass this request's budget of 7000", 1000 * 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			k := kit(t, withTools(look()))
			k.Runtime.SetSettings(settings(func(s *runtime.Settings) {
				s.NumCtx = tt.numCtx
				s.Limits = runtime.DefaultLimits
				s.Limits.TokenBudget = tt.budget
			}))
			k.Ollama.Script(tt.turns...)
			s := chat(t, k)
			say(t, k, s, "tell me everything", "")
			evs := waitRuns(t, k, s, 1)

			fin := finished(t, evs)
			if fin.Reason != tt.wantReason || !strings.Contains(fin.Error, tt.wantMessage) {
				t.Fatalf("run finished %q %q; want %q, saying %q", fin.Reason, fin.Error, tt.wantReason, tt.wantMessage)
			}
			msgs := only[event.AssistantMessagePayload](t, evs, event.AssistantMessage)
			last := msgs[len(msgs)-1]
			if last.Content == "" {
				t.Fatal("the cut reply was not kept")
			}
			if len(last.Content) > tt.most {
				t.Errorf("the reply ran to %d bytes; want at most %d", len(last.Content), tt.most)
			}
			for i, r := range requests(k) {
				if n, _ := r.Options["num_predict"].(float64); n <= 0 || int(n) > tt.budget {
					t.Errorf("request %d: num_predict %v; want a bound within the budget %d", i, r.Options["num_predict"], tt.budget)
				}
			}
		})
	}
}
