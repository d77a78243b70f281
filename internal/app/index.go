package app

import (
	"context"
	"errors"

	"quire/host"
	"quire/kernel/protocol"
	"quire/rag"
	"quire/tools/searchdocs"
)

// errNoIndex: the document index could not be opened.
var errNoIndex = errors.New("the document index is not available (see `quire doctor`)")

// Index is the document index as `quire index` and `quire search` use it,
// in protocol shapes, or errNoIndex when it is not open. In a Reader it
// only searches and lists.
func (p *Parts) Index() (host.Index, error) {
	if p.rag == nil {
		return nil, errNoIndex
	}
	return documentIndex{p.rag}, nil
}

// documentIndex adapts rag to the commands' shapes.
type documentIndex struct{ idx *rag.Index }

func (d documentIndex) Embedder() string    { return d.idx.Embedder() }
func (d documentIndex) VectorError() string { return d.idx.VectorError() }

// Index brings the paths up to date, reporting progress.
func (d documentIndex) Index(ctx context.Context, paths []string, progress func(protocol.IndexProgress)) error {
	return d.idx.Index(ctx, paths, func(p rag.Progress) {
		progress(protocol.IndexProgress{Running: p.Phase != "done", Phase: p.Phase, Total: p.Total, Done: p.Done,
			Failed: p.Failed, CurrentFile: p.CurrentFile, ETAMillis: p.ETA.Milliseconds()})
	})
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

// Search finds the n best passages, numbered as search_docs numbers them.
func (d documentIndex) Search(ctx context.Context, query string, n int) ([]protocol.Citation, error) {
	hits, err := d.idx.Search(ctx, query, n)
	if err != nil {
		return nil, err
	}
	return searchdocs.Citations(hits), nil
}
