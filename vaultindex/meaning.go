package vaultindex

// Meaning: every note's chunks (cut as the documents' are, rag/chunk) get
// the embedder's vectors in vault_vectors, beside the documents' in the
// same database, and Search fuses them with the words by RRF, as
// search_docs fuses a document's.
//
// Kept current by one goroutine per index (embedLoop), woken by every
// commit: a note whose vectors were not made from its current text (its
// vec_hash is not the embedder's name and its hash) has its chunks cut
// again, and only chunks whose text is new are embedded; the others keep
// their vectors. A note that goes, or stops being a readable note, drops
// its vectors in the commit that says so. The vectors are held in memory
// (internal/vecindex) only once a search asks for meaning; until then
// nothing is loaded, and writes go to SQLite alone.
//
// Ordering: the loop's transaction and its change to the in-memory
// vectors are one step under meaning.mu, as are a commit's drops, so the
// memory never keeps a vector the table dropped.

import (
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"quire/internal/sqlschema"
	"quire/internal/vecindex"
	"quire/rag"
	"quire/rag/chunk"
	"quire/rag/parse"
)

// Embedder turns texts into vectors, one per text, in order (rag.Embedder's
// shape, so the documents' embedder serves the notes). Name says which
// model made them: vectors are only compared under the same name.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	Name() string
}

// queryEmbedder is implemented by an embedder whose model embeds a query
// otherwise than a text (rag.QueryEmbedder).
type queryEmbedder interface {
	EmbedQuery(ctx context.Context, query string) ([]float32, error)
}

// DefaultMeaningFloor is the least cosine similarity for a note to be
// found by meaning alone: the documents' default for a model that was not
// measured (rag's Calibration), so a query with no matching word finds
// nothing far from it.
const DefaultMeaningFloor = 0.6

// WithMeaningFloor sets the least similarity the meaning arm counts.
func WithMeaningFloor(f float64) Option { return func(c *config) { c.floor = &f } }

// WithEmbedProgress is told how many notes have vectors of their current
// text, of how many notes; from the embedding goroutine, it must not block.
func WithEmbedProgress(f func(done, total int)) Option {
	return func(c *config) { c.embedProgress = f }
}

const (
	chunkBytes  = 1500 // the documents' chunk size (rag's default)
	embedNotes  = 32   // notes read per round of the loop
	embedBatch  = 32   // texts per call of the embedder
	maxVecChunk = 64   // chunks a note gets vectors for; the rest is found by words
)

// meaning is the index's vector side; zero until UseMeaning.
type meaning struct {
	mu   sync.Mutex
	emb  Embedder
	off  string          // why there is no meaning search ("" when there is)
	told bool            // off was said once (MeaningNotice)
	vecs *vecindex.Index // loaded by the first search that ranks by meaning
	// wake tells the loop a commit happened; set once, read without mu
	// so a commit never waits for a round of the loop
	wake        atomic.Pointer[chan struct{}]
	err         error // the last embedding error, until a round succeeds
	done, total int   // notes with current vectors, of notes
}

// Meaning is what the meaning search can do now.
type Meaning struct {
	On       bool   `json:"on"`
	Embedder string `json:"embedder,omitempty"`
	Done     int    `json:"done"`  // notes with vectors of their current text
	Total    int    `json:"total"` // notes
	Reason   string `json:"reason,omitempty"`
}

// Meaning says whether notes are searched by meaning, and how far their
// vectors have come.
func (x *Index) Meaning() Meaning {
	m := &x.meaning
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.emb == nil {
		return Meaning{Reason: m.off}
	}
	out := Meaning{On: true, Embedder: m.emb.Name(), Done: m.done, Total: max(m.total, x.Count())}
	if m.err != nil {
		out.Reason = "the embedder failed: " + m.err.Error()
	}
	return out
}

