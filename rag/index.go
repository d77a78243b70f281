package rag

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"quire/internal/sqlschema"
	"quire/internal/vecindex"
	"quire/rag/hashvec"
)

// Embedder turns texts into vectors, one per text, in order. Name says
// which model made them: vectors are only compared under the same name,
// and a change of name makes the index embed its documents again.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	Name() string
}

// QueryEmbedder may be implemented by an Embedder whose model embeds
// queries differently from documents (nomic-embed-text wants a
// "search_query: " prefix); without it, queries go through Embed.
type QueryEmbedder interface {
	EmbedQuery(ctx context.Context, query string) ([]float32, error)
}

// Progress is how an Index pass is going. Counts are files of this pass.
type Progress struct {
	Phase       string        // "scanning", "indexing", "done"
	Total       int           // files to parse or embed in this pass
	Done        int           // of those, finished (indexed or failed)
	Failed      int           // of those, failed
	Skipped     int           // new or renamed files Quire does not read, found by this pass (not in Total)
	Refused     int           // new links out of their folder, found by this pass (failed, not in Total)
	CurrentFile string        // the file most recently started
	ETA         time.Duration // estimated time left; 0 when unknown
}

// Document is the state of one file in the index.
type Document struct {
	Path    string
	Root    string // the watched folder or file it was found under
	Format  string // markdown, text, html, pdf; empty if refused before reading
	Status  string // Queued, Parsed, Embedded, Done, Failed or Skipped
	Reason  string // why it failed or was skipped
	Chunks  int
	Size    int64
	ModTime time.Time
	Updated time.Time
}

// Hit is one search result with its citation.
type Hit struct {
	Path        string   // absolute path of the file
	Name        string   // the path shown to people: relative to the parent of its watched root
	HeadingPath []string // enclosing headings, outermost first (PDF: "Page N")
	StartLine   int      // first and last line of the chunk in the file (PDF: in the page's text)
	EndLine     int
	Snippet     string  // a passage of the chunk around the query's words
	Score       float64 // fused Reciprocal Rank Fusion score
	LexicalRank int     // 1-based rank in the lexical list; 0 = not found by it
	VectorRank  int     // 1-based rank in the vector list; 0 = not found by it
	// Matched are the query's words found in the passage, in the query's
	// order; a word matches its inflections ("budgets" for "budget"), as
	// the snippet marks them.
	Matched []string
	// Similarity is the cosine similarity of the passage to the query under
	// an embedding model (0 when the vector arm did not rank it, and always
	// with the built-in embedder, whose similarity is no meaning).
	Similarity float64

	file         int64  // rag_files.id, to tell passages of one file apart
	ordLo, ordHi int    // the chunks' places in the file (rag_chunks.ord), first and last
	text         string // the chunk's text, for a merged passage's snippet
}

// Option changes how an Index works.
type Option func(*options)

type options struct {
	rrfK         float64
	chunkSize    int
	depth        int
	batch        int
	workers      int
	snippet      int
	lexWeights   [2]float64
	vecWeight    float64                // in ModeHybrid; 0 = the default for the embedder
	calibrations map[string]Calibration // by embedder name; absent = its default (defaultCalibration)
	rules        rules                  // the arrangement of ranked passages (test knob: all on)
	maxDF        float64                // lexical terms in more than this share of chunks are left out; 0 = none
	pruneFloor   int                    // ... and in more than this many chunks
	progress     func(Progress)
	offline      hashvec.Config
	afterParse   func(path string) // test hook: called after a file is parsed, before its last batch is written
	afterCommit  func()            // test hook: called after each transaction of a pass
	txRows       int               // most rows written in one transaction of a pass
	readOnly     bool              // WithReadOnly
	queryWait    time.Duration     // bound on a query's vector from a model; 0: QueryEmbedWait (tests shorten it)
	keepStored   bool              // WithKeepStored
	embedders    func(name string) Embedder
	afterReembed func(path string) // test hook: called after each document a switch re-embedded
	limits       Limits
}

