package assembly

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"quire/config"
	"quire/doctor"
	"quire/kernel/provider"
	"quire/kernel/provider/openai"
	"quire/library"
	"quire/rag"
)

// defaultRunnerURL is where the OpenAI-compatible adapter points before a
// runner address is set: LM Studio's usual port.
const defaultRunnerURL = "http://127.0.0.1:1234/v1"

// runners is the one complete() every model caller uses: each request goes
// to the adapter its runner names (provider.Request.Runner, frozen in the
// run's capabilities), so a run finishes on the runner it started on. A
// request that names no address either (the memory learner's, evolution's
// proposer's: nothing frozen) goes to the runner the settings name now.
type runners struct {
	ollama  provider.Provider
	openai  provider.Provider
	current func() string // the settings' runner
}

func (r runners) Stream(ctx context.Context, req provider.Request, onChunk func(provider.Chunk) error) error {
	if req.Runner == "" && req.Host == "" {
		req.Runner = r.current()
	}
	if req.Runner == config.RunnerOpenAI {
		return r.openai.Stream(ctx, req, onChunk)
	}
	return r.ollama.Stream(ctx, req, onChunk)
}

// runnerBase is the OpenAI-compatible adapter's address for cfg: its
// runner URL, or the default when none is set (config has validated it).
func runnerBase(cfg config.Config) *url.URL {
	if u, err := openai.ParseBase(cfg.RunnerURL); err == nil {
		return u
	}
	u, _ := openai.ParseBase(defaultRunnerURL)
	return u
}

// openaiPrefix starts the name of an OpenAI-compatible server's vectors
// in the index.
const openaiPrefix = "openai:"

// openaiEmbedder adapts the OpenAI-compatible adapter to rag.Embedder.
type openaiEmbedder struct {
	p     *openai.Provider
	model string
}

func (e openaiEmbedder) Name() string { return openaiPrefix + e.model }

// Embed says a model that went away as the library's errors, as
// ollamaEmbedder does.
func (e openaiEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	vs, err := e.p.Embed(ctx, e.model, texts)
	switch {
	case errors.Is(err, provider.ErrModelMissing):
		return nil, fmt.Errorf("%w: %w", library.ErrEmbedModelMissing, err)
	case errors.Is(err, provider.ErrUnavailable):
		return nil, fmt.Errorf("%w: %w", library.ErrOllamaUnreachable, err)
	case errors.Is(err, provider.ErrRejected):
		return nil, fmt.Errorf("%s: %w: %w", e.model, library.ErrNotAnEmbedder, err)
	}
	return vs, err
}

// openaiEmbedderFor checks model on the OpenAI-compatible server by
// embedding one word: the API says nothing else of what a model can do.
func openaiEmbedderFor(ctx context.Context, p *openai.Provider, model string) (rag.Embedder, error) {
	ctx, cancel := context.WithTimeout(ctx, embedCheckTimeout)
	defer cancel()
	e := openaiEmbedder{p: p, model: model}
	if _, err := e.Embed(ctx, []string{"probe"}); err != nil {
		return nil, err
	}
	return e, nil
}

// openaiByName is byName for vectors an OpenAI-compatible server made.
func openaiByName(p *openai.Provider, name string) rag.Embedder {
	if model, ok := strings.CutPrefix(name, openaiPrefix); ok && model != "" {
		return openaiEmbedder{p: p, model: model}
	}
	return nil
}

// discoverWait bounds each usual port doctor tries: a loopback port
// answers or refuses at once.
const discoverWait = 500 * time.Millisecond

// runnerChecks are doctor's lines on runners: those answering on their
// usual local ports, and, when Settings chose an OpenAI-compatible one,
// its checks.
func (p *Parts) runnerChecks(ctx context.Context, cfg config.Config) []doctor.Check {
	var found []doctor.FoundRunner
	for _, r := range p.discover(ctx) {
		found = append(found, doctor.FoundRunner{Name: r.Name, Base: r.Base, Models: len(r.Models)})
	}
	out := []doctor.Check{doctor.Discovered(found)}
	if cfg.Runner == config.RunnerOpenAI {
		out = append(out, doctor.RunnerChecks(ctx, p.openai.Base(), cfg.Model, cfg.NumCtx, doctorRunner{o: p.openai})...)
	}
	return out
}

// discover is the runners answering on the usual local ports (the test
// knob Extras.RunnerPorts moves them).
func (p *Parts) discover(ctx context.Context) []openai.Runner {
	ports := p.runnerPorts
	if ports == nil {
		ports = openai.UsualPorts()
	}
	return openai.DiscoverOn(ctx, probeClient(), discoverWait, ports)
}

// doctorRunner adapts the OpenAI-compatible adapter to doctor.Runner;
// with noProbe its Tools never asks (the health watcher's).
type doctorRunner struct {
	o       *openai.Provider
	noProbe bool
}

// Models are what the server says of its models (Describe): the screen
// and doctor read the same.
func (d doctorRunner) Models(ctx context.Context) ([]doctor.RunnerModel, error) {
	ms, err := d.o.Describe(ctx)
	out := make([]doctor.RunnerModel, len(ms))
	for i, m := range ms {
		out[i] = runnerModel(m)
	}
	return out, err
}

func (d doctorRunner) Tools(ctx context.Context, model string) (known, yes bool, err error) {
	if d.noProbe {
		return false, false, nil
	}
	t, err := d.o.ProbeTools(ctx, model)
	return t != openai.ToolsUnknown, t == openai.ToolsYes, err
}

// runnerModel is doctor's view of what a server said of one model.
func runnerModel(m openai.Model) doctor.RunnerModel {
	return doctor.RunnerModel{ID: m.ID, ContextLength: m.ContextLength, ContextFrom: string(m.ContextFrom),
		Tools: toolsWord(m.Tools), Embeds: m.Embeds}
}

func toolsWord(t openai.Tools) string {
	switch t {
	case openai.ToolsYes:
		return doctor.ToolsYes
	case openai.ToolsNo:
		return doctor.ToolsNo
	}
	return doctor.ToolsUnknown
}
