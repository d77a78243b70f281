package assembly

import (
	"log/slog"
	"strings"
	"testing"

	"quire/config"
	"quire/test/ollamatest"
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

// TestDoctorChecksTheOpenAIRunner: with an OpenAI-compatible runner
// chosen, doctor says it answers, that the model is loaded with the context
// the server gives, and what the tool probe learnt.
func TestDoctorChecksTheOpenAIRunner(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	cfg := config.Config{DataDir: t.TempDir(), OllamaHost: fake.URL(), Model: "qwen3:4b", NumCtx: 4096,
		Runner: config.RunnerOpenAI, RunnerURL: fake.URL() + "/v1"}
	p, err := Open(t.Context(), config.NewStore(cfg), slog.New(slog.DiscardHandler), Owner)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	lines := map[string]string{}
	for _, c := range p.Doctor(t.Context()).Checks {
		if c.OK {
			lines[c.Name] += c.Detail
		}
	}
	for name, want := range map[string]string{
		"Runner":        "an OpenAI-compatible server at " + fake.URL() + "/v1",
		"Chat model":    "qwen3:4b is loaded. Context: 40,960 tokens",
		"Runners found": "",
	} {
		if got, ok := lines[name]; !ok || !strings.Contains(got, want) {
			t.Errorf("doctor's %s line is %q, want it to pass saying %q", name, got, want)
		}
	}
	if !strings.Contains(lines["Tool use"], "qwen3:4b takes tools") {
		t.Errorf("doctor's tool lines %q", lines["Tool use"])
	}
}

// TestAnOpenAIRunnersModelNamesAreItsOwn: with an OpenAI-compatible runner
// the Settings screen takes the server's model ids, which Ollama's name
// rules would refuse; with Ollama it still refuses them.
func TestAnOpenAIRunnersModelNamesAreItsOwn(t *testing.T) {
	const id = "../models/Qwen3-4B-Q4_K_M.gguf" // llama.cpp's default id: the model path
	for runner, refused := range map[string]bool{config.RunnerOpenAI: false, config.RunnerOllama: true} {
		c := config.Config{Model: id, Runner: runner}
		if err := modelNames(c); (err != nil) != refused {
			t.Errorf("runner %s: model %q gave %v", runner, id, err)
		}
	}
}
