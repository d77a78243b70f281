package assembly

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"quire/config"
	"quire/doctor"
	"quire/kernel/provider"
	"quire/kernel/provider/ollama"
	"quire/kernel/provider/openai"
	"quire/library"
	"quire/rag"
	"quire/vaultindex"
)

// embedCheckTimeout bounds one check of the embedding model (a search that
// re-checks waits for it; a hung Ollama costs at most this).
const embedCheckTimeout = 2 * time.Second

// ollamaPrefix starts the name of an Ollama model's vectors in the index.
const ollamaPrefix = "ollama:"

// chosenEmbedModel is the settings' embedding model, "" for none.
func chosenEmbedModel(cfg config.Config) string {
	if cfg.EmbedModel == config.NoEmbedModel {
		return ""
	}
	return cfg.EmbedModel
}

// embedModels are Ollama's embedding models, for the library and doctor.
type embedModels struct{ o *ollama.Provider }

// Embedder is model's embedder when Ollama has it and it embeds; otherwise
// the error wraps library.ErrOllamaUnreachable, ErrEmbedModelMissing or
// ErrNotAnEmbedder, after what Ollama said.
func (m embedModels) Embedder(ctx context.Context, model string) (rag.Embedder, error) {
	ctx, cancel := context.WithTimeout(ctx, embedCheckTimeout)
	defer cancel()
	info, err := m.o.ModelInfo(ctx, model)
	switch {
	case errors.Is(err, provider.ErrModelMissing):
		return nil, fmt.Errorf("%s: %w", model, library.ErrEmbedModelMissing)
	case err != nil:
		return nil, fmt.Errorf("%w: %w", library.ErrOllamaUnreachable, err)
	case !slices.Contains(info.Capabilities, "embedding"):
		return nil, fmt.Errorf("%s (capabilities: %s): %w", model, strings.Join(info.Capabilities, ", "), library.ErrNotAnEmbedder)
	}
	return ollamaEmbedder{p: m.o, model: model}, nil
}

// byName makes the embedder of the vectors stored under name, so the index
// can go on with them while a switch makes others (rag.WithEmbedders).
func (m embedModels) byName(name string) rag.Embedder {
	if model, ok := strings.CutPrefix(name, ollamaPrefix); ok && model != "" {
		return ollamaEmbedder{p: m.o, model: model}
	}
	return nil
}

// embedModels are the embedding models of the runner the document index
// started with (embedRunner): a runner chosen since embeds from the next
// start, which the Settings screen says (RunnerScreen.Restart).
func (p *Parts) embedModels() library.Embedders {
	if p.embedRunner == config.RunnerOpenAI {
		return openaiEmbedModels{p.openai}
	}
	return embedModels{p.ollama}
}

// openaiEmbedModels are an OpenAI-compatible server's embedding models.
type openaiEmbedModels struct{ o *openai.Provider }

func (m openaiEmbedModels) Embedder(ctx context.Context, model string) (rag.Embedder, error) {
	return openaiEmbedderFor(ctx, m.o, model)
}

// ollamaEmbedder adapts the Ollama adapter to rag.Embedder.
type ollamaEmbedder struct {
	p     *ollama.Provider
	model string
}

// Name is the model's short name (Ollama's "x" for "x:latest"), so one
// model spelt either way keeps one set of vectors.
func (e ollamaEmbedder) Name() string { return ollamaPrefix + strings.TrimSuffix(e.model, ":latest") }

// Embed says a model that went away (Ollama stopped, the model deleted) as
// the library's errors, so a re-embedding it stops is resumed by the check
// that finds the model back.
func (e ollamaEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	vs, err := e.p.Embed(ctx, e.model, texts)
	switch {
	case errors.Is(err, provider.ErrModelMissing):
		return nil, fmt.Errorf("%w: %w", library.ErrEmbedModelMissing, err)
	case errors.Is(err, provider.ErrUnavailable):
		return nil, fmt.Errorf("%w: %w", library.ErrOllamaUnreachable, err)
	}
	return vs, err
}

