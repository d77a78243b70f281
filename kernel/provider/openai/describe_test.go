package openai_test

import (
	"testing"

	"quire/kernel/provider/openai"
	"quire/test/ollamatest"
)

// TestDescribeReadsWhatEachRunnerSays: each runner flavour's context
// length is read where that runner says it (llama.cpp's loaded context
// from /props over the trained one, LM Studio's /api/v0/models), tools
// where LM Studio's list says them, and nothing is guessed for a server
// that says only the ids.
func TestDescribeReadsWhatEachRunnerSays(t *testing.T) {
	t.Parallel()
	type want struct {
		ctx    int
		from   openai.ContextSource
		tools  openai.Tools
		embeds bool
	}
	tests := []struct {
		name    string
		opts    []ollamatest.Option
		byModel map[string]want
	}{
		{"llama.cpp", []ollamatest.Option{ollamatest.WithFlavour(ollamatest.FlavourLlamaCpp), ollamatest.WithLoadedContext(8192)},
			map[string]want{"qwen3:4b": {8192, openai.ContextFromProps, openai.ToolsUnknown, false}}},
		{"LM Studio", []ollamatest.Option{ollamatest.WithFlavour(ollamatest.FlavourLMStudio)}, map[string]want{
			"qwen3:4b":                {40960, openai.ContextFromLMStudio, openai.ToolsYes, false},
			"gemma:2b":                {8192, openai.ContextFromLMStudio, openai.ToolsNo, false},
			"nomic-embed-text:latest": {2048, openai.ContextFromLMStudio, openai.ToolsUnknown, true}}},
		{"Jan", []ollamatest.Option{ollamatest.WithFlavour(ollamatest.FlavourJan)},
			map[string]want{"qwen3:4b": {0, "", openai.ToolsUnknown, false}}},
		{"a server that lists n_ctx_train", nil,
			map[string]want{"qwen3:4b": {40960, openai.ContextFromList, openai.ToolsUnknown, false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, p := fake(t, tt.opts...)
			if len(tt.byModel) > 1 {
				srv.AddModel(ollamatest.Model{Name: "gemma:2b", Capabilities: []string{"completion"}, ContextLength: 8192})
				srv.AddModel(ollamatest.Model{Name: "nomic-embed-text", Capabilities: []string{"embedding"}, ContextLength: 2048, EmbeddingLength: 16})
			}
			models, err := p.Describe(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if len(models) != len(tt.byModel) {
				t.Fatalf("described %+v", models)
			}
			for _, m := range models {
				got := want{m.ContextLength, m.ContextFrom, m.Tools, m.Embeds}
				if got != tt.byModel[m.ID] {
					t.Errorf("%s: %+v, want %+v", m.ID, got, tt.byModel[m.ID])
				}
			}
		})
	}
}

// TestDescribeFailsOnlyWithTheList: a server that does not answer is an
// error, as Models says it.
func TestDescribeFailsOnlyWithTheList(t *testing.T) {
	t.Parallel()
	p := openai.New(mustBase(t, closedPort(t)), nil)
	if _, err := p.Describe(t.Context()); err == nil {
		t.Fatal("described a server that is not there")
	}
}