// MeaningNotice is the sentence for the user about the meaning search: why
// it is off, the first time only; how far the vectors are while notes
// still wait for theirs; else "".
func (x *Index) MeaningNotice() string {
	m := &x.meaning
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.emb == nil && m.off != "" && !m.told:
		m.told = true
		return "Notes are found by their words only: " + m.off + "."
	case m.emb != nil && m.err != nil:
		return fmt.Sprintf("Meaning search covers %d of %d notes; the embedder failed (%v) and will be tried again at the next change.", m.done, max(m.total, x.Count()), m.err)
	case m.emb != nil && m.done < max(m.total, x.Count()):
		return fmt.Sprintf("Meaning search covers %d of %d notes so far; the rest are being embedded.", m.done, max(m.total, x.Count()))
	}
	return ""
}

// UseMeaning gives the index the documents' embedder: every note's chunks
// get vectors, kept current by the commits, and Search fuses words and
// meaning. With e nil the notes are searched by words alone, and why (a
// sentence, no final period) is said once by MeaningNotice.
func (x *Index) UseMeaning(e Embedder, why string) {
	m := &x.meaning
	m.mu.Lock()
	if m.emb != nil || x.ctx.Err() != nil {
		m.mu.Unlock()
		return
	}
	if e == nil {
		m.off = why
		m.mu.Unlock()
		return
	}
	m.emb = e
	wake := make(chan struct{}, 1)
	m.wake.Store(&wake)
	m.mu.Unlock()
	x.bg.Add(1)
	go func() {
		defer x.bg.Done()
		x.embedLoop()
	}()
	x.wakeEmbed()
}

// wakeEmbed tells the loop that notes may need vectors.
func (x *Index) wakeEmbed() {
	wake := x.meaning.wake.Load()
	if wake == nil {
		return
	}
	select {
	case *wake <- struct{}{}:
	default:
	}
}

func (x *Index) embedLoop() {
	m := &x.meaning
	for {
		select {
		case <-x.ctx.Done():
			return
		case <-*m.wake.Load():
		}
		x.countEmbedded(x.ctx) // from the table: what earlier runs embedded counts
		for {
			n, err := x.embedRound(x.ctx)
			m.mu.Lock()
			m.err = err
			m.mu.Unlock()
			if err != nil || n == 0 {
				x.countEmbedded(x.ctx)
				break // an error waits for the next change to try again
			}
		}
	}
}

