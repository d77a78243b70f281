package assembly

import (
	"encoding/json"
	"log/slog"
	"slices"
	"testing"

	"quire/config"
	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

// firstMessage opens the root as the window does, over a fake Ollama that
// has the default model and chat (its chat model), with a notes folder set
// and num_ctx 4096, sends "Hello" in a new conversation and waits for the
// run's end. The fake answers "Hello.".
func firstMessage(tb testing.TB, chat ollamatest.Model) (*ollamatest.Server, []protocol.Event) {
	tb.Helper()
	fake := ollamatest.New(tb)
	fake.AddModel(ollamatest.DefaultModel())
	fake.AddModel(chat)
	fake.Script(ollamatest.Turn{Content: []string{"Hello."}})
	cfg := config.Config{DataDir: tb.TempDir(), OllamaHost: fake.URL(), Model: chat.Name, NumCtx: 4096, NotesDir: tb.TempDir()}
	p, err := Open(tb.Context(), config.NewStore(cfg), slog.New(slog.DiscardHandler), Owner)
	if err != nil {
		tb.Fatal(err)
	}
	defer p.Close()
	sess, err := protocol.Run[protocol.Session](tb.Context(), p.Kernel(), "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "fit"})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := protocol.Run[protocol.SendResult](tb.Context(), p.Kernel(), "", protocol.SendMessage, protocol.SendMessagePayload{Session: sess.ID, Text: "Hello"}); err != nil {
		tb.Fatal(err)
	}
	testkit.WaitRuns(tb, p.Kernel(), sess.ID, 1)
	evs, err := p.Kernel().Events(tb.Context(), sess.ID, 0)
	if err != nil {
		tb.Fatal(err)
	}
	return fake, evs
}

// TestTheRootFitsTheToolsToTheModel: the composition root asks Ollama what
// the chat model can do, so a model without tools is sent none and
// answers, its run's snapshot naming a model that could; and a model with
// a 4,096-token context, with a notes folder set, gets its first answer.
func TestTheRootFitsTheToolsToTheModel(t *testing.T) {
	for _, tc := range []struct {
		name      string
		model     ollamatest.Model
		withTools bool
	}{
		{"a model without tools", ollamatest.Model{Name: "gemma3:1b", ContextLength: 32768}, false},
		{"a 4,096-token model", ollamatest.Model{Name: "small:1b", Capabilities: []string{"completion", "tools"}, ContextLength: 4096}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake, evs := firstMessage(t, tc.model)
			var caps *event.Capabilities
			var fin event.RunFinishedPayload
			for _, e := range evs {
				switch e.Type {
				case string(event.InputReceived):
					var in event.InputReceivedPayload
					if err := json.Unmarshal(e.Payload, &in); err != nil {
						t.Fatal(err)
					}
					caps = in.Caps
				case string(event.RunFinished):
					if err := json.Unmarshal(e.Payload, &fin); err != nil {
						t.Fatal(err)
					}
				}
			}
			if fin.Reason != event.ReasonCompleted {
				t.Fatalf("the first message ended %+v", fin)
			}
			reqs := fake.Requests()
			if len(reqs) != 1 || (len(reqs[0].Chat.Tools) > 0) != tc.withTools {
				t.Fatalf("%d requests, the first declaring %d tools", len(reqs), len(reqs[0].Chat.Tools))
			}
			if !tc.withTools && (caps == nil || caps.ToolsOff != event.ToolsOffModel || !slices.Contains(caps.Withheld, "list_notes") ||
				!slices.Equal(caps.ToolModels, []string{"qwen3:4b"})) {
				t.Fatalf("the snapshot %+v does not say the tools were withheld and who could use them", caps)
			}
		})
	}
}

// BenchmarkToolDeclarations measures what Quire's tools cost every request
// with a notes folder set and no document indexed: how many are declared,
// their JSON (as Ollama's client sends it) and the prompt tokens the fake
// server counts for a first "Hello" (Qwen3's template: the declarations as
// it renders them, docs/BENCHMARKS-NOTEBOOK.md "Tool declarations"). The loop times
// marshalling the declarations, the part that runs on every request.
func BenchmarkToolDeclarations(b *testing.B) {
	fake, _ := firstMessage(b, ollamatest.Model{Name: "small:1b", Capabilities: []string{"completion", "tools"}, ContextLength: 4096})
	req := fake.Requests()[0].Chat
	size := 0
	for b.Loop() {
		body, err := json.Marshal(req.Tools)
		if err != nil {
			b.Fatal(err)
		}
		size = len(body)
	}
	b.ReportMetric(float64(len(req.Tools)), "tools")
	b.ReportMetric(float64(size), "bytes")
	b.ReportMetric(float64(ollamatest.EstimateTokens(&req)), "prompt-tokens")
}
