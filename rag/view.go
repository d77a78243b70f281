package rag

import (
	"context"
	"fmt"
	"time"
)

// Small accessors for hosts that show the index to people (the documents
// panel); they read state, never change it.

// Offline reports whether the built-in offline embedder makes the vectors
// (no embedding model was given or found).
func (ix *Index) Offline() bool { return ix.cur().offline != nil }

// DisplayName is path as citations show it: relative to the parent of the
// watched root it was found under.
func DisplayName(root, path string) string { return displayName(root, path) }

// Document is the state of the file at path (absolute, cleaned), or
// ErrNotIndexed.
func (ix *Index) Document(ctx context.Context, path string) (Document, error) {
	docs, err := ix.queryDocuments(ctx, `WHERE path = ?`, path)
	if err != nil {
		return Document{}, err
	}
	if len(docs) == 0 {
		return Document{}, fmt.Errorf("%s: %w", path, ErrNotIndexed)
	}
	return docs[0], nil
}

// queryDocuments reads rag_files rows; tail is the WHERE / ORDER BY clause.
func (ix *Index) queryDocuments(ctx context.Context, tail string, args ...any) ([]Document, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT path, root, format, status, reason, chunks, size, mtime_ns, updated_ns
		FROM rag_files `+tail, args...)
	if err != nil {
		return nil, fmt.Errorf("rag: %w", err)
	}
	defer rows.Close()
	var out []Document
	for rows.Next() {
		var d Document
		var mtime, updated int64
		if err := rows.Scan(&d.Path, &d.Root, &d.Format, &d.Status, &d.Reason, &d.Chunks, &d.Size, &mtime, &updated); err != nil {
			return nil, fmt.Errorf("rag: %w", err)
		}
		if mtime > 0 {
			d.ModTime = time.Unix(0, mtime)
		}
		if updated > 0 {
			d.Updated = time.Unix(0, updated)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// Searchable reports whether the index holds any passage a search can
// find: search_docs is offered to the model only then, since its
// declaration costs context on every request and finds nothing in an
// empty index.
func (ix *Index) Searchable(ctx context.Context) (bool, error) {
	var found bool
	if err := ix.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM rag_chunks)`).Scan(&found); err != nil {
		return false, fmt.Errorf("rag: %w", err)
	}
	return found, nil
}