// Limits bound what one document may cost; a document over any of them
// is failed with a reason that names the setting, and is not read again
// until it changes. A field that is not positive takes its default, so a
// caller that leaves one out is still bounded.
type Limits struct {
	Bytes  int64 // size of the file
	Pages  int   // pages of a PDF
	Text   int64 // bytes of text extracted
	Chunks int   // chunks stored
}

// DefaultLimits are the bounds of an Index opened without WithLimits: the
// same as config's defaults (a test holds them equal), so a caller that
// forgets the option is still bounded.
func DefaultLimits() Limits {
	return Limits{Bytes: 64 << 20, Pages: 2000, Text: 16 << 20, Chunks: 20000}
}

// WithLimits sets the bounds on each document (the settings'
// documents.* fields). Default DefaultLimits.
func WithLimits(l Limits) Option {
	return func(o *options) {
		d := DefaultLimits()
		o.limits = Limits{Bytes: cmp.Or(max(l.Bytes, 0), d.Bytes), Pages: cmp.Or(max(l.Pages, 0), d.Pages),
			Text: cmp.Or(max(l.Text, 0), d.Text), Chunks: cmp.Or(max(l.Chunks, 0), d.Chunks)}
	}
}

// WithRRFK sets k in Reciprocal Rank Fusion, score = Σ 1/(k + rank). Default 60.
func WithRRFK(k float64) Option { return func(o *options) { o.rrfK = k } }

// WithChunkSize caps chunks at n bytes. Default 1500 (about 350 tokens,
// within any embedding model's context).
func WithChunkSize(n int) Option { return func(o *options) { o.chunkSize = n } }

// WithVectorWeight multiplies the vector list's terms in ModeHybrid's
// fusion: score = 1/(k + lexical rank) + w/(k + vector rank). Default 1
// with an embedding model and 0.3 with the built-in offline embedder,
// whose vectors are a weaker lexical signal (docs/BENCHMARKS-NOTEBOOK.md). The
// default ranking's weight is the Calibration's.
func WithVectorWeight(w float64) Option { return func(o *options) { o.vecWeight = w } }

// WithLexicalMaxDF leaves out of the lexical query the words found in
// more than share (0–1) of all chunks (and in more than 500), as long as
// a rarer word remains:
// they add little to bm25 and make FTS5 score nearly every chunk. 0 keeps
// every word. Default 0.2 (on SciFact it changes nDCG@10 by +0.0007 and
// cuts the lexical arm's time at 53k chunks by a third).
func WithLexicalMaxDF(share float64) Option { return func(o *options) { o.maxDF = share } }

// WithDepth sets how many candidates each arm ranks before fusion. Default 100.
func WithDepth(n int) Option { return func(o *options) { o.depth = n } }

// WithEmbedBatch sets how many texts go to the Embedder per call. Default 32.
func WithEmbedBatch(n int) Option { return func(o *options) { o.batch = n } }

// WithWorkers sets how many files are parsed and embedded at once.
// Default: the number of CPUs.
func WithWorkers(n int) Option { return func(o *options) { o.workers = n } }

// WithSnippetLength sets the length of a hit's snippet in bytes. Default 320.
func WithSnippetLength(n int) Option { return func(o *options) { o.snippet = n } }

// WithLexicalWeights sets bm25's column weights for the heading path and
// the text. Default 1, 1.
func WithLexicalWeights(heading, text float64) Option {
	return func(o *options) { o.lexWeights = [2]float64{heading, text} }
}

// WithProgress receives the progress of every pass (as well as the
// function passed to Index), such as one started by Retry.
func WithProgress(fn func(Progress)) Option { return func(o *options) { o.progress = fn } }

// WithOfflineEmbedder sets the configuration of the built-in embedder.
func WithOfflineEmbedder(cfg hashvec.Config) Option { return func(o *options) { o.offline = cfg } }

// WithReadOnly opens the index for searching and listing only, over a
// database opened read-only: Open checks the schema instead of migrating
// it (ErrNoIndex when there are no rag tables) and fixes nothing up, Close
// saves no statistics, and Index, Remove and Retry fail with ErrReadOnly.
func WithReadOnly() Option { return func(o *options) { o.readOnly = true } }

// queryCacheSize is how many query vectors of an embedding model are kept
// (3 MB at 768 dimensions).
const queryCacheSize = 256

