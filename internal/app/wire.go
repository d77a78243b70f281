package app

import (
	"context"
	"log/slog"

	"quire/internal/sqlschema"
	"quire/kernel/compact"
	"quire/kernel/prompt"
	"quire/kernel/provider/ollama"
	"quire/kernel/runtime"
	"quire/kernel/tool"
	"quire/kernel/tool/registry"
	"quire/memory"
	"quire/rag"
	"quire/tools/searchdocs"
	"quire/tools/todo"
)

// basePrompt is who the assistant is and where it runs (kernel/prompt);
// the runtime adds the working-memory zone.
func basePrompt() *prompt.Assembler { return prompt.Base() }

// disabledLayer is the settings' visibility layer: the tools the user
// turned off are never offered.
func disabledLayer(names []string) []registry.Layer {
	return []registry.Layer{{Name: "settings", Deny: names}}
}

// docsTools offers search_docs when the index is open and holds a passage:
// with no documents the declaration would only take room in the model's
// context (and a small model's context has little).
type docsTools struct {
	idx *rag.Index
	p   *Parts
	log *slog.Logger
}

func (d docsTools) Tools() []tool.Tool {
	if d.idx == nil {
		return nil
	}
	// The facet has no context: a run's start asks, and SQLite answers
	// from an index in a moment.
	ok, err := d.idx.Searchable(context.Background())
	if err != nil {
		d.log.Warn("cannot tell whether any document is indexed; search_docs is offered", "err", err)
		ok = true
	}
	if !ok {
		return nil
	}
	return []tool.Tool{searchdocs.New(recheckingSearcher{d.idx, d.p})}
}

// todoTools offers the plan and self-report tools.
type todoTools struct{}

func (todoTools) Tools() []tool.Tool { return todo.Tools() }

// planReminder is the pre-close hook that reminds a run of its open plan
// items (tools/todo), reading the log.
func planReminder(log todo.Log) runtime.CheckpointHook { return todo.PlanReminder(log) }

// openMemory opens the memory index over the database and returns the
// runtime options that plug it in: the remember / forget tools, the
// working-memory zone and the post-run learner (which asks the chat model).
// Its settings are saved through the settings owner. Memory that cannot be
// opened is left off with a warning.
func (p *Parts) openMemory(ctx context.Context, emb memory.Embedder) []runtime.Option {
	cfg := p.settings.Get()
	mem, err := memory.Open(ctx, p.store.DB(), p.store, memory.WithEmbedder(emb),
		memory.WithApproval(!cfg.MemoryWithoutAsking), memory.WithLearning(cfg.MemoryLearn),
		memory.WithSettingsSaver(func(approval, learn bool) error { return p.settings.SetMemory(!approval, learn) }),
		memory.WithLogger(p.log))
	if err != nil {
		p.log.Error("memory could not be opened; the assistant will not remember", "err", err)
		p.memErr = sqlschema.NoSpace(err) // doctor reports it
		return nil
	}
	p.mem = mem
	return []runtime.Option{runtime.WithTools(mem), runtime.WithContributors(mem.Contributor()),
		runtime.WithSubscribers(mem.Learner(p.chat, cfg.Model, cfg.NumCtx))}
}

// compaction is the history compaction the runtime asks before every step
// and on context overflow: the window is num_ctx capped by the model's
// trained context length from Ollama's /api/show. Facts it extracts go to
// the session's working memory when memory opened (mem may be nil).
func compaction(o *ollama.Catalog, mem *memory.Store, log *slog.Logger) *compact.Compactor {
	window := compact.WindowFunc(func(ctx context.Context, model string) (int, error) {
		info, err := o.ModelInfo(ctx, model)
		return info.ContextLength, err
	})
	opts := []compact.Option{compact.WithWindow(window), compact.WithLogger(log)}
	if mem != nil {
		opts = append(opts, compact.WithWorkingMemory(mem.Compaction()))
	}
	return compact.New(opts...)
}
