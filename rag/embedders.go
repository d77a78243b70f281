package rag

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	lru "github.com/hashicorp/golang-lru/v2"

	"quire/internal/sqlschema"
	"quire/internal/vecindex"
	"quire/rag/hashvec"
)

// embedding is one embedder with what searching by it needs: its vectors in
// memory, the offline embedder's statistics, the query vectors it made. The
// index holds the active one; a switch re-embeds for a target beside it and
// swaps them when the target's vectors are complete, so a ranking only ever
// compares vectors of one embedder.
type embedding struct {
	emb     Embedder
	name    string                        // emb.Name(), the key of its vectors in rag_vector_blocks
	offline *hashvec.Model                // the built-in embedder, when it is this one
	sketch  *hashvec.Sketch               // the offline embedder's statistics, once sketchReady (readySketch)
	queries *lru.Cache[string, []float32] // query vectors of an embedding model, by query text
	dims    atomic.Int64                  // the length of its stored vectors; 0 until one is stored

	// vecs are its vectors in memory, loaded from SQLite (only this
	// embedder's) by the first search that ranks by vector with it
	// (Index.vectors), not at Open nor when a switch adopts it: a lexical
	// search, a listing or a pass needs none of them, and loading is most
	// of what a `quire search` start costs (docs/BENCHMARKS-NOTEBOOK.md, "CLI time
	// to first result"). vecMu is held while they load and while a pass
	// applies a commit to them, so each commit is either seen by the load's
	// read or applied after it (Add replaces by id, Remove ignores the
	// unknown: applying one the load already saw changes nothing).
	vecs       *vecindex.Index // nil until loaded
	vecMu      sync.Mutex
	vecsLoaded atomic.Bool

	// sketchMu is held while the statistics load (readySketch): a search
	// and a pass may both be first to need them.
	sketchMu    sync.Mutex
	sketchReady atomic.Bool
}

// loadDims reads the recorded length of e's vectors.
func (ix *Index) loadDims(ctx context.Context, e *embedding) error {
	var dims int64
	err := ix.db.QueryRowContext(ctx, `SELECT dims FROM rag_embedders WHERE name = ?`, e.name).Scan(&dims)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("rag: stored embedder: %w", err)
	}
	e.dims.Store(dims)
	return nil
}

// checkDims refuses vectors whose length differs from e's stored ones (a
// model replaced under its tag): they could not be compared with them.
func checkDims(e *embedding, n int) error {
	if e.dims.CompareAndSwap(0, int64(n)) {
		return nil
	}
	if have := e.dims.Load(); have != int64(n) {
		return fmt.Errorf("%s made %d-dimensional vectors where its stored ones have %d: %w", e.name, n, have, ErrDimensions)
	}
	return nil
}

// String names the embedder for people: the model's name, or "built-in
// offline embedder (...)".
func (e *embedding) String() string {
	if e.offline != nil {
		return "built-in offline embedder (" + e.name + ")"
	}
	return e.name
}

// cur is the active embedding, read once by whatever uses several of its
// parts, so a swap between two reads cannot mix embedders.
func (ix *Index) cur() *embedding { return ix.active.Load() }

// newEmbedding wraps emb (nil: the built-in offline embedder).
func (ix *Index) newEmbedding(emb Embedder) (*embedding, error) {
	e := &embedding{emb: emb}
	if emb == nil {
		e.offline = hashvec.New(ix.opts.offline)
		e.emb = e.offline
	}
	e.name = e.emb.Name()
	if e.name == "" {
		return nil, errors.New("rag: the embedder has no name")
	}
	queries, err := lru.New[string, []float32](queryCacheSize)
	if err != nil {
		return nil, err
	}
	e.queries = queries
	return e, nil
}

// WithEmbedders lets Open go on with the embedder the index was last
// complete for when it is not the one asked for: by, the embedder of a
// name (nil when it cannot make one). The one asked for becomes the
// target of a switch (Reembed) and the stored vectors rank searches until
// its own are complete. The built-in offline embedder needs no by.
func WithEmbedders(by func(name string) Embedder) Option {
	return func(o *options) { o.embedders = by }
}

