package assembly

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"quire/config"
	"quire/doctor"
	"quire/kernel/protocol"
	"quire/kernel/provider/ollama"
	"quire/kernel/provider/openai"
)

// maxRunnerModels bounds the models the screen describes (one /api/show
// each for Ollama's): a shelf of models is shown by its first ones.
const maxRunnerModels = 32

// runnerOf is cfg's runner, "" read as Ollama's.
func runnerOf(cfg config.Config) string { return cmp.Or(cfg.Runner, config.RunnerOllama) }

// runnerScreen is the Settings screen's runner section for cfg: the
// runners answering on their usual ports, and the chosen runner's models
// with what each can do, in the sentences doctor says (doctor.ModelSays).
// For an OpenAI-compatible runner it also returns the facts of the chat
// model, which Ollama cannot give.
func (p *Parts) runnerScreen(ctx context.Context, cfg config.Config) (protocol.RunnerScreen, *protocol.ModelFacts) {
	rs := protocol.RunnerScreen{Found: []protocol.FoundRunner{}, Models: []protocol.RunnerModel{}, AssumedNumCtx: cfg.NumCtx}
	for _, r := range p.discover(ctx) {
		f := protocol.FoundRunner{Name: r.Name, Runner: config.RunnerOpenAI, URL: r.Base, Models: len(r.Models)}
		if r.Name == "Ollama" {
			f.Runner, f.URL = config.RunnerOllama, strings.TrimSuffix(r.Base, "/v1")
		}
		rs.Found = append(rs.Found, f)
	}
	if p.rag != nil && runnerOf(cfg) != cmp.Or(p.embedRunner, config.RunnerOllama) {
		rs.Restart = "The document index goes on embedding with the runner Quire started with until Quire starts again; chats use the new runner now."
	}
	var models []doctor.RunnerModel
	var facts *protocol.ModelFacts
	if runnerOf(cfg) == config.RunnerOpenAI {
		described, err := p.openai.Describe(ctx)
		if err != nil {
			rs.Problem = providerSentence(err)
			return rs, &protocol.ModelFacts{Name: cfg.Model, Problem: rs.Problem}
		}
		for _, m := range described[:min(len(described), maxRunnerModels)] {
			models = append(models, runnerModel(m))
		}
		facts = p.openaiFacts(ctx, cfg.Model, models)
	} else {
		names, err := p.ollama.Models(ctx)
		if err != nil {
			rs.Problem = providerSentence(err)
			return rs, nil
		}
		shown := shownModels(names)
		for _, n := range shown[:min(len(shown), maxRunnerModels)] {
			models = append(models, p.ollamaModel(ctx, n))
		}
	}
	for _, m := range models {
		rs.Models = append(rs.Models, protocol.RunnerModel{Name: m.ID, ContextLength: m.ContextLength, ContextFrom: m.ContextFrom,
			Tools: cmp.Or(m.Tools, doctor.ToolsUnknown), Embeds: m.Embeds, Says: doctor.ModelSays(m, cfg.NumCtx)})
	}
	return rs, facts
}

// ollamaModel is what Ollama's /api/show says of the model name.
func (p *Parts) ollamaModel(ctx context.Context, name string) doctor.RunnerModel {
	info, err := p.ollama.ModelInfo(ctx, name)
	if err != nil {
		return doctor.RunnerModel{ID: name, Tools: doctor.ToolsUnknown}
	}
	m := doctor.RunnerModel{ID: name, ContextLength: info.ContextLength, Tools: doctor.ToolsNo,
		Embeds: slices.Contains(info.Capabilities, "embedding") && !slices.Contains(info.Capabilities, "completion")}
	if m.ContextLength > 0 {
		m.ContextFrom = "Ollama's /api/show"
	}
	if slices.Contains(info.Capabilities, "tools") {
		m.Tools = doctor.ToolsYes
	}
	return m
}

// openaiFacts are the screen's facts of the chat model on the
// OpenAI-compatible server: whether it is listed, its context where the
// server says it, and whether it takes tools — the list's word, else the
// tool probe's (the cheapest request that can tell; it fills models' entry).
func (p *Parts) openaiFacts(ctx context.Context, name string, models []doctor.RunnerModel) *protocol.ModelFacts {
	i := slices.IndexFunc(models, func(m doctor.RunnerModel) bool { return m.ID == name })
	if i < 0 {
		return &protocol.ModelFacts{Name: name, Problem: fmt.Sprintf(
			"The server does not list %s: choose one of its models below, or load it in the runner.", name)}
	}
	m := &models[i]
	key := p.openai.Base() + "\x00" + name
	if said, ok := p.toolProbes.Load(key); ok && m.Tools == doctor.ToolsUnknown {
		m.Tools = said.(string)
	} else if m.Tools == doctor.ToolsUnknown {
		// The probe generates a token: asked once per server and model,
		// not at every opening of the screen. An error leaves it unknown,
		// to ask again.
		t, _ := p.openai.ProbeTools(ctx, name)
		if m.Tools = toolsWord(t); m.Tools != doctor.ToolsUnknown {
			p.toolProbes.Store(key, m.Tools)
		}
	}
	return &protocol.ModelFacts{Name: name, Known: true, ContextLength: m.ContextLength, CanUseTools: m.Tools == doctor.ToolsYes}
}

// checkRunner checks the screen's runner choice before anything is saved:
// an address off this machine is refused unless the user chose to send
// conversations there (config says the same of settings.json), and the
// context length must fit what the chosen runner says of the chat model
// (Ollama's trained length; an OpenAI-compatible server's, where it says
// one).
func (s settingsPort) checkRunner(ctx context.Context, u protocol.UserSettings, ollamaURL *url.URL) error {
	if u.Runner != config.RunnerOpenAI {
		at := s.p.ollama
		if ollamaURL.String() != at.Host() {
			at = ollama.New(ollamaURL, probeClient())
		}
		facts := s.p.modelFacts(ctx, at, u.Model)
		if facts.Known && facts.ContextLength > 0 && u.NumCtx > facts.ContextLength {
			return &protocol.SettingError{Field: "numCtx", Message: fmt.Sprintf(
				"%s was trained for %s tokens: choose a context length of at most that.", u.Model, thousands(facts.ContextLength))}
		}
		return nil
	}
	base, err := openai.ParseBase(u.RunnerURL)
	if err != nil {
		return &protocol.SettingError{Field: "runnerUrl",
			Message: "Quire cannot read this as a server's address: type it like http://127.0.0.1:1234/v1."}
	}
	if !u.RunnerRemote && !config.Loopback(base.Hostname()) {
		return &protocol.SettingError{Field: "runnerUrl", Message: fmt.Sprintf(
			"%s is another machine: your conversations, and the notes they read, would leave this laptop. "+
				"Tick “Send my conversations to this machine” if you mean it, or use a runner on this computer.", base.Host)}
	}
	described, err := openai.New(base, probeClient()).Describe(ctx)
	if err != nil {
		return nil // a runner not started yet may be chosen; the screen and doctor say it does not answer
	}
	i := slices.IndexFunc(described, func(m openai.Model) bool { return m.ID == strings.TrimSpace(u.Model) })
	if i >= 0 && described[i].ContextLength > 0 && u.NumCtx > described[i].ContextLength {
		return &protocol.SettingError{Field: "numCtx", Message: fmt.Sprintf(
			"%s takes at most %s tokens on this server (%s): choose a context length of at most that.",
			u.Model, thousands(described[i].ContextLength), described[i].ContextFrom)}
	}
	return nil
}
