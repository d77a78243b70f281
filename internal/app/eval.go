package app

import (
	"context"
	"fmt"
	"log/slog"

	"quire/config"
	"quire/eval"
	"quire/kernel/runtime"
)

// EvalBuilder assembles a scenario's kernel with the root's own wiring (the
// same store, tools, prompt and checkpoint hook as the window), as an
// Owner over the scenario's folders and model, with the scenario's user
// answering.
func EvalBuilder(log *slog.Logger) eval.Builder {
	return func(ctx context.Context, env eval.Env) (eval.Instance, error) {
		settings := config.NewStore(config.Config{DataDir: env.DataDir, OllamaHost: env.OllamaHost, Model: env.Model, NumCtx: env.NumCtx,
			NotesDir: env.NotesDir, EmbedModel: env.EmbedModel, MemoryWithoutAsking: env.RememberWithoutAsking,
			Skills: config.SkillSettings{Disabled: env.DisabledSkills},
			// One worker: the scripted model turns answer a batch's tasks in
			// note order.
			Batch: config.BatchSettings{Workers: 1}})
		p, err := Open(ctx, settings, log, Owner, runtime.WithAsker(env.Ask), runtime.WithTools(env.Tools...))
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
		inst := eval.Instance{Kernel: p.Kernel(), Close: p.Close}
		if p.queue != nil {
			inst.Batches = p.queue
		}
		return inst, nil
	}
}
