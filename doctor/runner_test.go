package doctor

import (
	"context"
	"errors"
	"strings"
	"testing"
)

type runnerOf struct {
	models []RunnerModel
	err    error
	known  bool
	yes    bool
}

func (r runnerOf) Models(context.Context) ([]RunnerModel, error) { return r.models, r.err }
func (r runnerOf) Tools(context.Context, string) (bool, bool, error) {
	if !r.known {
		return false, false, errors.New("the server is busy")
	}
	return true, r.yes, nil
}

// TestRunnerChecksSayWhatCannotBeKnown: each line says what the runner
// told, and says plainly what it cannot tell.
func TestRunnerChecksSayWhatCannotBeKnown(t *testing.T) {
	tests := []struct {
		name   string
		r      runnerOf
		ok     bool
		detail string
	}{
		{"not running", runnerOf{err: errors.New("connection refused")}, false, "nothing usable answers"},
		{"model not loaded", runnerOf{models: []RunnerModel{{ID: "gemma"}}}, false, "not among the server's models (gemma)"},
		{"context unknown", runnerOf{models: []RunnerModel{{ID: "qwen3"}}, known: true, yes: true}, true, "does not say its context length; Quire assumes 4,096 tokens"},
		{"context said", runnerOf{models: []RunnerModel{{ID: "qwen3", ContextLength: 32768}}, known: true, yes: true}, true, "Context: 32,768 tokens"},
		{"tools refused", runnerOf{models: []RunnerModel{{ID: "qwen3"}}, known: true}, true, "refuses tools"},
		{"tools unknown", runnerOf{models: []RunnerModel{{ID: "qwen3"}}}, true, "cannot be known: the probe failed"},
		{"tools said by the list", runnerOf{models: []RunnerModel{{ID: "qwen3", Tools: ToolsYes}}}, true, "qwen3 takes tools"},
		{"context from the runner's own endpoint", runnerOf{models: []RunnerModel{{ID: "qwen3", ContextLength: 8192, ContextFrom: "llama.cpp's /props"}}, known: true, yes: true},
			true, "Context: 8,192 tokens (from llama.cpp's /props)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checks := RunnerChecks(t.Context(), "http://127.0.0.1:1234/v1", "qwen3", 4096, tt.r)
			ok := true
			var all []string
			for _, c := range checks {
				ok = ok && c.OK
				all = append(all, c.Detail)
			}
			if ok != tt.ok || !strings.Contains(strings.Join(all, " | "), tt.detail) {
				t.Fatalf("ok %v, lines %q; want ok %v and %q", ok, all, tt.ok, tt.detail)
			}
		})
	}
	if d := Discovered(nil); !d.OK || !strings.Contains(d.Detail, "LM Studio 1234") {
		t.Fatalf("no runner found: %+v", d)
	}
}

// TestRunLeavesOllamaOutForAnotherRunner: with an OpenAI-compatible runner
// chosen, an absent Ollama is no failure of doctor's.
func TestRunLeavesOllamaOutForAnotherRunner(t *testing.T) {
	down := fakeOllama{versionErr: errors.New("connection refused")}
	r := Run(t.Context(), Inputs{DataDir: t.TempDir(), Model: "qwen3", OtherRunner: true}, down, goodSQLite)
	for _, c := range r.Checks {
		if c.Name == "Ollama" {
			t.Fatalf("doctor checked Ollama for another runner: %+v", c)
		}
	}
	if !r.OK {
		t.Fatalf("report %+v", r)
	}
}
