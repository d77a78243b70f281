package assembly

import (
	"context"
	"log/slog"
	"path/filepath"

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
	"quire/vaultindex"
)

// basePrompt is who the assistant is and where it runs (kernel/prompt);
// the runtime adds the working-memory zone.
func basePrompt() *prompt.Assembler { return prompt.Base() }

// disabledLayer is the settings' visibility layer: the tools the user
// turned off are never offered.
func disabledLayer(names []string) []registry.Layer {
	return []registry.Layer{{Name: "settings", Deny: names}}
}

// docsTools offers search_docs when the document index holds a passage
// or the notes folder's index is worth searching (notesTools.indexWorth,
// the rule of the notes index's own tools): with neither the declaration
// would only take room in the model's context (and a small model's
// context has little). With a notes index search_docs searches the notes
// too (searchdocs.Notes, over vaultindex).
type docsTools struct {
	idx   *rag.Index
	p     *Parts
	log   *slog.Logger
	notes *notesTools
}

func (d docsTools) Tools() []tool.Tool {
	var docs searchdocs.Searcher
	if d.idx != nil {
		// The facet has no context: a run's start asks, and SQLite
		// answers from an index in a moment.
		ok, err := d.idx.Searchable(context.Background())
		if err != nil {
			d.log.Warn("cannot tell whether any document is indexed; search_docs is offered", "err", err)
			ok = true
		}
		if ok {
			docs = recheckingSearcher{d.idx, d.p}
		}
	}
	var notes searchdocs.Notes
	if d.notes != nil {
		if x := d.notes.searchable(); x != nil {
			notes = noteSearch{x}
		}
	}
	if docs == nil && notes == nil {
		return nil
	}
	return []tool.Tool{searchdocs.WithNotes(docs, notes)}
}

// noteSearch is the notes index as search_docs reads it.
type noteSearch struct{ x *vaultindex.Index }

func (n noteSearch) SearchNotes(ctx context.Context, query string, limit int) ([]searchdocs.NoteHit, error) {
	hits, err := n.x.Search(ctx, vaultindex.Query{Text: query, Limit: limit})
	out := make([]searchdocs.NoteHit, len(hits))
	for i, h := range hits {
		out[i] = searchdocs.NoteHit{Path: h.Path, Abs: filepath.Join(n.x.Dir(), filepath.FromSlash(h.Path)),
			Line: h.Line, Snippet: h.Snippet, Score: h.Score}
	}
	return out, err
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
