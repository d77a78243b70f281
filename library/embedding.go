package library

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"quire/kernel/protocol"
	"quire/rag"
)

// Embedders is what the library asks about embedding models: the embedder
// of an installed model that can embed, or why there is none — an error
// wrapping ErrEmbedModelMissing, ErrNotAnEmbedder or ErrOllamaUnreachable.
type Embedders interface {
	Embedder(ctx context.Context, model string) (rag.Embedder, error)
}

// Embedding is what the library needs to show and change the embedding
// model: the models, the one chosen and how its check at start went, where
// a choice is saved, and the clock of the re-check's back-off.
type Embedding struct {
	Models Embedders
	Model  string                   // the chosen model; "" for none
	Err    error                    // why Model is not in use since the start (nil: it is, or none)
	Save   func(model string) error // saves a choice (config.Store.SetEmbedModel)
	Now    func() time.Time         // nil: time.Now
}

// Option changes a Library.
type Option func(*Library)

// WithEmbedding lets the library show the embedding model, switch it, and
// check again, on a search, for a model that could not be used.
func WithEmbedding(e Embedding) Option {
	return func(l *Library) {
		if e.Now == nil {
			e.Now = time.Now
		}
		l.embed = &embedState{cfg: e, err: e.Err}
		if e.Err != nil {
			l.embed.next = e.Now() // the first search checks again
		}
	}
}

// The re-check's back-off after a failed check: a search checks again
// once the wait has passed, and each failure doubles it up to the most.
const (
	recheckFirst = 5 * time.Second
	recheckMost  = 5 * time.Minute
)

// maxModelName bounds a model name from a host (Ollama's own names are
// far shorter).
const maxModelName = 200

type embedState struct {
	cfg Embedding

	mu       sync.Mutex
	err      error     // why cfg.Model is not in use (nil: it is, or none)
	next     time.Time // when a search may check again
	wait     time.Duration
	checking bool // a check is under way (a search does not wait for another's)
}

// Errors of the embedding model, for hosts.
var (
	// ErrEmbedModelMissing: Ollama does not have the model.
	ErrEmbedModelMissing = errors.New("the embedding model is not installed")
	// ErrNotAnEmbedder: the model is installed but cannot make embeddings.
	ErrNotAnEmbedder = errors.New("the model cannot make embeddings")
	// ErrOllamaUnreachable: Ollama did not answer.
	ErrOllamaUnreachable = errors.New("the Ollama server is not answering")
	// ErrBadModelName: a choice of model that is no name at all.
	ErrBadModelName = protocol.Classify(protocol.ErrBadPayload,
		fmt.Errorf("give the name of an installed embedding model (at most %d characters), or none", maxModelName))
	// errNoEmbedding: the library was made without WithEmbedding.
	errNoEmbedding = protocol.Classify(protocol.ErrConflict, errors.New("the embedding model cannot be changed here"))
)