// WithKeepStored opens with the embedder the index was last complete for,
// whatever emb is, when that embedder can be made (WithEmbedders): the
// caller could not reach the model it wanted (Ollama is down), which is no
// reason to throw away the vectors it made before. emb is used when the
// index has no stored embedder.
func WithKeepStored() Option { return func(o *options) { o.keepStored = true } }

// pick decides the active embedder at Open, and the target of a switch
// left unfinished (or asked for now).
func (ix *Index) pick(ctx context.Context, want *embedding) (active, target *embedding, changed bool, err error) {
	stored, err := ix.storedEmbedder(ctx)
	if err != nil {
		return nil, nil, false, err
	}
	if stored == "" || stored == want.name {
		return want, nil, stored != want.name, ix.markActive(ctx, want.name)
	}
	old, err := ix.byName(stored)
	if err != nil || old == nil {
		// Nothing can embed a query for the stored vectors: the new
		// embedder is active at once, and the next pass embeds for it.
		return want, nil, true, ix.markActive(ctx, want.name)
	}
	if ix.opts.keepStored {
		return old, nil, false, nil
	}
	return old, want, false, nil
}

// byName makes the embedder whose vectors are stored under name, or nil.
func (ix *Index) byName(name string) (*embedding, error) {
	if off := hashvec.New(ix.opts.offline); off.Name() == name {
		return ix.newEmbedding(nil)
	}
	if ix.resolve == nil {
		return nil, nil
	}
	emb := ix.resolve(name)
	if emb == nil || emb.Name() != name {
		return nil, nil
	}
	return ix.newEmbedding(emb)
}

// storedEmbedder is the embedder the index was last complete for: the one
// marked active, else (an index from before rag_embedders had a mark) the
// one with the most vectors; "" for an index with no vectors.
func (ix *Index) storedEmbedder(ctx context.Context) (string, error) {
	var name string
	err := ix.db.QueryRowContext(ctx, `SELECT name FROM rag_embedders WHERE active = 1`).Scan(&name)
	if errors.Is(err, sql.ErrNoRows) {
		// Most vectors: one embedder's vectors are all of one length.
		err = ix.db.QueryRowContext(ctx, `SELECT b.embedder FROM rag_vector_blocks b LEFT JOIN rag_embedders e ON e.name = b.embedder
			GROUP BY b.embedder ORDER BY sum(length(b.vecs)) / max(4 * coalesce(max(e.dims), 0), 4) DESC LIMIT 1`).Scan(&name)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("rag: stored embedder: %w", err)
	}
	return name, nil
}

// markActive records name as the embedder searches use (a reader records
// nothing).
func (ix *Index) markActive(ctx context.Context, name string) error {
	if ix.opts.readOnly {
		return nil
	}
	return sqlschema.NoSpace(setActive(ctx, ix.db, name))
}

func setActive(ctx context.Context, tx execer, name string) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO rag_embedders(name) VALUES (?) ON CONFLICT(name) DO NOTHING`, name); err != nil {
		return fmt.Errorf("rag: record the embedder: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE rag_embedders SET active = (name = ?)`, name); err != nil {
		return fmt.Errorf("rag: record the embedder: %w", err)
	}
	return nil
}

