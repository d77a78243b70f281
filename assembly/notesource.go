package assembly

import (
	"context"
	"errors"
	"path/filepath"

	"quire/host"
	"quire/kernel/protocol"
	"quire/library"
	"quire/rag/parse"
)

// noteViewer is the documents' back end whose viewer also opens the notes
// folder's indexed notes: search_docs cites a note by its path on disk,
// and the window's citation opens it as it opens a passage. Any other
// path is refused as before (library.Source), so the page still reads no
// file outside the indexes through it.
type noteViewer struct {
	host.Documents
	notes *notesTools
}

func (d noteViewer) Source(ctx context.Context, path string, page int) (protocol.DocumentSource, error) {
	src, err := d.Documents.Source(ctx, path, page)
	if !errors.Is(err, library.ErrUnknownDocument) || d.notes == nil {
		return src, err
	}
	d.notes.mu.Lock()
	root, x := d.notes.root, d.notes.index
	d.notes.mu.Unlock()
	if root == nil || x == nil {
		return src, err
	}
	rel, rerr := filepath.Rel(x.Dir(), filepath.Clean(path))
	if rerr != nil || !filepath.IsLocal(rel) {
		return src, err
	}
	rel = filepath.ToSlash(rel)
	if _, ok := x.Graph().Note(rel); !ok {
		return src, err
	}
	// Through the notes root: its sandbox, bounds and binary check.
	t, nerr := root.Note(ctx, rel)
	if nerr != nil {
		return protocol.DocumentSource{}, classify(nerr)
	}
	return protocol.DocumentSource{Path: filepath.Clean(path), Name: "note " + t.Path, Format: string(parse.Markdown), Text: t.Text}, nil
}
