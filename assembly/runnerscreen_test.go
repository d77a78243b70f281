package assembly

import (
	"errors"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"quire/config"
	"quire/doctor"
	"quire/kernel/protocol"
	"quire/kernel/provider/openai"
	"quire/test/ollamatest"
)

// runnerParts opens an owner whose chosen runner is the fake at its /v1,
// and whose discovery looks for "LM Studio" on the fake's port.
func runnerParts(t *testing.T, fake *ollamatest.Server, cfg config.Config) *Parts {
	t.Helper()
	u, _ := url.Parse(fake.URL())
	port, _ := strconv.Atoi(u.Port())
	cfg.DataDir, cfg.NumCtx = t.TempDir(), 4096
	cfg.OllamaHost = cmpOr(cfg.OllamaHost, fake.URL())
	p, err := OpenWith(t.Context(), config.NewStore(cfg), slog.New(slog.DiscardHandler), Owner,
		Extras{RunnerPorts: []openai.UsualPort{{Name: "LM Studio", Port: port}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestSettingsScreenSaysWhatEachRunnerSays: per runner flavour, the screen
// finds the runner on its port, lists its models, and says each model's
// context where the server says it and plainly where it cannot be known.
func TestSettingsScreenSaysWhatEachRunnerSays(t *testing.T) {
	tests := []struct {
		name    string
		flavour ollamatest.Flavour
		runner  string
		says    string // of qwen3:4b
		tools   string
	}{
		{"llama.cpp", ollamatest.FlavourLlamaCpp, config.RunnerOpenAI, "Context: 40,960 tokens (from llama.cpp's /props).", "yes"},
		{"LM Studio", ollamatest.FlavourLMStudio, config.RunnerOpenAI, "Context: 40,960 tokens (from LM Studio's /api/v0/models). Takes tools.", "yes"},
		{"Jan", ollamatest.FlavourJan, config.RunnerOpenAI, "This server does not say its context length; Quire assumes 4,096 tokens", "yes"},
		{"Ollama", ollamatest.FlavourDefault, config.RunnerOllama, "Context: 40,960 tokens (from Ollama's /api/show). Takes tools.", "yes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := ollamatest.New(t, ollamatest.WithFlavour(tt.flavour))
			fake.AddModel(ollamatest.DefaultModel())
			fake.AddModel(ollamatest.Model{Name: "nomic-embed-text", Capabilities: []string{"embedding"}, ContextLength: 2048, EmbeddingLength: 16})
			p := runnerParts(t, fake, config.Config{Model: "qwen3:4b", Runner: tt.runner, RunnerURL: fake.URL() + "/v1"})
			screen, err := p.Settings().Screen(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			rs := screen.Runner
			if len(rs.Found) == 0 || rs.Found[0] != (protocol.FoundRunner{Name: "LM Studio", Runner: config.RunnerOpenAI, URL: fake.URL() + "/v1", Models: 2}) {
				t.Fatalf("found %+v", rs.Found)
			}
			if len(rs.Models) != 2 || rs.Problem != "" {
				t.Fatalf("models %+v, problem %q", rs.Models, rs.Problem)
			}
			var chat protocol.RunnerModel
			for _, m := range rs.Models {
				if m.Name == "qwen3:4b" {
					chat = m
				}
			}
			if chat.Name != "qwen3:4b" || !strings.Contains(chat.Says, tt.says) || chat.Tools != tt.tools {
				t.Errorf("qwen3:4b: %+v; want it to say %q, tools %s", chat, tt.says, tt.tools)
			}
			if !screen.Model.Known || !screen.Model.CanUseTools || screen.Settings.Runner != tt.runner {
				t.Errorf("the chat model's facts %+v, runner %q", screen.Model, screen.Settings.Runner)
			}
		})
	}
}

// TestARunnerOffThisMachineNeedsTheChoice: the screen's save refuses an
// address of another machine unless the user chose to send conversations
// there, and takes it (applied at once) when they did.
func TestARunnerOffThisMachineNeedsTheChoice(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	p := runnerParts(t, fake, config.Config{Model: "qwen3:4b"})
	s := p.Settings()
	screen, err := s.Screen(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(fake.URL())
	// 0.0.0.0 is no loopback name, yet the kernel routes it here: the
	// fake answers for "another machine".
	remote := "http://0.0.0.0:" + u.Port() + "/v1"
	want := screen.Settings
	want.Runner, want.RunnerURL = config.RunnerOpenAI, remote
	_, err = s.Update(t.Context(), want)
	var se *protocol.SettingError
	if !errors.As(err, &se) || se.Field != "runnerUrl" || !strings.Contains(se.Message, "would leave this laptop") {
		t.Fatalf("saving another machine without the choice: %v", err)
	}
	if got := p.settings.Get(); got.Runner != config.RunnerOllama && got.Runner != "" {
		t.Fatalf("a refused save changed the runner to %q", got.Runner)
	}
	want.RunnerRemote = true
	after, err := s.Update(t.Context(), want)
	if err != nil {
		t.Fatal(err)
	}
	if after.Settings.RunnerURL != remote || !after.Settings.RunnerRemote || p.openai.Base() != remote {
		t.Fatalf("saved %+v; the adapter is at %s", after.Settings, p.openai.Base())
	}
	if len(after.Runner.Models) != 1 || after.Runner.Models[0].Name != "qwen3:4b" {
		t.Fatalf("the new runner's models %+v", after.Runner.Models)
	}
}

// TestARunnerSaysItsContextBound: a context length above what the
// OpenAI-compatible server loaded is refused at save, naming the source.
func TestARunnerSaysItsContextBound(t *testing.T) {
	fake := ollamatest.New(t, ollamatest.WithFlavour(ollamatest.FlavourLlamaCpp), ollamatest.WithLoadedContext(2048))
	fake.AddModel(ollamatest.DefaultModel())
	p := runnerParts(t, fake, config.Config{Model: "qwen3:4b", Runner: config.RunnerOpenAI, RunnerURL: fake.URL() + "/v1"})
	screen, err := p.Settings().Screen(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	u := screen.Settings
	u.NumCtx = 4096
	_, err = p.Settings().Update(t.Context(), u)
	var se *protocol.SettingError
	if !errors.As(err, &se) || se.Field != "numCtx" || !strings.Contains(se.Message, "2,048 tokens on this server (llama.cpp's /props)") {
		t.Fatalf("saving a context above the loaded one: %v", err)
	}
}

// TestDoctorGivesOneAnswerForTheChosenRunner: with an OpenAI-compatible
// runner chosen and no Ollama at all, neither doctor nor the health
// watcher says anything is not answering: the embedding model is checked
// on the runner that embeds.
func TestDoctorGivesOneAnswerForTheChosenRunner(t *testing.T) {
	fake := ollamatest.New(t, ollamatest.WithFlavour(ollamatest.FlavourLMStudio))
	fake.AddModel(ollamatest.DefaultModel())
	fake.AddModel(ollamatest.Model{Name: "nomic-embed-text", Capabilities: []string{"embedding"}, ContextLength: 2048, EmbeddingLength: 16})
	gone := ollamatest.New(t)
	goneURL := gone.URL()
	gone.Close()
	p := runnerParts(t, fake, config.Config{Model: "qwen3:4b", EmbedModel: "nomic-embed-text:latest", OllamaHost: goneURL,
		Runner: config.RunnerOpenAI, RunnerURL: fake.URL() + "/v1"})
	for name, r := range map[string][]string{"doctor": lines(p.Doctor(t.Context()).Checks), "health": lines(p.quickDoctor(t.Context()).Checks)} {
		all := strings.Join(r, "\n")
		if strings.Contains(all, "FAIL") || strings.Contains(all, "Ollama") {
			t.Errorf("%s says:\n%s", name, all)
		}
	}
}

// lines are checks as doctor prints them, a failure marked FAIL.
func lines(cs []doctor.Check) []string {
	var out []string
	for _, c := range cs {
		mark := "ok"
		if !c.OK {
			mark = "FAIL"
		}
		out = append(out, mark+" "+c.Name+": "+c.Detail)
	}
	return out
}

// TestTheToolProbeIsAskedOnce: a server that does not say whether a model
// takes tools is asked by a one-token reply, once, not at every opening
// of the screen.
func TestTheToolProbeIsAskedOnce(t *testing.T) {
	fake := ollamatest.New(t, ollamatest.WithFlavour(ollamatest.FlavourJan))
	fake.AddModel(ollamatest.DefaultModel())
	p := runnerParts(t, fake, config.Config{Model: "qwen3:4b", Runner: config.RunnerOpenAI, RunnerURL: fake.URL() + "/v1"})
	for range 3 {
		screen, err := p.Settings().Screen(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if !screen.Model.CanUseTools || screen.Runner.Models[0].Tools != "yes" {
			t.Fatalf("facts %+v, models %+v", screen.Model, screen.Runner.Models)
		}
	}
	if n := len(fake.Requests()); n != 1 {
		t.Fatalf("the tool probe was asked %d times", n)
	}
}
