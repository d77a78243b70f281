package doctor

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Runner is what the checks ask an OpenAI-compatible server (llama.cpp,
// LM Studio, Jan, vLLM, Ollama's /v1) when Settings chose one.
type Runner interface {
	Models(ctx context.Context) ([]RunnerModel, error)
	// Tools runs the cheap tool probe: known false when it could not tell
	// (err says why), else whether the server took a request with a tool.
	Tools(ctx context.Context, model string) (known, yes bool, err error)
}

// RunnerModel is one model a runner lists; ContextLength 0 when the
// server does not say it.
type RunnerModel struct {
	ID            string
	ContextLength int
}

// FoundRunner is a runner discovery found on its usual local port.
type FoundRunner struct {
	Name, Base string
	Models     int
}

// Discovered is the line that lists the runners answering on their usual
// local ports; finding none is not a failure (the settings may name one
// elsewhere), so it is said and passes.
func Discovered(found []FoundRunner) Check {
	c := Check{Name: "Runners found", OK: true}
	if len(found) == 0 {
		c.Detail = "none on the usual ports (Ollama 11434, LM Studio 1234, llama.cpp 8080, Jan 1337)"
		return c
	}
	var parts []string
	for _, f := range found {
		parts = append(parts, fmt.Sprintf("%s at %s (%d models)", f.Name, f.Base, f.Models))
	}
	c.Detail = strings.Join(parts, "; ")
	return c
}

// RunnerChecks are the lines for the OpenAI-compatible runner at base:
// reachable and listing model, whether model takes tools, and its context
// length where the server says it — said plainly where it cannot be known.
func RunnerChecks(ctx context.Context, base, model string, r Runner) []Check {
	server := Check{Name: "Runner"}
	models, err := r.Models(ctx)
	if err != nil {
		server.Detail = fmt.Sprintf("nothing usable answers at %s: %v", base, err)
		server.Remedy = "Start the runner (LM Studio's server, llama-server, Jan, or Ollama) or set its address in Settings; it usually ends in /v1."
		return []Check{server}
	}
	server.OK = true
	server.Detail = fmt.Sprintf("an OpenAI-compatible server at %s with %d models", base, len(models))

	chat := Check{Name: "Chat model"}
	i := slices.IndexFunc(models, func(m RunnerModel) bool { return m.ID == model })
	if i < 0 {
		var ids []string
		for _, m := range models {
			ids = append(ids, m.ID)
		}
		chat.Detail = fmt.Sprintf("%s is not among the server's models (%s)", model, strings.Join(ids, ", "))
		chat.Remedy = "Load the model in the runner, or choose one it lists in Settings."
		return []Check{server, chat}
	}
	chat.OK = true
	chat.Detail = model + " is loaded"
	if n := models[i].ContextLength; n > 0 {
		chat.Detail += fmt.Sprintf(", with a context of %d tokens", n)
	} else {
		chat.Detail += "; its context length cannot be known from this server (the API does not say it): Quire uses the length set in Settings"
	}

	tools := Check{Name: "Tool use"}
	known, yes, err := r.Tools(ctx, model)
	switch {
	case !known:
		tools.OK, tools.Warn = true, true
		tools.Detail = fmt.Sprintf("whether %s can use tools cannot be known: the probe failed (%v)", model, err)
		tools.Remedy = "Quire offers tools and goes on without them if the server refuses."
	case !yes:
		tools.OK, tools.Warn = true, true
		tools.Detail = fmt.Sprintf("%s chats but the server refuses tools for it: it cannot read or change your notes", model)
		tools.Remedy = "Choose a model that supports tools (with llama.cpp, start llama-server with --jinja)."
	default:
		tools.OK = true
		tools.Detail = model + " takes tools"
	}
	return []Check{server, chat, tools}
}