// countEmbedded refreshes the progress counts and tells WithEmbedProgress.
func (x *Index) countEmbedded(ctx context.Context) {
	m := &x.meaning
	var done, total int
	err := x.db.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(vec_hash = ? || hash), 0) FROM vault_notes WHERE root = ? AND kind = ?`,
		m.emb.Name()+"\x00", x.root, kindNote).Scan(&total, &done)
	if err != nil {
		return
	}
	m.mu.Lock()
	m.done, m.total = done, total
	m.mu.Unlock()
	if x.cfg.embedProgress != nil {
		x.cfg.embedProgress(done, total)
	}
}

// piece is one chunk of a note on its way to a vector.
type piece struct {
	hash string
	line int
	text string
	vec  []float32
}

// pending is one note whose vectors are not of its current text.
type pending struct {
	id     int64
	hash   string
	pieces []piece
	keep   map[string]int64 // chunk hash → the id of its vector, kept
	old    []int64          // vectors of chunks no longer in the note
}

// embedRound gives vectors to up to embedNotes notes that need them and
// reports how many it did.
func (x *Index) embedRound(ctx context.Context) (int, error) {
	m := &x.meaning
	name := m.emb.Name()
	rows, err := x.db.QueryContext(ctx, `SELECT n.id, n.hash, n.title, f.body FROM vault_notes n JOIN vault_fts f ON f.rowid = n.id
		WHERE n.root = ? AND n.kind = ? AND n.vec_hash != ? || n.hash ORDER BY n.id LIMIT ?`, x.root, kindNote, name+"\x00", embedNotes)
	if err != nil {
		return 0, err
	}
	var ps []*pending
	for rows.Next() {
		var p pending
		var title, body string
		if err := rows.Scan(&p.id, &p.hash, &title, &body); err != nil {
			rows.Close()
			return 0, err
		}
		p.pieces = pieces(title, body)
		ps = append(ps, &p)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(ps) == 0 {
		return 0, err
	}
	var todo []*piece
	for _, p := range ps {
		p.keep = map[string]int64{}
		stored, err := x.db.QueryContext(ctx, `SELECT id, hash FROM vault_vectors WHERE note_id = ? AND embedder = ?`, p.id, name)
		if err != nil {
			return 0, err
		}
		want := map[string]bool{}
		for _, pc := range p.pieces {
			want[pc.hash] = true
		}
		for stored.Next() {
			var id int64
			var h string
			if err := stored.Scan(&id, &h); err != nil {
				stored.Close()
				return 0, err
			}
			if _, dup := p.keep[h]; want[h] && !dup {
				p.keep[h] = id
			} else {
				p.old = append(p.old, id)
			}
		}
		stored.Close()
		for i := range p.pieces {
			if _, ok := p.keep[p.pieces[i].hash]; !ok {
				todo = append(todo, &p.pieces[i])
			}
		}
	}
	for i := 0; i < len(todo); i += embedBatch {
		part := todo[i:min(i+embedBatch, len(todo))]
		texts := make([]string, len(part))
		for j, pc := range part {
			texts[j] = pc.text
		}
		vs, err := m.emb.Embed(ctx, texts)
		if err != nil {
			return 0, fmt.Errorf("embed the notes' text: %w", err)
		}
		if len(vs) != len(part) {
			return 0, fmt.Errorf("the embedder returned %d vectors for %d texts", len(vs), len(part))
		}
		for j, v := range vs {
			u, err := vecindex.Unit(v)
			if err != nil {
				return 0, err
			}
			part[j].vec = u
		}
	}
	return len(ps), x.storeVectors(ctx, name, ps)
}

// storeVectors writes the notes' vectors in one transaction, each note
// only if its text is still the one embedded, and applies the same to
// the vectors in memory.
func (x *Index) storeVectors(ctx context.Context, name string, ps []*pending) (err error) {
	defer func() { err = sqlschema.NoSpace(err) }()
	m := &x.meaning
	m.mu.Lock()
	defer m.mu.Unlock()
	tx, err := x.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var drop []int64
	var add []vecindex.Vector
	for _, p := range ps {
		var hash string
		err := tx.QueryRowContext(ctx, `SELECT hash FROM vault_notes WHERE id = ? AND kind = ?`, p.id, kindNote).Scan(&hash)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && hash != p.hash) {
			continue // changed or gone meanwhile: the next round reads it again
		}
		if err != nil {
			return err
		}
		for _, id := range p.old {
			if _, err := tx.ExecContext(ctx, `DELETE FROM vault_vectors WHERE id = ?`, id); err != nil {
				return err
			}
			drop = append(drop, id)
		}
		for _, pc := range p.pieces {
			if id, ok := p.keep[pc.hash]; ok {
				if _, err := tx.ExecContext(ctx, `UPDATE vault_vectors SET line = ? WHERE id = ?`, pc.line, id); err != nil {
					return err
				}
				continue
			}
			var id int64
			if err := tx.QueryRowContext(ctx, `INSERT INTO vault_vectors(note_id, embedder, hash, line, vec) VALUES (?, ?, ?, ?, ?) RETURNING id`,
				p.id, name, pc.hash, pc.line, vecindex.Encode(pc.vec)).Scan(&id); err != nil {
				return err
			}
			add = append(add, vecindex.Vector{ID: id, Embedding: pc.vec})
		}
		if _, err := tx.ExecContext(ctx, `UPDATE vault_notes SET vec_hash = ? WHERE id = ?`, name+"\x00"+p.hash, p.id); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if m.vecs != nil {
		m.vecs.Remove(drop)
		if err := m.vecs.Add(add); err != nil {
			m.vecs = nil // another length under this name: loaded again from the table, the truth
		}
	}
	m.done += len(ps)
	return nil
}

// dropVectors forgets vectors a commit deleted (meaning.mu taken here).
func (x *Index) dropVectors(ids []int64) {
	if len(ids) == 0 {
		return
	}
	m := &x.meaning
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.vecs != nil {
		m.vecs.Remove(ids)
	}
}

// pieces cuts a note's text into chunks as the documents are cut (its
// front matter left out, its lines still counted), each with the note's
// title first so a chunk says what it belongs to.
func pieces(title, body string) []piece {
	body = blankFrontMatter(body)
	var out []piece
	split := chunk.New(chunkBytes, func(c chunk.Chunk) error {
		text := strings.TrimSpace(c.Text)
		if text == "" {
			return nil
		}
		if title != "" {
			text = title + "\n" + text
		}
		sum := sha256.Sum256([]byte(text))
		out = append(out, piece{hash: hex.EncodeToString(sum[:16]), line: max(c.Start, 1), text: text})
		return nil
	})
	split.Limit(maxVecChunk)
	if err := parse.ReadMarkdown(strings.NewReader(body), split.Add); err == nil {
		split.Close()
	}
	return out
}

// blankFrontMatter replaces a leading YAML block by empty lines, so line
// numbers stay those of the note.
func blankFrontMatter(s string) string {
	if !strings.HasPrefix(s, "---\n") && !strings.HasPrefix(s, "---\r\n") {
		return s
	}
	lines := strings.SplitAfter(s, "\n")
	for i := 1; i < len(lines); i++ {
		if strings.TrimRight(lines[i], "\r\n") == "---" {
			return strings.Repeat("\n", i+1) + strings.Join(lines[i+1:], "")
		}
	}
	return s
}

// loadedVectors gives the vectors in memory, loading them from the table
// the first time (meaning.mu held by the caller).
func (x *Index) loadedVectors(ctx context.Context) (*vecindex.Index, error) {
	m := &x.meaning
	if m.vecs != nil {
		return m.vecs, nil
	}
	rows, err := x.db.QueryContext(ctx, `SELECT v.id, v.vec FROM vault_vectors v JOIN vault_notes n ON n.id = v.note_id
		WHERE n.root = ? AND v.embedder = ?`, x.root, m.emb.Name())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	vecs := vecindex.New()
	var batch []vecindex.Vector
	for rows.Next() {
		var id int64
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			return nil, err
		}
		v, err := vecindex.Decode(b)
		if err != nil {
			continue
		}
		batch = append(batch, vecindex.Vector{ID: id, Embedding: v})
		if len(batch) == 1024 {
			if err := vecs.Add(batch); err != nil {
				return nil, err
			}
			batch = batch[:0]
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if err := vecs.Add(batch); err != nil {
		return nil, err
	}
	m.vecs = vecs
	return vecs, nil
}

// near is a note found by meaning: its best chunk.
type near struct {
	id         int64 // the note
	line       int
	similarity float32
}

// nearest ranks notes by their best chunk's similarity to q (at or above
// the floor), best first, at most k notes; nil when there is no meaning
// search.
func (x *Index) nearest(ctx context.Context, q []float32, k int) ([]near, error) {
	m := &x.meaning
	m.mu.Lock()
	vecs, err := x.loadedVectors(ctx)
	m.mu.Unlock()
	if err != nil {
		return nil, err
	}
	hits, err := vecs.Nearest(q, k*4)
	if err != nil {
		return nil, err
	}
	floor := float32(x.floor())
	var ids []int64
	sim := map[int64]float32{}
	for _, h := range hits {
		if h.Similarity >= floor {
			ids = append(ids, h.ID)
			sim[h.ID] = h.Similarity
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := x.db.QueryContext(ctx, `SELECT v.id, v.note_id, v.line FROM vault_vectors v JOIN vault_notes n ON n.id = v.note_id
		WHERE n.root = ? AND v.id IN (`+placeholders(len(ids))+`)`, append([]any{x.root}, int64s(ids)...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	best := map[int64]near{}
	for rows.Next() {
		var vid int64
		var n near
		if err := rows.Scan(&vid, &n.id, &n.line); err != nil {
			return nil, err
		}
		n.similarity = sim[vid]
		if b, ok := best[n.id]; !ok || n.similarity > b.similarity {
			best[n.id] = n
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]near, 0, len(best))
	for _, n := range best {
		out = append(out, n)
	}
	sortNear(out)
	if len(out) > k {
		out = out[:k]
	}
	return out, nil
}

// sortNear orders by similarity, then by lower id, so equal scores rank
// deterministically.
func sortNear(ns []near) {
	slices.SortFunc(ns, func(a, b near) int {
		if c := cmp.Compare(b.similarity, a.similarity); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
}

func (x *Index) floor() float64 {
	if x.cfg.floor != nil {
		return *x.cfg.floor
	}
	return DefaultMeaningFloor
}

// queryEmbedTimeout bounds embedding a query: a stalled model server
// must not hold a search by words (issue 30's lesson for the documents).
const queryEmbedTimeout = 2 * time.Second

// queryVector embeds a search's text; nil when there is no meaning search,
// or while the embedder fails (each search then asks the loop to try
// the notes again, and is answered by words).
func (x *Index) queryVector(ctx context.Context, text string) ([]float32, error) {
	m := &x.meaning
	m.mu.Lock()
	emb, failing := m.emb, m.err != nil
	m.mu.Unlock()
	if emb == nil {
		return nil, nil
	}
	if failing {
		x.wakeEmbed()
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, queryEmbedTimeout)
	defer cancel()
	var v []float32
	if qe, ok := emb.(queryEmbedder); ok {
		var err error
		if v, err = qe.EmbedQuery(ctx, text); err != nil {
			return nil, err
		}
	} else {
		vs, err := emb.Embed(ctx, []string{text})
		if err != nil {
			return nil, err
		}
		if len(vs) != 1 {
			return nil, fmt.Errorf("the embedder returned %d vectors for one query", len(vs))
		}
		v = vs[0]
	}
	return vecindex.Unit(v)
}

// noteVector is the mean of a note's chunk vectors, made unit: what the
// note as a whole means, for Related.
func (x *Index) noteVector(ctx context.Context, noteID int64) ([]float32, error) {
	m := &x.meaning
	m.mu.Lock()
	emb := m.emb
	m.mu.Unlock()
	if emb == nil {
		return nil, nil
	}
	rows, err := x.db.QueryContext(ctx, `SELECT vec FROM vault_vectors WHERE note_id = ? AND embedder = ?`, noteID, emb.Name())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var sum []float64
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return nil, err
		}
		v, err := vecindex.Decode(b)
		if err != nil {
			continue
		}
		if sum == nil {
			sum = make([]float64, len(v))
		}
		if len(v) != len(sum) {
			continue
		}
		for i, f := range v {
			sum[i] += float64(f)
		}
	}
	if err := rows.Err(); err != nil || sum == nil {
		return nil, err
	}
	out := make([]float32, len(sum))
	for i, f := range sum {
		out[i] = float32(f)
	}
	if u, err := vecindex.Unit(out); err == nil {
		return u, nil
	}
	return nil, nil
}

// fuse is the documents' fusion (rag.RRF, k 60): ties to the words.
func fuse(lexical, meaning []int64) []int64 { return rag.RRF(60, lexical, meaning) }

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

func int64s(ids []int64) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}