// Index is a document index. It is safe for concurrent use.
type Index struct {
	db   *sql.DB
	opts options

	// active is the embedder whose vectors rank searches (its vectors
	// load on the first search that ranks by vector: embedding.vecs);
	// target, when set, is the one a switch is re-embedding for (Reembed).
	// Both change only under the pass token; searches read active once.
	active  atomic.Pointer[embedding]
	target  atomic.Pointer[embedding]
	resolve func(name string) Embedder // WithEmbedders

	run      chan struct{} // a token: one pass at a time
	closing  chan struct{}
	closed   atomic.Bool
	stopOnce sync.Once

	corpus atomic.Int64 // the corpus version the in-memory statistics describe
	// saved is the corpus version the stored statistics describe (-1: none
	// worth storing yet), so an open or close with nothing new writes
	// nothing: marshalling the sketch is most of the cost of Open and Close.
	saved     atomic.Int64
	vectorErr atomic.Pointer[string] // the last failure of the vector arm in Search
	dfs       termStats              // document frequencies of query words, until the next change
	parses    atomic.Int64           // files parsed since Open (for tests)
	stmts     statements             // the pass's prepared statements (stmts.go)
}

// Open prepares the rag tables in db (creating or upgrading them; a newer
// schema is refused) and picks the embedder — emb, or the built-in offline
// embedder when emb is nil. When the index was last complete for another
// embedder that can still be made (WithEmbedders; the offline one always
// can), that one stays in use and emb is the target of a switch (Reembed).
// The stored vectors of the embedder in use are loaded into memory by the
// first search that ranks by vector. Files left mid-way by a crash are
// resumed by the next Index.
func Open(ctx context.Context, db *sql.DB, emb Embedder, opts ...Option) (*Index, error) {
	o := options{rrfK: 60, maxDF: 0.2, pruneFloor: 500, chunkSize: 1500, depth: 100, batch: 32, workers: runtime.GOMAXPROCS(0), snippet: 320,
		lexWeights: [2]float64{1, 1}, offline: hashvec.Default, txRows: 4096, limits: DefaultLimits(),
		rules: rules{merge: true, demote: true, spread: true}}
	for _, opt := range opts {
		opt(&o)
	}
	if o.workers < 1 {
		o.workers = 1
	}
	if o.batch < 1 {
		o.batch = 1
	}
	if o.depth < 1 {
		o.depth = 1
	}
	if o.readOnly {
		if err := checkSchema(ctx, db); err != nil {
			return nil, err
		}
	} else if err := migrate(ctx, db); err != nil {
		return nil, err
	}
	ix := &Index{db: db, opts: o, run: make(chan struct{}, 1), closing: make(chan struct{}), resolve: o.embedders}
	want, err := ix.newEmbedding(emb)
	if err != nil {
		return nil, err
	}
	active, target, changed, err := ix.pick(ctx, want)
	if err != nil {
		return nil, err
	}
	if err := ix.loadDims(ctx, active); err != nil {
		return nil, err
	}
	ix.active.Store(active)
	if target != nil {
		ix.target.Store(target)
	}
	if err := ix.fixUp(ctx, changed); err != nil {
		return nil, err
	}
	return ix, nil
}

// loadBatch is how many stored vectors are decoded before they are added.
const loadBatch = 1024

// vectors is e's vector index, loaded from SQLite on first use (and the
// offline embedder's statistics, which its query vector needs). A load that fails is tried again by the next search.
func (ix *Index) vectors(ctx context.Context, e *embedding) (*vecindex.Index, error) {
	if e.vecsLoaded.Load() {
		return e.vecs, nil
	}
	e.vecMu.Lock()
	defer e.vecMu.Unlock()
	if e.vecsLoaded.Load() {
		return e.vecs, nil
	}
	vecs, err := ix.loadVectors(ctx, e.name)
	if err != nil {
		return nil, err
	}
	if err := ix.readySketch(ctx, e); err != nil {
		return nil, err // a query vector needs them
	}
	e.vecs = vecs
	e.vecsLoaded.Store(true)
	return vecs, nil
}