// SetEmbedModel chooses the embedding model ("" for none: the built-in
// embedder). A model must be installed and able to embed, or nothing
// changes; the choice is saved, then the documents are re-embedded in the
// background, one at a time, while searches go on with the vectors they
// have.
func (l *Library) SetEmbedModel(ctx context.Context, model string) error {
	e := l.embed
	if e == nil {
		return errNoEmbedding
	}
	model = strings.TrimSpace(model)
	if len(model) > maxModelName || strings.ContainsAny(model, "\x00\n\r\t") {
		return ErrBadModelName
	}
	var emb rag.Embedder
	if model != "" {
		var err error
		if emb, err = e.cfg.Models.Embedder(ctx, model); err != nil {
			return protocol.Classify(protocol.ErrConflict, errors.New(embedProblem(model, err)))
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.cfg.Save(model); err != nil {
		return err
	}
	e.cfg.Model, e.err, e.wait = model, nil, 0
	if err := l.idx.Switch(emb); err != nil {
		return err
	}
	return l.reembedIfPending()
}

// Recheck is called before a search and when the documents panel reads
// its state: when the chosen model could not be used and the back-off has
// passed, it checks again (the caller waits for that one check, bounded by
// Embedders' own deadline), and a model that is back is switched to
// without a restart. Nothing polls: no search and no look at the panel, no
// check. The panel checks too, or it said "Ollama is not answering"
// minutes after a chat through it worked, until something searched.
func (l *Library) Recheck(ctx context.Context) {
	e := l.embed
	if e == nil {
		return
	}
	e.mu.Lock()
	if e.err == nil || e.checking || e.cfg.Now().Before(e.next) {
		e.mu.Unlock()
		return
	}
	e.checking = true
	model := e.cfg.Model
	e.mu.Unlock()
	emb, err := e.cfg.Models.Embedder(ctx, model)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.checking = false
	if e.cfg.Model != model {
		return // chosen again meanwhile
	}
	if err != nil && ctx.Err() != nil {
		// The caller went away (a search stopped, a panel closed): the
		// check found nothing, so nothing is recorded.
		return
	}
	if err != nil {
		e.failed(err)
		return
	}
	e.err, e.wait = nil, 0
	l.log.Info("documents: the embedding model is back", "model", model)
	if err := l.idx.Switch(emb); err != nil {
		l.log.Warn("documents: switch embedder", "err", err)
		return
	}
	if err := l.reembedIfPending(); err != nil {
		l.log.Warn("documents: re-embed", "err", err)
	}
}

// failed records a failed check and backs off. e.mu is held.
func (e *embedState) failed(err error) {
	e.err = err
	e.wait = min(max(e.wait*2, recheckFirst), recheckMost)
	e.next = e.cfg.Now().Add(e.wait)
}

// reembedIfPending queues the re-embedding a switch needs, once.
func (l *Library) reembedIfPending() error {
	if l.idx.Target() == "" {
		return nil
	}
	return l.enqueue(job{kind: jobReembed})
}

// reembedFailed is told how a re-embedding ended with an error: a model
// that went away is checked again on a later search, which resumes it.
func (l *Library) reembedFailed(err error) {
	if e := l.embed; e != nil && (errors.Is(err, ErrOllamaUnreachable) || errors.Is(err, ErrEmbedModelMissing)) {
		e.mu.Lock()
		e.failed(err)
		e.mu.Unlock()
	}
}

// embeddingState is the panel's account of the embedding model.
func (l *Library) embeddingState(ctx context.Context) *protocol.EmbeddingState {
	e := l.embed
	if e == nil {
		return nil
	}
	st := &protocol.EmbeddingState{Status: protocol.EmbedNone, InUse: l.idx.Embedder(), Target: l.idx.Target()}
	if d, err := l.idx.Dimensions(ctx); err == nil {
		st.Dimensions = d
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	st.Model = e.cfg.Model
	switch {
	case st.Model == "":
	case errors.Is(e.err, ErrOllamaUnreachable):
		st.Status, st.Problem = protocol.EmbedUnreachable, embedProblem(st.Model, e.err)
	case e.err != nil:
		st.Status, st.Problem = protocol.EmbedMissing, embedProblem(st.Model, e.err)
	default:
		st.Status = protocol.EmbedReady
	}
	return st
}

// embedProblem is the panel's sentence for a model that cannot be used,
// with what to do.
func embedProblem(model string, err error) string {
	switch {
	case errors.Is(err, ErrEmbedModelMissing):
		return fmt.Sprintf("The embedding model %s is not installed, so search uses keywords and the vectors it has. Pull it (ollama pull %s, or Pull below), or choose another model here.", model, model)
	case errors.Is(err, ErrNotAnEmbedder):
		return fmt.Sprintf("%s is not an embedding model, so search uses keywords and the vectors it has. Choose an embedding model here (nomic-embed-text, for one).", model)
	case errors.Is(err, ErrOllamaUnreachable):
		return fmt.Sprintf("Ollama is not answering, so %s cannot embed and search uses keywords and the vectors it has. Start Ollama; Quire checks again on the next search.", model)
	}
	return fmt.Sprintf("The embedding model %s cannot be used (%v), so search uses keywords and the vectors it has. Choose another model here.", model, err)
}

// reembedStopped is the panel's sentence for a re-embedding that failed.
func reembedStopped(target string, err error) string {
	return fmt.Sprintf("Making the vectors of %s stopped (%v). Search goes on with the vectors it had; what was made is kept, and the rest is made when the model answers again (Quire checks on a later search) or at the next start.", target, err)
}
