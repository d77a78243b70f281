package memory

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"quire/internal/sqlschema"
	"quire/internal/vecindex"
	"quire/kernel/event"
)

// isMemory reports whether an event writes memory.
func isMemory(t event.Type) bool {
	switch t {
	case event.MemoryRemember, event.MemoryEdit, event.MemoryForget, event.MemoryReview:
		return true
	}
	return false
}

// CatchUp applies the memory events the index has not seen: those of each
// session after the last seq applied from it. Rows of sessions that no
// longer exist are dropped (a deleted conversation takes what was learnt in
// it along). It runs at Open and may run any time.
func (s *Store) CatchUp(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sessions, err := s.log.Sessions(ctx)
	if err != nil {
		return fmt.Errorf("memory: catch up: %w", err)
	}
	applied, err := s.appliedSeqs(ctx)
	if err != nil {
		return err
	}
	// Oldest session first, so a rebuild inserts rows in a stable order.
	slices.SortFunc(sessions, func(a, b event.SessionSummary) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	live := map[string]bool{}
	for _, sess := range sessions {
		live[sess.ID] = true
		from, seen := applied[sess.ID]
		if seen && from >= sess.LastSeq {
			continue
		}
		start := int64(0)
		if seen {
			start = from + 1
		}
		evs, err := s.log.Events(ctx, sess.ID, start)
		if err != nil {
			return fmt.Errorf("memory: catch up session %s: %w", sess.ID, err)
		}
		if err := s.applyEvents(ctx, sess.ID, evs); err != nil {
			return err
		}
	}
	for id := range applied {
		if !live[id] {
			if err := s.dropSession(ctx, id); err != nil {
				return err
			}
		}
	}
	return s.embedMissing(ctx)
}

func (s *Store) appliedSeqs(ctx context.Context) (map[string]int64, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT session, seq FROM memory_applied`)
	if err != nil {
		return nil, fmt.Errorf("memory: %w", err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var id string
		var seq int64
		if err := rows.Scan(&id, &seq); err != nil {
			return nil, fmt.Errorf("memory: %w", err)
		}
		out[id] = seq
	}
	return out, rows.Err()
}

func (s *Store) dropSession(ctx context.Context, session string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	defer tx.Rollback()
	ids, err := rowids(ctx, tx, `SELECT rowid FROM memory_items WHERE session = ?`, session)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := deleteRow(ctx, tx, id); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM memory_applied WHERE session = ?`, session); err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	s.vecs.Load().Remove(ids)
	return nil
}