// applyVectors applies a committed pass's changes to e's vectors in
// memory, when they are loaded (vecMu: see embedding.vecs).
func (e *embedding) applyVectors(add []vecindex.Vector, remove []int64) error {
	e.vecMu.Lock()
	defer e.vecMu.Unlock()
	if !e.vecsLoaded.Load() {
		return nil // the load will read them from SQLite
	}
	e.vecs.Remove(remove)
	if err := e.vecs.Add(add); err != nil {
		return fmt.Errorf("rag: vector index: %w", err)
	}
	return nil
}

// loadVectors reads the stored vectors of the embedder named name into a
// new in-memory index, in one query: only that embedder's, so two are
// never mixed.
func (ix *Index) loadVectors(ctx context.Context, name string) (*vecindex.Index, error) {
	vecs := vecindex.New()
	rows, err := ix.db.QueryContext(ctx, `SELECT block, mask, vecs FROM rag_vector_blocks WHERE embedder = ?`, name)
	if err != nil {
		return nil, fmt.Errorf("rag: load vectors: %w", err)
	}
	defer rows.Close()
	var docs []vecindex.Vector
	// Each batch is decoded into one buffer, reused: Add copies. The blob
	// is scanned as RawBytes, valid until the next row, so it is not
	// copied once more on its way.
	var arena []float32
	dims := 0
	for rows.Next() {
		var block, mask int64
		var blob sql.RawBytes
		if err := rows.Scan(&block, &mask, &blob); err != nil {
			return nil, fmt.Errorf("rag: load vectors: %w", err)
		}
		vs, err := splitBlock(mask, blob)
		if err != nil {
			return nil, fmt.Errorf("rag: vectors of chunks %d to %d: %w", block<<blockShift, (block+1)<<blockShift-1, err)
		}
		k := 0
		for bit := range 1 << blockShift {
			if mask&(1<<bit) == 0 {
				continue
			}
			id, b := block<<blockShift|int64(bit), vs[k]
			k++
			if dims == 0 {
				dims = max(1, len(b)/4)
				arena = make([]float32, loadBatch*dims)
			}
			n := len(docs)
			v := arena[n*dims : (n+1)*dims : (n+1)*dims]
			if err := vecindex.DecodeInto(v, b); err != nil {
				return nil, fmt.Errorf("rag: vector of chunk %d: %w", id, err)
			}
			docs = append(docs, vecindex.Vector{ID: id, Embedding: v})
			if len(docs) == loadBatch {
				// In batches: the decoded vectors are copied into the index,
				// so holding them all first would double the heap of the load.
				if err := vecs.Add(docs); err != nil {
					return nil, fmt.Errorf("rag: vector index: %w", err)
				}
				docs = docs[:0]
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("rag: load vectors: %w", err)
	}
	if err := vecs.Add(docs); err != nil {
		return nil, fmt.Errorf("rag: vector index: %w", err)
	}
	return vecs, nil
}

// fixUp marks embedded files done, sends files whose chunks lack vectors
// of the active embedder back to Parsed when the active embedder changed
// (vectors was made for another one, or none was recorded) and brings
// skipped files in line (reconcileSkipped). A reader does none of it. The
// offline embedder's statistics are not read here but on first need
// (readySketch). The look for chunks without vectors reads every chunk (29 % of a
// no-op `quire index` at 5k passages, issue 30), and only a change of
// embedder leaves them: a pass stores a file's vectors in the
// transaction that marks it embedded, so a crash leaves none missing.
func (ix *Index) fixUp(ctx context.Context, embedderChanged bool) error {
	e := ix.cur()
	if ix.opts.readOnly {
		return nil
	}
	if _, err := ix.db.ExecContext(ctx, `UPDATE rag_files SET status = 'done' WHERE status = 'embedded'`); err != nil {
		return fmt.Errorf("rag: %w", err)
	}
	if embedderChanged {
		if _, err := ix.db.ExecContext(ctx, `UPDATE rag_files SET status = 'parsed' WHERE status = 'done' AND EXISTS (
			SELECT 1 FROM rag_chunks c WHERE c.file_id = rag_files.id AND NOT `+hasVector+`)`, e.name); err != nil {
			return fmt.Errorf("rag: %w", err)
		}
	}
	return ix.reconcileSkipped(ctx)
}

// reconcileSkipped brings the files refused by their name in line with
// the formats this Quire reads: one an older Quire listed as failed
// ("unsupported format") is skipped, and a skipped one in a format this
// Quire has learnt to read is queued, so the next pass reads it without
// waiting for the file to change.
func (ix *Index) reconcileSkipped(ctx context.Context) error {
	rows, err := ix.db.QueryContext(ctx, `SELECT id, path, status FROM rag_files
		WHERE status = 'skipped' OR (status = 'failed' AND format = '' AND reason LIKE 'unsupported format %')`)
	if err != nil {
		return fmt.Errorf("rag: %w", err)
	}
	type file struct {
		id           int64
		path, status string
	}
	var files []file
	for rows.Next() {
		var f file
		if err := rows.Scan(&f.id, &f.path, &f.status); err != nil {
			rows.Close()
			return fmt.Errorf("rag: %w", err)
		}
		files = append(files, f)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("rag: %w", err)
	}
	for _, f := range files {
		var q string
		var args []any
		switch refused := refusedByName(f.path); {
		case refused && f.status == Failed:
			q, args = `UPDATE rag_files SET status = 'skipped', reason = ? WHERE id = ?`, []any{SkipReason(f.path), f.id}
		case !refused && f.status == Skipped:
			q, args = `UPDATE rag_files SET status = 'queued', reason = '' WHERE id = ?`, []any{f.id}
		default:
			continue
		}
		if _, err := ix.db.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("rag: %w", err)
		}
	}
	return nil
}

// Embedder says which embedder makes the vectors, for people: the model's
// name, or "built-in offline embedder (...)".
func (ix *Index) Embedder() string { return ix.cur().String() }

// VectorError is the last error of the vector arm of a search (the search
// then ranked by text alone), or "" if the last search had none.
func (ix *Index) VectorError() string {
	if p := ix.vectorErr.Load(); p != nil {
		return *p
	}
	return ""
}

// Close stops a running pass (it ends with an error; its work so far is
// kept and resumed later), waits for it, and saves the offline embedder's
// statistics. It does not close the database: close the Index first.
func (ix *Index) Close() error {
	ix.stopOnce.Do(func() { close(ix.closing) })
	if ix.closed.Swap(true) {
		return nil
	}
	ix.run <- struct{}{}
	defer func() { <-ix.run }()
	defer ix.stmts.close()
	if e := ix.cur(); e.offline != nil && !ix.opts.readOnly {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return ix.saveSketch(ctx, e)
	}
	return nil
}

// acquire takes the pass token, waiting for a running pass; the returned
// context is also cancelled by Close.
func (ix *Index) acquire(ctx context.Context) (context.Context, func(), error) {
	if ix.opts.readOnly {
		return nil, nil, ErrReadOnly
	}
	if ix.closed.Load() {
		return nil, nil, ErrClosed
	}
	select {
	case ix.run <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	case <-ix.closing:
		return nil, nil, ErrClosed
	}
	if ix.closed.Load() {
		<-ix.run
		return nil, nil, ErrClosed
	}
	// A pass counts what it adds and removes into the statistics: they
	// must be read before it changes anything.
	if err := ix.readySketch(ctx, ix.cur()); err != nil {
		<-ix.run
		return nil, nil, err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	go func() {
		select {
		case <-ix.closing:
			cancel(ErrClosed)
		case <-ctx.Done():
		}
	}()
	return ctx, func() { cancel(nil); <-ix.run }, nil
}

// Documents lists every file in the index with its state, by path.
func (ix *Index) Documents(ctx context.Context) ([]Document, error) {
	return ix.queryDocuments(ctx, `ORDER BY path`)
}

// Remove takes a watched root, or a file or folder inside one, out of the
// index: its chunks and vectors are deleted, and a path inside a watched
// root is excluded from later passes (naming it in Index again includes it).
func (ix *Index) Remove(ctx context.Context, path string) (err error) {
	defer func() { err = sqlschema.NoSpace(err) }() // as Index
	path, err = absPath(path)
	if err != nil {
		return err
	}
	ctx, release, err := ix.acquire(ctx)
	if err != nil {
		return err
	}
	defer release()
	roots, err := ix.roots(ctx)
	if err != nil {
		return err
	}
	ids, err := ix.fileIDsUnder(ctx, path)
	if err != nil {
		return err
	}
	isRoot, inside := false, false
	for _, r := range roots {
		if r.path == path && !r.excluded {
			isRoot = true
		} else if !r.excluded && within(path, r.path) {
			inside = true
		}
	}
	if len(ids) == 0 && !isRoot && !inside {
		return fmt.Errorf("%s: %w", path, ErrNotIndexed)
	}
	w := ix.newWriter(ctx, nil)
	err = w.inTx(func(tx *sql.Tx) error {
		for _, id := range ids {
			if err := w.deleteFile(tx, id); err != nil {
				return err
			}
		}
		// Roots under the removed path go too.
		if _, err := tx.ExecContext(ctx, `DELETE FROM rag_roots WHERE path = ? OR path LIKE ? ESCAPE '\'`, path, likeUnder(path)); err != nil {
			return err
		}
		if inside {
			_, err := tx.ExecContext(ctx, `INSERT INTO rag_roots(path, excluded) VALUES (?, 1)`, path)
			if err != nil {
				return err
			}
			// The enclosing root's fingerprint no longer describes what is indexed.
			_, err = tx.ExecContext(ctx, `UPDATE rag_roots SET fingerprint = '' WHERE excluded = 0`)
			return err
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("rag: remove %s: %w", path, err)
	}
	w.afterCommit()
	return ix.saveSketchIfOffline(ctx)
}

// Retry queues a failed file (or every failed file under a folder) again
// and runs a pass over its root.
func (ix *Index) Retry(ctx context.Context, path string) (err error) {
	defer func() { err = sqlschema.NoSpace(err) }() // as Index
	if ix.opts.readOnly {
		return ErrReadOnly
	}
	path, err = absPath(path)
	if err != nil {
		return err
	}
	var root string
	err = ix.db.QueryRowContext(ctx, `SELECT root FROM rag_files WHERE path = ? OR path LIKE ? ESCAPE '\' LIMIT 1`, path, likeUnder(path)).Scan(&root)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%s: %w", path, ErrNotIndexed)
	}
	if err != nil {
		return fmt.Errorf("rag: %w", err)
	}
	if _, err := ix.db.ExecContext(ctx, `UPDATE rag_files SET status = 'queued', reason = '', hash = ''
		WHERE status = 'failed' AND (path = ? OR path LIKE ? ESCAPE '\')`, path, likeUnder(path)); err != nil {
		return fmt.Errorf("rag: %w", err)
	}
	// The root is rescanned without being named again: naming it would
	// lift the exclusions of paths removed inside it (Remove).
	if _, err := ix.db.ExecContext(ctx, `UPDATE rag_roots SET fingerprint = '' WHERE path = ?`, root); err != nil {
		return fmt.Errorf("rag: %w", err)
	}
	return ix.Index(ctx, nil, nil)
}

func (ix *Index) fileIDsUnder(ctx context.Context, path string) ([]int64, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT id FROM rag_files WHERE path = ? OR path LIKE ? ESCAPE '\'`, path, likeUnder(path))
	if err != nil {
		return nil, fmt.Errorf("rag: %w", err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

func absPath(p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", errors.New("rag: empty path")
	}
	a, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("rag: %s: %w", p, err)
	}
	// The folder (or file) itself, not a link to it: what is recorded is
	// where the documents are, so a link that later takes a component's
	// place is seen as one (the library's viewer refuses to follow it). A
	// path that no longer exists (a removal) is kept as given.
	if real, err := filepath.EvalSymlinks(a); err == nil {
		return real, nil
	}
	return a, nil
}

// within reports whether path is strictly inside dir.
func within(path, dir string) bool {
	return strings.HasPrefix(path, strings.TrimSuffix(dir, string(os.PathSeparator))+string(os.PathSeparator))
}

// likeUnder is a LIKE pattern for the paths strictly inside dir.
func likeUnder(dir string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(strings.TrimSuffix(dir, string(os.PathSeparator))+string(os.PathSeparator)) + "%"
}