// embedder checks the chosen model at start: its embedder, or nil (the
// index's offline embedder) with why the model cannot be used; nil, nil
// when none is chosen.
func (p *Parts) embedder(ctx context.Context, model string) (rag.Embedder, error) {
	if model == "" {
		return nil, nil
	}
	emb, err := p.embedModels().Embedder(ctx, model)
	if err != nil {
		p.log.Warn("the embedding model cannot be used; search keeps what the index has", "model", model, "err", err)
	}
	return emb, err
}

// ragEmbedding is rag's options for the embedder: stored vectors of an
// Ollama model can still be searched by, and a model that could not be
// checked (checkErr) is no reason to drop them for the offline embedder.
func (p *Parts) ragEmbedding(checkErr error) []rag.Option {
	opts := []rag.Option{rag.WithEmbedders(func(name string) rag.Embedder {
		if e := openaiByName(p.openai, name); e != nil {
			return e
		}
		return embedModels{p.ollama}.byName(name)
	})}
	if checkErr != nil {
		opts = append(opts, rag.WithKeepStored())
	}
	return opts
}

// recheckingSearcher is search_docs's searcher: before each search the
// library may check again for an embedding model that could not be used.
type recheckingSearcher struct {
	*rag.Index
	p *Parts
}

func (s recheckingSearcher) Search(ctx context.Context, query string, n int) ([]rag.Hit, error) {
	s.p.recheck(ctx)
	return s.Index.Search(ctx, query, n)
}

// recheck asks the library, when a host started it, to check the
// embedding model again (library.Recheck: bounded, backed off).
func (p *Parts) recheck(ctx context.Context) {
	p.ragMu.Lock()
	lib := p.library
	p.ragMu.Unlock()
	if lib != nil {
		lib.Recheck(ctx)
	}
}

// embeddingCheck is doctor's embedding line, from a check made now.
func (p *Parts) embeddingCheck(ctx context.Context) doctor.Check {
	model := chosenEmbedModel(p.settings.Get())
	s := doctor.EmbeddingState{Model: model}
	if p.mode == Reader {
		// A reader opens the index on its first search, and that search
		// ranks with the vectors stored: doctor must say what it would
		// use, not "keywords only" because nothing searched yet (issue 32).
		p.Index(ctx)
	}
	p.ragMu.Lock()
	if p.rag != nil {
		s.InUse, s.Offline, s.Target = p.rag.Embedder(), p.rag.Offline(), p.rag.Target()
		if !s.Offline && (s.InUse == ollamaPrefix+model || s.InUse == openaiPrefix+model) {
			s.Dimensions, _ = p.rag.Dimensions(ctx)
		}
	}
	p.ragMu.Unlock()
	if model == "" {
		s.Problem = doctor.EmbeddingNone
		return doctor.Embedding(s)
	}
	emb, err := p.embedModels().Embedder(ctx, model)
	switch {
	case errors.Is(err, library.ErrEmbedModelMissing):
		s.Problem = doctor.EmbeddingMissing
	case errors.Is(err, library.ErrNotAnEmbedder):
		s.Problem = doctor.EmbeddingNotEmbedder
	case err != nil:
		s.Problem, s.Err = doctor.EmbeddingUnreachable, errors.Unwrap(err)
	case s.Dimensions == 0:
		// No vectors of it stored yet: one short embedding says their length.
		ctx, cancel := context.WithTimeout(ctx, embedCheckTimeout)
		defer cancel()
		if vs, err := emb.Embed(ctx, []string{"dimensions"}); err == nil && len(vs) == 1 {
			s.Dimensions = len(vs[0])
		}
	}
	return doctor.Embedding(s)
}

// notesEmbedder is the documents' embedder for the notes' index, or nil
// with why the notes are searched by their words alone.
func notesEmbedder(emb rag.Embedder, model string, err error) (vaultindex.Embedder, string) {
	switch {
	case emb != nil:
		return emb, ""
	case model == "":
		return nil, "no embedding model is chosen in the settings"
	case err != nil:
		return nil, fmt.Sprintf("the embedding model %s cannot be used (%v)", model, err)
	}
	return nil, "the embedding model " + model + " cannot be used"
}
