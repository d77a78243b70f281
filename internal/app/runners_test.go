package app

import (
	"log/slog"
	"testing"

	"quire/config"
	"quire/internal/ollamatest"
)

// TestOpenAIRunIsReplayedAsSentAndStaysOnItsRunner: a run through the
// OpenAI-compatible runner freezes it; its request rebuilt from the log is
// the body the server received (as JSON); after Settings switches back to
// Ollama, the next run goes to /api/chat and the first is still rebuilt
// as the OpenAI body it was.
func TestOpenAIRunIsReplayedAsSentAndStaysOnItsRunner(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.Script(ollamatest.Turn{Content: []string{"Hello ", "there."}})
	cfg := config.Config{DataDir: t.TempDir(), OllamaHost: fake.URL(), Model: "qwen3:4b", NumCtx: 4096,
		Runner: config.RunnerOpenAI, RunnerURL: fake.URL() + "/v1"}
	p, err := Open(t.Context(), config.NewStore(cfg), slog.New(slog.DiscardHandler), Owner)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	first := say(t, p, "hello")
	if caps := capsOf(t, p, first); caps.Runner != config.RunnerOpenAI || caps.Host != fake.URL()+"/v1" {
		t.Fatalf("the run froze runner %q at %q", caps.Runner, caps.Host)
	}
	if err := p.settings.Update(func(c *config.Config) error { c.Runner = config.RunnerOllama; return nil }); err != nil {
		t.Fatal(err)
	}
	second := say(t, p, "again")
	reqs := fake.Requests()
	if len(reqs) != 2 || !reqs[0].OpenAI || reqs[1].OpenAI {
		t.Fatalf("requests %q: want the first at /v1, the second at /api/chat", requestBodies(reqs))
	}
	for i, sess := range []string{first, second} {
		rebuilt, err := p.Request(t.Context(), sess, 1)
		if err != nil {
			t.Fatal(err)
		}
		canon, err := CanonicalJSON(reqs[i].Body)
		if err != nil {
			t.Fatal(err)
		}
		if string(rebuilt) != string(canon) {
			t.Errorf("request %d rebuilt from the log:\n%s\nsent:\n%s", i+1, rebuilt, reqs[i].Body)
		}
	}
}
