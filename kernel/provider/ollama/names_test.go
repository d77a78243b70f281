package ollama_test

import (
	"errors"
	"testing"

	"quire/kernel/provider/ollama"
)

func TestSameModelMatchesAsOllamaDoes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		same bool
	}{
		{"tiny-text", "tiny-text:latest", true},
		{"Tiny-Text", "tiny-text:latest", true},
		{"library/tiny-text", "tiny-text:latest", true},
		{"registry.ollama.ai/library/tiny-text:latest", "tiny-text", true},
		{"REGISTRY.OLLAMA.AI/Library/Tiny-Text:LATEST", "tiny-text", true},
		{"qwen3:4b", "qwen3:4b", true},
		{"qwen3:4b", "qwen3", false}, // the tag :latest is not :4b
		{"qwen3:4b", "qwen3:8b", false},
		{"someone/qwen3:4b", "qwen3:4b", false}, // another namespace
		{"example.com/library/qwen3:4b", "qwen3:4b", false},
		{"qwen3", "qwen3.5", false},
		{"", "", false},                 // no name is no model
		{"bad name", "bad name", false}, // a space is not allowed
	}
	for _, tc := range tests {
		t.Run(tc.a+"|"+tc.b, func(t *testing.T) {
			t.Parallel()
			if got := ollama.SameModel(tc.a, tc.b); got != tc.same {
				t.Errorf("SameModel(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.same)
			}
			if got := ollama.SameModel(tc.b, tc.a); got != tc.same {
				t.Errorf("SameModel(%q, %q) = %v, want %v (not symmetric)", tc.b, tc.a, got, tc.same)
			}
		})
	}
}

func TestFindModelReturnsOllamasSpelling(t *testing.T) {
	t.Parallel()
	names := []string{"nomic-embed-text:latest", "tiny-text:latest", "qwen3:4b"}
	tests := []struct {
		want, found string
		ok          bool
	}{
		{"Tiny-Text", "tiny-text:latest", true},
		{"registry.ollama.ai/library/qwen3:4b", "qwen3:4b", true},
		{"qwen3", "", false},
	}
	for _, tc := range tests {
		got, ok := ollama.FindModel(names, tc.want)
		if got != tc.found || ok != tc.ok {
			t.Errorf("FindModel(%q) = %q, %v; want %q, %v", tc.want, got, ok, tc.found, tc.ok)
		}
	}
}

func TestCheckModelNameRefusesWhatOllamaRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"qwen3:4b", true},
		{"hf.co/someone/model:Q4_K_M", true},
		{"", false},
		{"a b", false},
		{"a/b/c/d:e", false}, // a host may not hold a slash
	} {
		err := ollama.CheckModelName(tc.name)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ollama.ErrBadModelName)) {
			t.Errorf("CheckModelName(%q) = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}
