package doctor

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// What the window offers for a failing check (Check.Action). The terminal
// says the flags and commands (Remedy); the window cannot apply a flag, so
// it offers a button instead and says so in Hint.
const (
	// ActionInstall: Ollama is not reachable; the window shows how to
	// install it and a "Check again" button.
	ActionInstall = "install-ollama"
	// ActionDownload: no installed model can use tools; the window offers
	// to download one in one click.
	ActionDownload = "download-model"
	// ActionSettings: the fix is a choice in the Settings screen (another
	// model, another address).
	ActionSettings = "settings"
)

// The names of the checks the window words differently.
const (
	nameOllama = "Ollama"
	nameModel  = "Chat model"
	nameTools  = "Tool use"
)

// maxToolLookups bounds how many installed models are asked whether they
// can use tools (one /api/show each) when the chosen one cannot be used.
const maxToolLookups = 32

// OllamaChecks are the checks of Ollama and the chat model alone, with the
// window's hints: what the health watcher asks again on its own, cheaply
// (no disk, no database). Run includes them.
func OllamaChecks(ctx context.Context, in Inputs, o Ollama) Report {
	checks := checkOllama(ctx, in, o)
	var usable []string
	looked := false
	r := Report{OK: true}
	for _, c := range checks {
		if (!c.OK || c.Warn) && (c.Name == nameModel || c.Name == nameTools) && !looked {
			usable, looked = toolModels(ctx, o), true
		}
		if c.Warn && c.Name == nameTools && len(usable) > 0 {
			// A model already here comes before a download.
			c.Remedy = fmt.Sprintf("To work with your notes, choose an installed model that supports tools: %s (--model or QUIRE_MODEL, or Settings).",
				strings.Join(usable, ", "))
		}
		c = forWindow(c, usable)
		r.Checks = append(r.Checks, c)
		r.OK = r.OK && c.OK
	}
	return r
}

// toolModels are the installed models that can use tools (the first
// maxToolLookups installed); none when Ollama cannot list them.
func toolModels(ctx context.Context, o Ollama) []string {
	names, err := o.Models(ctx)
	if err != nil {
		return nil
	}
	var out []string
	for _, n := range names[:min(len(names), maxToolLookups)] {
		if caps, err := o.Capabilities(ctx, n); err == nil && slices.Contains(caps, "tools") {
			out = append(out, n)
		}
	}
	return out
}

// forWindow gives a failing check of Ollama's the window's hint and
// action; usable are the installed models that can use tools.
func forWindow(c Check, usable []string) Check {
	if c.OK {
		return c
	}
	switch c.Name {
	case nameOllama:
		c.Action = ActionInstall
		c.Hint = "Install Ollama, the program that runs the model on this computer, and start it; Quire notices on its own. " +
			"If Ollama runs at another address, set it in Settings."
	case nameModel, nameTools:
		switch {
		case len(usable) == 0:
			c.Action = ActionDownload
			c.Hint = "No installed model can use tools, which Quire needs to work with your notes: download one in one click, or choose one in Settings."
		default:
			c.Action = ActionSettings
			c.Hint = fmt.Sprintf("Choose a model that can use tools in Settings (installed: %s).", strings.Join(usable, ", "))
		}
	}
	return c
}
