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

// RunnerModel is one model a runner lists, with what the runner says of
// it: ContextLength 0 when it does not say it (ContextFrom names where it
// was read), Tools "yes", "no" or "unknown".
type RunnerModel struct {
	ID            string
	ContextLength int
	ContextFrom   string
	Tools         string
	Embeds        bool
}

// Tools as RunnerModel spells them.
const (
	ToolsYes     = "yes"
	ToolsNo      = "no"
	ToolsUnknown = "unknown"
)

// ModelSays is the plain sentence of what m can do, the same in doctor
// and on the Settings screen: its context (or that the server does not
// say it, and the length Quire assumes) and whether it takes tools.
func ModelSays(m RunnerModel, assumed int) string {
	var ctx string
	switch {
	case m.ContextLength > 0 && m.ContextFrom != "":
		ctx = fmt.Sprintf("Context: %s tokens (from %s).", thousands(m.ContextLength), m.ContextFrom)
	case m.ContextLength > 0:
		ctx = fmt.Sprintf("Context: %s tokens.", thousands(m.ContextLength))
	default:
		ctx = fmt.Sprintf("This server does not say its context length; Quire assumes %s tokens (the context length in Settings).", thousands(assumed))
	}
	if m.Embeds {
		return "Embeds text for the document index; it does not chat. " + ctx
	}
	switch m.Tools {
	case ToolsYes:
		return ctx + " Takes tools."
	case ToolsNo:
		return ctx + " Does not take tools: with it Quire cannot read or change your notes."
	}
	return ctx + " Whether it takes tools this server does not say; Quire offers them and goes on without if refused."
}

// thousands writes n with commas: 40,960.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
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
// reachable, with its models and what each can do, whether model is among
// them, and whether it takes tools (what the server's list says, else the
// probe's answer) — said plainly where it cannot be known, in the words
// the Settings screen uses (ModelSays); assumed is the context length
// Quire uses where the server does not say one.
func RunnerChecks(ctx context.Context, base, model string, assumed int, r Runner) []Check {
	server := Check{Name: "Runner"}
	models, err := r.Models(ctx)
	if err != nil {
		server.Detail = fmt.Sprintf("nothing usable answers at %s: %v", base, err)
		server.Remedy = "Start the runner (LM Studio's server, llama-server, Jan, or Ollama) or set its address in Settings; it usually ends in /v1."
		server.Action = ActionSettings
		return []Check{server}
	}
	server.OK = true
	var ids []string
	for _, m := range models {
		ids = append(ids, m.ID)
	}
	server.Detail = fmt.Sprintf("an OpenAI-compatible server at %s with %d models", base, len(models))
	if len(ids) > 0 {
		server.Detail += " (" + strings.Join(ids, ", ") + ")"
	}

	chat := Check{Name: "Chat model"}
	i := slices.IndexFunc(models, func(m RunnerModel) bool { return m.ID == model })
	if i < 0 {
		chat.Detail = fmt.Sprintf("%s is not among the server's models (%s)", model, strings.Join(ids, ", "))
		chat.Remedy = "Load the model in the runner, or choose one it lists in Settings."
		chat.Action = ActionSettings
		return []Check{server, chat}
	}
	m := models[i]
	tools := Check{Name: "Tool use"}
	if m.Tools == ToolsUnknown || m.Tools == "" {
		known, yes, err := r.Tools(ctx, model)
		switch {
		case !known:
			m.Tools = ToolsUnknown
			tools.Detail = fmt.Sprintf("whether %s can use tools cannot be known: the probe failed (%v)", model, err)
		case yes:
			m.Tools = ToolsYes
		default:
			m.Tools = ToolsNo
		}
	}
	chat.OK = true
	chat.Detail = model + " is loaded. " + ModelSays(m, assumed)
	switch m.Tools {
	case ToolsUnknown:
		tools.OK, tools.Warn = true, true
		tools.Remedy = "Quire offers tools and goes on without them if the server refuses."
	case ToolsNo:
		tools.OK, tools.Warn = true, true
		tools.Detail = fmt.Sprintf("%s chats but the server refuses tools for it: it cannot read or change your notes", model)
		tools.Remedy = "Choose a model that supports tools (with llama.cpp, start llama-server with --jinja)."
	default:
		tools.OK = true
		tools.Detail = model + " takes tools"
	}
	return []Check{server, chat, tools}
}
