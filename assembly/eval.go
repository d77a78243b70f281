package assembly

import (
	"context"
	"fmt"
	"log/slog"

	"quire/config"
	"quire/eval"
	"quire/kernel/runtime"
	"quire/mcpclient"
)

// EvalBuilder assembles a scenario's kernel with the root's own wiring (the
// same store, tools, prompt and checkpoint hook as the window), as an
// Owner over the scenario's folders and model, with the scenario's user
// answering.
func EvalBuilder(log *slog.Logger) eval.Builder {
	return func(ctx context.Context, env eval.Env) (eval.Instance, error) {
		settings := config.NewStore(config.Config{DataDir: env.DataDir, OllamaHost: env.OllamaHost, Runner: env.Runner, RunnerURL: env.RunnerURL,
			Model: env.Model, NumCtx: env.NumCtx,
			NotesDir: env.NotesDir, EmbedModel: env.EmbedModel, MemoryWithoutAsking: env.RememberWithoutAsking,
			Skills: config.SkillSettings{Disabled: env.DisabledSkills},
			// One worker: the scripted model turns answer a batch's tasks in
			// note order.
			Batch: config.BatchSettings{Workers: 1}, MCP: config.MCPSettings{CallTimeoutSeconds: env.MCPCallSeconds}})
		extra := []runtime.Option{runtime.WithAsker(env.Ask), runtime.WithTools(env.Tools...)}
		if env.Fragment != "" {
			// Where activation puts the active fragments (evolve's
			// contributor, which has nothing active in a fresh data folder).
			extra = append(extra, runtime.WithContributors(fixedContribution{name: "Evolution", text: env.Fragment}))
		}
		// The scenario's MCP servers are attached for this run only, beside
		// any the data folder configures (none: it is new).
		var servers []mcpclient.Option
		for _, s := range env.MCP {
			servers = append(servers, mcpclient.WithServer(s.Config, s.Connect))
		}
		p, err := OpenWith(ctx, settings, log, Owner, Extras{Runtime: extra, MCP: servers})
		if err != nil {
			return eval.Instance{}, err
		}
		if p.dbErr != nil {
			p.Close()
			return eval.Instance{}, p.dbErr
		}
		if env.DocsDir != "" {
			if p.rag == nil {
				p.Close()
				return eval.Instance{}, fmt.Errorf("the document index is not available")
			}
			if err := p.rag.Index(ctx, []string{env.DocsDir}, nil); err != nil {
				p.Close()
				return eval.Instance{}, fmt.Errorf("indexing the scenario's documents: %w", err)
			}
		}
		inst := eval.Instance{Kernel: p.Kernel(), MCP: p.MCP(), Close: p.Close}
		if p.queue != nil {
			inst.Batches = p.queue
		}
		if p.standing != nil {
			inst.Standing = p.standing
		}
		return inst, nil
	}
}

// fixedContribution is a context contributor with one text: a scenario's
// fragments, rendered as evolve renders the active ones (evolve.Render).
type fixedContribution struct{ name, text string }

func (f fixedContribution) Name() string { return f.name }
func (f fixedContribution) Contribute(context.Context, string) (string, error) {
	return f.text, nil
}
