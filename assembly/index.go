package assembly

import (
	"context"
	"errors"
	"fmt"

	"quire/config"
	"quire/host"
	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/store"
	"quire/rag"
	"quire/tools/searchdocs"
)

// Index is the document index as `quire index` and `quire search` use it,
// in protocol shapes, or why it is not open. A Reader opens it here, the
// first time, read-only: it only searches and lists.
func (p *Parts) Index(ctx context.Context) (host.Index, error) {
	p.ragMu.Lock()
	defer p.ragMu.Unlock()
	if p.rag == nil && p.ragErr == nil && p.mode == Reader && p.store != nil {
		// Nothing is asked of Ollama here: a reader searches with the
		// vectors the index has (WithKeepStored; it makes none), and only
		// a search that ranks by vector asks the model for the query's.
		// A keyword search then never waits on a stalled Ollama (issue 30).
		models := embedModels{p.ollama}
		var emb rag.Embedder
		if model := chosenEmbedModel(p.settings.Get()); model != "" {
			emb = models.byName(ollamaPrefix + model)
		}
		p.rag, p.ragErr = rag.Open(ctx, p.store.DB(), emb, rag.WithEmbedders(models.byName), rag.WithKeepStored(), rag.WithReadOnly())
	}
	switch {
	case p.rag != nil:
		return documentIndex{p.rag}, nil
	case errors.Is(p.ragErr, rag.ErrNoIndex), errors.Is(p.dbErr, store.ErrNoDatabase):
		return nil, errors.New("no document has been indexed yet; `quire index PATH...` adds some")
	case p.ragErr != nil:
		return nil, fmt.Errorf("the document index is not available (see `quire doctor`): %w", p.ragErr)
	}
	return nil, fmt.Errorf("the document index is not available: %w: %w", errNoDatabase, p.DatabaseError())
}

// docLimits are the settings' bounds on each document, in rag's terms.
func docLimits(l config.DocumentLimits) rag.Limits {
	return rag.Limits{Bytes: l.MaxBytes, Pages: l.MaxPages, Text: l.MaxTextBytes, Chunks: l.MaxChunks}
}

// documentIndex adapts rag to the commands' shapes.
type documentIndex struct{ idx *rag.Index }

func (d documentIndex) Embedder() string    { return d.idx.Embedder() }
func (d documentIndex) VectorError() string { return d.idx.VectorError() }

// Index brings the paths up to date, reporting progress.
// A pass the disk had no room for is protocol.ErrNoSpace, the class hosts
// give their "the disk is full" sentence.
//
// A switch of embedding model still pending (the settings name another
// model than the vectors were made with, and no window or `quire serve`
// has re-embedded yet) is finished here too: the documents are embedded
// with the chosen model, as a host's documents panel would do in the
// background (issue 32: `quire index` said "nothing changed" and left
// the switch pending).
func (d documentIndex) Index(ctx context.Context, paths []string, progress func(protocol.IndexProgress)) error {
	report := func(p rag.Progress) {
		progress(protocol.IndexProgress{Running: p.Phase != "done", Phase: p.Phase, Total: p.Total, Done: p.Done,
			Failed: p.Failed, Refused: p.Refused, Skipped: p.Skipped, CurrentFile: p.CurrentFile, ETAMillis: p.ETA.Milliseconds()})
	}
	err := d.idx.Index(ctx, paths, report)
	if err == nil && d.idx.Target() != "" {
		err = d.idx.Reembed(ctx, report)
	}
	if errors.Is(err, event.ErrNoSpace) {
		return protocol.Classify(protocol.ErrNoSpace, err)
	}
	return err
}

// Documents lists every file in the index.
func (d documentIndex) Documents(ctx context.Context) ([]protocol.Document, error) {
	docs, err := d.idx.Documents(ctx)
	out := make([]protocol.Document, len(docs))
	for i, x := range docs {
		out[i] = protocol.Document{Path: x.Path, Name: rag.DisplayName(x.Root, x.Path), Root: x.Root, Format: x.Format,
			Status: x.Status, Reason: x.Reason, Chunks: x.Chunks, Size: x.Size, Updated: x.Updated}
	}
	return out, err
}

// Search finds the n best passages, numbered as search_docs numbers them,
// ranked as mode says (rag's modes have the protocol's names).
func (d documentIndex) Search(ctx context.Context, query string, n int, mode protocol.SearchMode) ([]protocol.Citation, error) {
	hits, err := d.idx.SearchMode(ctx, query, n, rag.Mode(mode))
	if err != nil {
		return nil, err
	}
	return searchdocs.Citations(hits), nil
}