// noteDims records the dimensions of name's vectors when they are first
// stored, and refuses vectors of other dimensions under the same name (a
// model replaced under its tag): they could not be compared.
func noteDims(ctx context.Context, tx *sql.Tx, name string, dims int) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO rag_embedders(name, dims) VALUES (?, ?)
		ON CONFLICT(name) DO UPDATE SET dims = excluded.dims WHERE dims = 0`, name, dims); err != nil {
		return err
	}
	var have int
	if err := tx.QueryRowContext(ctx, `SELECT dims FROM rag_embedders WHERE name = ?`, name).Scan(&have); err != nil {
		return err
	}
	if have != dims {
		return fmt.Errorf("%s made %d-dimensional vectors where its stored ones have %d: %w", name, dims, have, ErrDimensions)
	}
	return nil
}

// Dimensions is the length of the active embedder's vectors, 0 while it
// has stored none.
func (ix *Index) Dimensions(ctx context.Context) (int, error) {
	var dims int
	err := ix.db.QueryRowContext(ctx, `SELECT dims FROM rag_embedders WHERE name = ?`, ix.cur().name).Scan(&dims)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return dims, err
}

// Switch makes emb (nil: the built-in offline embedder) the target of a
// switch: Reembed then makes its vectors while searches go on with the
// active embedder's, and swaps them when they are complete. Switching to
// the active embedder drops a target that was being made.
func (ix *Index) Switch(emb Embedder) error {
	if ix.opts.readOnly {
		return ErrReadOnly
	}
	e, err := ix.newEmbedding(emb)
	if err != nil {
		return err
	}
	if e.name == ix.cur().name {
		ix.target.Store(nil)
		return nil
	}
	ix.target.Store(e)
	return nil
}

// Target names the embedder a switch is re-embedding for, for people ("" when
// none is).
func (ix *Index) Target() string {
	if t := ix.target.Load(); t != nil {
		return t.String()
	}
	return ""
}

// Reembed makes the target's vectors (Switch, or a switch Open found
// unfinished), one document at a time, each under the pass token so
// indexing goes on between documents; searches use the active embedder's
// vectors throughout. When every chunk has a vector of the target it
// becomes the active embedder and the old vectors are deleted. A cancelled
// ctx, a Close or a crash keeps what was made: the next Reembed embeds
// only the chunks still without a vector of the target. Progress counts
// documents. Nil, at once, when no switch is pending.
func (ix *Index) Reembed(ctx context.Context, progress func(Progress)) (err error) {
	defer func() { err = sqlschema.NoSpace(err) }()
	if ix.opts.readOnly {
		return ErrReadOnly
	}
	report := func(p Progress) {
		if progress != nil {
			progress(p)
		}
	}
	t := ix.target.Load()
	if t == nil {
		return nil
	}
	if err := ix.loadDims(ctx, t); err != nil {
		return err
	}
	p := Progress{Phase: "indexing"}
	if err := ix.db.QueryRowContext(ctx, `SELECT count(*), count(*) - count(CASE WHEN EXISTS (`+lacking+`) THEN 1 END)
		FROM rag_files f WHERE EXISTS (SELECT 1 FROM rag_chunks c WHERE c.file_id = f.id)`, t.name).Scan(&p.Total, &p.Done); err != nil {
		return fmt.Errorf("rag: re-embed: %w", err)
	}
	report(p)
	// after is the last file done: each query starts past it, so a
	// document is looked at once, not once per document before it. Only a
	// query from the start that finds nothing, made under the same token
	// as the swap, ends the switch (a pass may have changed an earlier file).
	var after int64
	for {
		pctx, release, err := ix.acquire(ctx)
		if err != nil {
			return err
		}
		if ix.target.Load() != t {
			release() // switched again: that switch has its own Reembed
			return nil
		}
		var id int64
		err = ix.db.QueryRowContext(pctx, `SELECT f.id, f.path FROM rag_files f WHERE f.id > ? AND EXISTS (`+lacking+`) ORDER BY f.id LIMIT 1`,
			after, t.name).Scan(&id, &p.CurrentFile)
		if errors.Is(err, sql.ErrNoRows) && after > 0 {
			release()
			after = 0
			continue
		}
		if errors.Is(err, sql.ErrNoRows) {
			err = ix.adopt(pctx, t)
			release()
			if err == nil {
				p.Phase, p.CurrentFile, p.Done = "done", "", p.Total
				report(p)
			}
			return err
		}
		if err == nil {
			p.Total = max(p.Total, p.Done+1) // a document added while this ran
			report(p)
			err = ix.reembedFile(pctx, t, id)
		}
		release()
		if err != nil {
			return fmt.Errorf("rag: re-embed %s for %s: %w", p.CurrentFile, t.name, err)
		}
		if hook := ix.opts.afterReembed; hook != nil {
			hook(p.CurrentFile)
		}
		p.Done++
		after = id
	}
}

// lacking is true for a file f with a chunk that has no vector of the
// embedder named by the one argument.
const lacking = `SELECT 1 FROM rag_chunks c WHERE c.file_id = f.id AND NOT ` + hasVector

// reembedFile stores t's vectors of a file's chunks that lack them, a batch
// per transaction, so an interrupted file keeps its finished batches.
func (ix *Index) reembedFile(ctx context.Context, t *embedding, fileID int64) error {
	for {
		ids, texts, err := ix.chunksLacking(ctx, fileID, 0, t.name)
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			return nil
		}
		vecs, _, err := ix.embedWith(ctx, t, texts)
		if err != nil {
			return err
		}
		// Written even if ctx ends now: the vectors are made, and keeping
		// them is what makes the next Reembed redo nothing.
		wctx := context.WithoutCancel(ctx)
		tx, err := ix.db.BeginTx(wctx, nil)
		if err != nil {
			return err
		}
		if err := noteDims(wctx, tx, t.name, len(vecs[0])); err != nil {
			tx.Rollback()
			return err
		}
		vs := make([]vecindex.Vector, len(vecs))
		for i, v := range vecs {
			vs[i] = vecindex.Vector{ID: ids[i], Embedding: v}
		}
		if err := ix.putVectors(wctx, tx, t.name, vs); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
	}
}

// chunksLacking reads, in id order past after, up to batchChunks chunks of
// a file that have no vector of the embedder named name.
func (ix *Index) chunksLacking(ctx context.Context, fileID, after int64, name string) (ids []int64, texts []string, err error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT c.id, c.text FROM rag_chunks c WHERE c.file_id = ? AND c.id > ?
		AND NOT `+hasVector+` ORDER BY c.id LIMIT ?`,
		fileID, after, name, batchChunks)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var text string
		if err := rows.Scan(&id, &text); err != nil {
			return nil, nil, err
		}
		ids, texts = append(ids, id), append(texts, text)
	}
	return ids, texts, rows.Err()
}

