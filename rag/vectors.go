package rag

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"quire/rag/hashvec"
)

// The offline embedder's document-frequency statistics are saved under
// the corpus version they describe; a crash between a change and the
// next save leaves the versions apart, and they are rebuilt from the chunks.

func sketchName(e *embedding) string { return "sketch:" + e.name }

// readySketch reads e's statistics (when e is the offline embedder) on
// first need — a query vector, a pass, a switch to e — not at Open: they
// are a blob of megabytes (8 MB at 53k chunks), and reading them was most
// of what a start with nothing changed cost (issue 30). A load that fails
// is tried again by the next need.
func (ix *Index) readySketch(ctx context.Context, e *embedding) error {
	if e.offline == nil || e.sketchReady.Load() {
		return nil
	}
	e.sketchMu.Lock()
	defer e.sketchMu.Unlock()
	if e.sketchReady.Load() {
		return nil
	}
	if err := ix.loadSketch(ctx, e); err != nil {
		return err
	}
	e.sketchReady.Store(true)
	return nil
}

// loadSketch readies e's statistics (e is the offline embedder) as the
// ones the index keeps up to date: e is, or is about to be, the active one.
func (ix *Index) loadSketch(ctx context.Context, e *embedding) error {
	version, err := corpusVersion(ctx, ix.db)
	if err != nil {
		return fmt.Errorf("rag: %w", err)
	}
	var saved int64
	var data []byte
	err = ix.db.QueryRowContext(ctx, `SELECT version, data FROM rag_stats WHERE name = ?`, sketchName(e)).Scan(&saved, &data)
	sk := hashvec.NewSketch()
	if err == nil && saved == version && sk.UnmarshalBinary(data) == nil {
		e.sketch = sk
		ix.corpus.Store(version)
		ix.saved.Store(version)
		return nil
	}
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("rag: %w", err)
	}
	if err := ix.rebuildSketch(ctx, e, sk); err != nil {
		return err
	}
	e.sketch = sk
	ix.corpus.Store(version)
	ix.saved.Store(-1)
	if sk.Docs() == 0 || ix.opts.readOnly {
		// Counting no chunks again next time costs nothing: store nothing
		// (and a reader stores nothing at all).
		ix.saved.Store(version)
		return nil
	}
	return ix.saveSketch(ctx, e)
}

// rebuildSketch counts the features of every chunk that has a vector of
// the offline embedder e.
func (ix *Index) rebuildSketch(ctx context.Context, e *embedding, sk sketchUpdater) error {
	rows, err := ix.db.QueryContext(ctx, `SELECT c.text FROM rag_chunks c WHERE `+hasVector, e.name)
	if err != nil {
		return fmt.Errorf("rag: rebuild statistics: %w", err)
	}
	defer rows.Close()
	var batch [][]uint64
	for rows.Next() {
		var text string
		if err := rows.Scan(&text); err != nil {
			return fmt.Errorf("rag: rebuild statistics: %w", err)
		}
		batch = append(batch, features(e, text))
		if len(batch) == 1024 {
			sk.Update(batch, +1)
			batch = batch[:0]
		}
	}
	sk.Update(batch, +1)
	return rows.Err()
}

type sketchUpdater interface{ Update([][]uint64, int) }

func features(e *embedding, text string) []uint64 {
	var fs []uint64
	e.offline.Features(text, func(h uint64) { fs = append(fs, h) })
	return fs
}

func (ix *Index) saveSketch(ctx context.Context, e *embedding) error {
	if e.sketch == nil || ix.saved.Load() == ix.corpus.Load() {
		return nil
	}
	data, err := e.sketch.MarshalBinary()
	if err != nil {
		return err
	}
	// The version is read and the row written in one transaction, so a
	// concurrent change cannot slip between them.
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("rag: save statistics: %w", err)
	}
	defer tx.Rollback()
	version, err := corpusVersion(ctx, tx)
	if err != nil {
		return fmt.Errorf("rag: save statistics: %w", err)
	}
	if version != ix.corpus.Load() {
		// Another process (a `quire index` beside the app) changed the
		// chunks: these statistics do not describe them. Leave the saved
		// ones apart from the corpus, so the next Open counts afresh.
		return nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO rag_stats(name, version, data) VALUES (?, ?, ?)
		ON CONFLICT(name) DO UPDATE SET version = excluded.version, data = excluded.data`, sketchName(e), version, data); err != nil {
		return fmt.Errorf("rag: save statistics: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	ix.saved.Store(version)
	return nil
}

func (ix *Index) saveSketchIfOffline(ctx context.Context) error {
	e := ix.cur()
	if e.offline == nil {
		return nil
	}
	return ix.saveSketch(context.WithoutCancel(ctx), e)
}
