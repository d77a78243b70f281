package ollama_test

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"quire/kernel/provider"
	"quire/kernel/provider/ollama"
	"quire/test/ollamatest"
)

func TestVersion(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithVersion("0.17.4"))
	got, err := ollama.New(mustHost(t, srv.URL()), nil).Version(t.Context())
	if err != nil || got != "0.17.4" {
		t.Errorf("Version = %q, %v; want 0.17.4", got, err)
	}
}

func TestModels(t *testing.T) {
	t.Parallel()
	srv, p := fake(t)
	srv.AddModel(ollamatest.Model{Name: "nomic-embed-text", Capabilities: []string{"embedding"}})
	got, err := p.Models(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"nomic-embed-text:latest", "qwen3:4b"}; !slices.Equal(got, want) {
		t.Errorf("Models = %q, want %q", got, want)
	}
}

func TestModelInfo(t *testing.T) {
	t.Parallel()
	srv, p := fake(t)
	srv.AddModel(ollamatest.Model{Name: "nomic-embed-text", Family: "nomic-bert", Capabilities: []string{"embedding"}, ContextLength: 2048})
	for _, tc := range []struct {
		name string
		want ollama.ModelInfo
	}{
		{"qwen3:4b", ollama.ModelInfo{Name: "qwen3:4b", Capabilities: []string{"completion", "tools", "thinking"}, ContextLength: 40960}},
		{"nomic-embed-text", ollama.ModelInfo{Name: "nomic-embed-text", Capabilities: []string{"embedding"}, ContextLength: 2048}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := p.ModelInfo(t.Context(), tc.name)
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ModelInfo = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
	_, err := p.ModelInfo(t.Context(), "gone:1b")
	if !errors.Is(err, provider.ErrModelMissing) || !strings.Contains(err.Error(), "ollama pull gone:1b") {
		t.Errorf("ModelInfo of a missing model: %v; want ErrModelMissing saying to pull it", err)
	}
}

func TestEmbed(t *testing.T) {
	t.Parallel()
	srv, p := fake(t)
	srv.AddModel(ollamatest.Model{Name: "nomic-embed-text", Capabilities: []string{"embedding"}, EmbeddingLength: 16, ContextLength: 64})
	inputs := []string{"notes about Go", "a recipe for bread"}
	got, err := p.Embed(t.Context(), "nomic-embed-text", inputs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(inputs) {
		t.Fatalf("%d vectors for %d inputs", len(got), len(inputs))
	}
	for i, v := range got {
		if want := ollamatest.Embedding(inputs[i], 16); !slices.Equal(v, want) {
			t.Errorf("vector %d = %v, want %v (in input order)", i, v, want)
		}
		var sum float64
		for _, x := range v {
			sum += float64(x) * float64(x)
		}
		if math.Abs(sum-1) > 1e-5 {
			t.Errorf("vector %d has squared length %v, want 1", i, sum)
		}
	}

	for _, tc := range []struct {
		name   string
		model  string
		inputs []string
		want   error
	}{
		{"model missing", "gone", inputs, provider.ErrModelMissing},
		{"input longer than the context is refused, not cut", "nomic-embed-text", []string{strings.Repeat("z", 400)}, provider.ErrRejected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := p.Embed(t.Context(), tc.model, tc.inputs); !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestPull(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	srv.AddPullable(ollamatest.Model{Name: "qwen3:4b", Size: 4000})
	p := ollama.New(mustHost(t, srv.URL()), nil)

	var steps []ollama.Progress
	err := p.Pull(t.Context(), "qwen3:4b", func(pr ollama.Progress) error {
		steps = append(steps, pr)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if steps[0].Status != "pulling manifest" || steps[len(steps)-1].Status != "success" {
		t.Errorf("steps went %q … %q", steps[0].Status, steps[len(steps)-1].Status)
	}
	var layerDone bool
	for _, s := range steps {
		if s.Digest != "" && s.Total == 4000 && s.Completed == 4000 {
			layerDone = true
		}
	}
	if !layerDone {
		t.Errorf("no step reports the model's layer complete: %+v", steps)
	}
	if models, _ := p.Models(t.Context()); !slices.Equal(models, []string{"qwen3:4b"}) {
		t.Errorf("after the pull, Models = %q", models)
	}

	for _, tc := range []struct {
		name  string
		model string
		want  error
	}{
		{"unknown to the library", "no-such-model", provider.ErrModelMissing},
		{"bad name", "bad name!", provider.ErrRejected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := p.Pull(t.Context(), tc.model, nil); !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
		})
	}

	errEnough := errors.New("enough")
	if err := p.Pull(t.Context(), "qwen3:4b", func(ollama.Progress) error { return errEnough }); err != errEnough {
		t.Errorf("err = %v; want the callback's own error", err)
	}
}

func TestProbesWhenOllamaIsNotRunning(t *testing.T) {
	t.Parallel()
	p := ollama.New(mustHost(t, closedPort(t)), nil)
	ctx := t.Context()
	for name, call := range map[string]func() error{
		"Version":   func() error { _, err := p.Version(ctx); return err },
		"Models":    func() error { _, err := p.Models(ctx); return err },
		"ModelInfo": func() error { _, err := p.ModelInfo(ctx, "qwen3:4b"); return err },
		"Embed":     func() error { _, err := p.Embed(ctx, "nomic-embed-text", []string{"x"}); return err },
		"Pull":      func() error { return p.Pull(ctx, "qwen3:4b", nil) },
	} {
		t.Run(name, func(t *testing.T) {
			if err := call(); !errors.Is(err, provider.ErrUnavailable) || !strings.Contains(err.Error(), "ollama serve") {
				t.Errorf("err = %v; want ErrUnavailable saying to start Ollama", err)
			}
		})
	}
}