// applyEvents applies a session's events (in seq order) to the index in one
// transaction and records the last seq seen, so an event is applied once.
// Events that are not memory writes only move the mark.
//
// A write the disk had no room for is event.ErrNoSpace (sqlschema.NoSpace).
func (s *Store) applyEvents(ctx context.Context, session string, evs []event.Event) (err error) {
	defer func() { err = sqlschema.NoSpace(err) }()
	if len(evs) == 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	defer tx.Rollback()
	var mark int64 = -1
	if err := tx.QueryRowContext(ctx, `SELECT seq FROM memory_applied WHERE session = ?`, session).Scan(&mark); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("memory: %w", err)
	}
	var dropped []int64
	last := mark
	for _, e := range evs {
		if e.Seq <= mark {
			continue
		}
		last = max(last, e.Seq)
		if !isMemory(e.Type) {
			continue
		}
		gone, err := applyOne(ctx, tx, e)
		if err != nil {
			return fmt.Errorf("memory: apply event %d of session %s: %w", e.Seq, session, err)
		}
		if gone != 0 {
			dropped = append(dropped, gone)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO memory_applied(session, seq) VALUES (?, ?)
		ON CONFLICT(session) DO UPDATE SET seq = excluded.seq`, session, last); err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	s.vecs.Load().Remove(dropped)
	return nil
}

// applyOne applies one memory event; it returns the rowid of an item it
// removed (or whose text changed), whose vector must go.
func applyOne(ctx context.Context, tx *sql.Tx, e event.Event) (int64, error) {
	v, err := event.Decode(e)
	if err != nil {
		return 0, err
	}
	at := e.Time.UnixNano()
	switch p := v.(type) {
	case event.MemoryRememberPayload:
		status, approved := Kept, p.Approved
		if p.Pending {
			status, approved = Pending, ""
		} else if p.Kind == Working && (p.Origin == ByAuto || p.Origin == ByCompaction) {
			// Quire's own working note, also when written before OwnNote
			// was (as "unasked", or with nothing recorded).
			approved = OwnNote
		} else if approved == "" {
			// Written before Quire recorded it: nobody was asked.
			approved = WithoutAsking
		}
		sources := e.Sources
		if sources == nil {
			sources = []int64{}
		}
		src, _ := json.Marshal(sources)
		evs, _ := json.Marshal([]int64{e.Seq})
		_, err := tx.ExecContext(ctx, `INSERT INTO memory_items(id, session, kind, note, text, status, origin, approved, seq, events, sources, created_ns, updated_ns)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING`,
			p.ID, e.Session, p.Kind, p.Note, p.Text, status, p.Origin, approved, e.Seq, string(evs), string(src), at, at)
		return 0, err
	case event.MemoryEditPayload:
		rowid, events, err := rowOf(ctx, tx, p.ID)
		if err != nil || rowid == 0 {
			return 0, err
		}
		// The user wrote the text it now has (only the panel edits).
		_, err = tx.ExecContext(ctx, `UPDATE memory_items SET text = ?, approved = CASE status WHEN 'pending' THEN '' ELSE ? END,
			events = ?, updated_ns = ? WHERE rowid = ?`, p.Text, ByUserText, withSeq(events, e.Seq), at, rowid)
		if err != nil {
			return 0, err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM memory_vectors WHERE item = ?`, rowid)
		return rowid, err
	case event.MemoryForgetPayload:
		rowid, _, err := rowOf(ctx, tx, p.ID)
		if err != nil || rowid == 0 {
			return 0, err
		}
		return rowid, deleteRow(ctx, tx, rowid)
	case event.MemoryReviewPayload:
		rowid, events, err := rowOf(ctx, tx, p.ID)
		if err != nil || rowid == 0 {
			return 0, err
		}
		if !p.Approved {
			return rowid, deleteRow(ctx, tx, rowid)
		}
		_, err = tx.ExecContext(ctx, `UPDATE memory_items SET status = ?, approved = ?, events = ?, updated_ns = ? WHERE rowid = ?`,
			Kept, InPanel, withSeq(events, e.Seq), at, rowid)
		return 0, err
	}
	return 0, fmt.Errorf("not a memory payload: %T", v)
}

// rowOf finds an item's rowid and event list; 0 when it is gone (an event
// about a forgotten item changes nothing).
func rowOf(ctx context.Context, tx *sql.Tx, id string) (int64, string, error) {
	var rowid int64
	var events string
	err := tx.QueryRowContext(ctx, `SELECT rowid, events FROM memory_items WHERE id = ?`, id).Scan(&rowid, &events)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", nil
	}
	return rowid, events, err
}

func withSeq(events string, seq int64) string {
	var seqs []int64
	_ = json.Unmarshal([]byte(events), &seqs)
	if !slices.Contains(seqs, seq) {
		seqs = append(seqs, seq)
	}
	b, _ := json.Marshal(seqs)
	return string(b)
}

func deleteRow(ctx context.Context, tx *sql.Tx, rowid int64) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM memory_vectors WHERE item = ?`, rowid); err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM memory_items WHERE rowid = ?`, rowid); err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	return nil
}