// adopt makes t the active embedder, under the pass token: the old
// embedder's vectors are deleted, and a file whose embedding failed under
// the old embedder but now has every vector is done. t's vectors, complete
// (no chunk lacks one), load on the first search that ranks by vector
// after the swap, as an active embedder's do after Open; a search that
// read the old embedder before the swap ranks by the old one's alone.
func (ix *Index) adopt(ctx context.Context, t *embedding) error {
	if err := ix.readySketch(ctx, t); err != nil {
		return err
	}
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := setActive(ctx, tx, t.name); err != nil {
		return err
	}
	for _, q := range []string{
		`DELETE FROM rag_vector_blocks WHERE embedder != ?`,
		`DELETE FROM rag_embedders WHERE name != ?`,
		`UPDATE rag_files SET status = 'done', reason = '' WHERE status = 'failed' AND reason LIKE 'could not make its vectors%'
			AND EXISTS (SELECT 1 FROM rag_chunks c WHERE c.file_id = rag_files.id) AND NOT EXISTS (` + lackingOf("rag_files") + `)`,
	} {
		if _, err := tx.ExecContext(ctx, q, t.name); err != nil {
			return err
		}
	}
	if err := bumpCorpus(ctx, tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	ix.corpus.Add(1)
	ix.dfs.reset()
	ix.active.Store(t)
	ix.target.CompareAndSwap(t, nil)
	return nil
}

func lackingOf(table string) string {
	return `SELECT 1 FROM rag_chunks c WHERE c.file_id = ` + table + `.id AND NOT ` + hasVector1
}