func rowids(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, query string, args ...any) ([]int64, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("memory: %w", err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("memory: %w", err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// Rebuild drops the whole index and builds it again from the log.
func (s *Store) Rebuild(ctx context.Context) error {
	s.mu.Lock()
	_, err := s.db.ExecContext(ctx, `DELETE FROM memory_items; DELETE FROM memory_vectors; DELETE FROM memory_applied;`)
	if err == nil {
		s.vecs.Store(vecindex.New())
	}
	s.mu.Unlock()
	if err != nil {
		return fmt.Errorf("memory: rebuild: %w", err)
	}
	return s.CatchUp(ctx)
}

// Vectors: long-term items only (working memory is listed whole, never
// searched), stored in memory_vectors per embedder and loaded into the
// shared vector index (internal/vecindex) by rowid; the database stays the
// truth.

func (s *Store) loadVectors(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `SELECT item, vec FROM memory_vectors WHERE embedder = ?`, s.emb.Name())
	if err != nil {
		return fmt.Errorf("memory: load vectors: %w", err)
	}
	defer rows.Close()
	var docs []vecindex.Vector
	for rows.Next() {
		var id int64
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			return fmt.Errorf("memory: load vectors: %w", err)
		}
		v, err := vecindex.Decode(b)
		if err != nil {
			return fmt.Errorf("memory: load vectors: %w", err)
		}
		docs = append(docs, vecindex.Vector{ID: id, Embedding: v})
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("memory: load vectors: %w", err)
	}
	return s.addVectors(docs)
}

func (s *Store) addVectors(vs []vecindex.Vector) error {
	if err := s.vecs.Load().Add(vs); err != nil {
		return fmt.Errorf("memory: vector index: %w", err)
	}
	return nil
}

// embedBatch is how many texts go to the embedder per call.
const embedBatch = 64

// embedMissing embeds the long-term items that have no vector of the
// current embedder. A failing embedder leaves them to lexical search and
// to the next try.
func (s *Store) embedMissing(ctx context.Context) error {
	for {
		rows, err := s.db.QueryContext(ctx, `SELECT rowid, text FROM memory_items
			WHERE kind != 'working' AND rowid NOT IN (SELECT item FROM memory_vectors WHERE embedder = ?) LIMIT ?`, s.emb.Name(), embedBatch)
		if err != nil {
			return fmt.Errorf("memory: %w", err)
		}
		var ids []int64
		var texts []string
		for rows.Next() {
			var id int64
			var text string
			if err := rows.Scan(&id, &text); err != nil {
				rows.Close()
				return fmt.Errorf("memory: %w", err)
			}
			ids, texts = append(ids, id), append(texts, text)
		}
		rows.Close()
		if len(ids) == 0 {
			return nil
		}
		vecs, err := s.emb.Embed(ctx, texts)
		if err == nil && len(vecs) != len(texts) {
			err = fmt.Errorf("the embedder returned %d vectors for %d texts", len(vecs), len(texts))
		}
		if err != nil {
			s.logger.Warn("memory: embedding failed; lexical search only until it works", "err", err)
			return nil
		}
		if err := s.storeVectors(ctx, ids, vecs); err != nil {
			return err
		}
	}
}

func (s *Store) storeVectors(ctx context.Context, ids []int64, vecs [][]float32) (err error) {
	defer func() { err = sqlschema.NoSpace(err) }() // as applyEvents
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	defer tx.Rollback()
	docs := make([]vecindex.Vector, 0, len(ids))
	for i, id := range ids {
		v, err := vecindex.Unit(vecs[i])
		if err != nil {
			return fmt.Errorf("memory: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO memory_vectors(item, embedder, vec) VALUES (?, ?, ?)
			ON CONFLICT(item, embedder) DO UPDATE SET vec = excluded.vec`, id, s.emb.Name(), vecindex.Encode(v)); err != nil {
			return fmt.Errorf("memory: %w", err)
		}
		docs = append(docs, vecindex.Vector{ID: id, Embedding: v})
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	return s.addVectors(docs)
}
