package rag

import (
	"bufio"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"quire/internal/sqlschema"
	"quire/internal/vecindex"
	"quire/rag/chunk"
	"quire/rag/hashvec"
	"quire/rag/parse"
)

// Index brings the index up to date with roots (folders or files), which
// become watched roots; with no roots it does all watched roots. For each
// root, a fingerprint of its files' paths, sizes and times that matches
// the last complete pass skips the root without reading a file. Otherwise
// new and changed files are queued, deleted ones dropped, and every
// unfinished job of those roots — including jobs a crash or a cancel left
// behind — is run: parse, chunk, store (status parsed), embed, store
// vectors (embedded), add to the in-memory vector index (done).
//
// progress (which may be nil) is called from this goroutine, in order,
// at least at the start and the end and as files finish (at most every
// 100 ms). A file that fails is recorded with its reason and is not an
// error of the pass; a missing root, a database failure or a cancelled ctx
// (its work so far is kept and resumed next time) are.
//
// A write the disk had no room for is event.ErrNoSpace (sqlschema.NoSpace).
func (ix *Index) Index(ctx context.Context, roots []string, progress func(Progress)) (err error) {
	defer func() { err = sqlschema.NoSpace(err) }()
	ctx, release, err := ix.acquire(ctx)
	if err != nil {
		return err
	}
	defer release()
	report := func(p Progress) {
		if progress != nil {
			progress(p)
		}
		if ix.opts.progress != nil {
			ix.opts.progress(p)
		}
	}
	report(Progress{Phase: "scanning"})

	scanRoots, rootErr := ix.resolveRoots(ctx, roots)
	all, err := ix.roots(ctx)
	if err != nil {
		return err
	}
	var excluded []string
	stored := map[string]string{}
	for _, r := range all {
		if r.excluded {
			excluded = append(excluded, r.path)
		} else {
			stored[r.path] = r.fingerprint
		}
	}
	w := ix.newWriter(ctx, nil)
	var scanned []scanResult
	errs := []error{rootErr}
	for _, r := range scanRoots {
		res, err := ix.scan(ctx, w, r, excluded, stored[r])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		scanned = append(scanned, res)
	}
	var active []string
	for _, s := range scanned {
		if !s.skipped {
			active = append(active, s.root)
		}
	}
	jobs, err := ix.pendingJobs(ctx, active)
	if err != nil {
		return err
	}
	w.report = report
	err = ix.process(ctx, w, jobs)
	errs = append(errs, err)
	if err == nil {
		for _, s := range scanned {
			if s.skipped || !s.stable {
				continue
			}
			// Recorded only when the root's jobs are all finished, so an
			// interrupted pass is never mistaken for a complete one.
			if _, err := ix.db.ExecContext(ctx, `UPDATE rag_roots SET fingerprint = ? WHERE path = ? AND NOT EXISTS (
				SELECT 1 FROM rag_files WHERE root = ? AND status IN ('queued', 'parsed', 'embedded'))`, s.fingerprint, s.root, s.root); err != nil {
				errs = append(errs, fmt.Errorf("rag: %w", err))
			}
		}
	}
	if w.changedCorpus {
		if err := ix.saveSketchIfOffline(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	final := w.progress("done")
	report(final)
	return errors.Join(errs...)
}

type job struct {
	id     int64
	path   string
	root   string // the watched root it was found under
	status string
	size   int64
}

func (ix *Index) pendingJobs(ctx context.Context, roots []string) ([]*job, error) {
	var jobs []*job
	for _, r := range roots {
		rows, err := ix.db.QueryContext(ctx, `SELECT id, path, root, status, size FROM rag_files
			WHERE root = ? AND status IN ('queued', 'parsed', 'embedded') ORDER BY id`, r)
		if err != nil {
			return nil, fmt.Errorf("rag: %w", err)
		}
		for rows.Next() {
			j := &job{}
			if err := rows.Scan(&j.id, &j.path, &j.root, &j.status, &j.size); err != nil {
				rows.Close()
				return nil, fmt.Errorf("rag: %w", err)
			}
			jobs = append(jobs, j)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("rag: %w", err)
		}
	}
	return jobs, nil
}

// A message from a worker to the writer. Messages of one file arrive in
// the order the worker sent them (one channel, one sender per file).
type message struct {
	job  *job
	kind int

	// chunks
	reset  bool // delete the file's stored chunks first
	ord0   int
	chunks []chunk.Chunk
	file   *fileInfo // on the last chunk batch: what was read

	// vectors, for new chunks (by position) or stored ones (by id)
	ords  []int
	ids   []int64
	vecs  [][]float32
	feats [][]uint64

	last   bool
	reason string // failure
	keep   bool   // a failure that keeps the chunks (embedding failed)
}

const (
	msgChunks = iota
	msgVectors
	msgFail
)

type fileInfo struct {
	format string
	hash   string
	size   int64
	mtime  int64
}

// process runs jobs on ix.opts.workers goroutines; the calling goroutine
// writes their results, batching them into transactions.
func (ix *Index) process(ctx context.Context, w *writer, jobs []*job) error {
	w.total = len(jobs)
	for _, j := range jobs {
		w.totalBytes += j.size
	}
	w.start = time.Now()
	w.report(w.progress("indexing"))
	if len(jobs) == 0 {
		return w.finish()
	}
	wctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	queue := make(chan *job)
	out := make(chan message, 64)
	var wg sync.WaitGroup
	for range min(ix.opts.workers, len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range queue {
				w.current.Store(&j.path)
				ix.runJob(wctx, j, out)
			}
		}()
	}
	go func() {
		defer close(out)
		defer wg.Wait()
		defer close(queue)
		for _, j := range jobs {
			select {
			case queue <- j:
			case <-wctx.Done():
				return
			}
		}
	}()
	err := w.consume(out)
	if err != nil {
		stop(err)
		for range out { // let the workers finish
		}
	}
	if ferr := w.finish(); err == nil {
		err = ferr
	}
	if err == nil && ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	return err
}

// runJob does one file's work; it sends nothing once ctx is done.
func (ix *Index) runJob(ctx context.Context, j *job, out chan<- message) {
	send := func(m message) bool {
		m.job = j
		select {
		case out <- m:
			return true
		case <-ctx.Done():
			return false
		}
	}
	switch j.status {
	case Queued:
		ix.parseJob(ctx, j, send)
	case Parsed:
		ix.embedJob(ctx, j, send)
	case Embedded:
		send(message{kind: msgVectors, last: true})
	}
}

// batchChunks is how many chunks go to the writer in one message.
const batchChunks = 64

func (ix *Index) parseJob(ctx context.Context, j *job, send func(message) bool) {
	var read *fileInfo // what the failure is about, once the file is known
	fail := func(reason string) { send(message{kind: msgFail, reset: true, reason: reason, file: read}) }
	f, err := OpenInRoot(j.root, j.path)
	if errors.Is(err, ErrOutsideRoot) {
		fail(outsideLink)
		return
	}
	if err != nil {
		fail("cannot open: " + unwrapPath(err))
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		fail("not a regular file")
		return
	}
	// Keyed by the size and time read, so a refused file is read again
	// only once it changes.
	read = &fileInfo{size: st.Size(), mtime: trustedMtime(st.ModTime().UnixNano(), time.Now())}
	lim := ix.opts.limits
	if lim.Bytes > 0 && st.Size() > lim.Bytes {
		// Before any byte is read: a 1 GiB file costs one stat.
		fail(limitReason(&parse.LimitError{Limit: parse.LimitBytes, Max: lim.Bytes}))
		return
	}
	format, err := parse.ByName(j.path)
	if err != nil {
		fail(err.Error())
		return
	}
	if err := parse.Sniff(format, f, st.Size()); err != nil {
		fail(describe(err))
		return
	}
	b := &fileBatcher{ix: ix, ctx: ctx, send: send}
	split := chunk.New(ix.opts.chunkSize, b.add)
	split.Limit(lim.Chunks)
	emit := parse.TextBudget(lim.Text, func(blk parse.Block) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return split.Add(blk)
	})
	h := sha256.New()
	switch format {
	case parse.PDF:
		if _, err = io.Copy(h, io.LimitReader(f, st.Size())); err == nil {
			err = parse.ReadPDF(f, st.Size(), lim.Pages, emit)
		}
	default:
		// The buffer is the file's size up to 256 KiB: a zeroed 256 KiB a
		// file of 1.5 KiB was a tenth of a first pass's CPU (issue 30).
		r := io.TeeReader(parse.Bounded(bufio.NewReaderSize(f, int(min(max(st.Size()+1, 4096), 256<<10))), lim.Bytes), h)
		switch format {
		case parse.Markdown:
			err = parse.ReadMarkdown(r, emit)
		case parse.HTML:
			err = parse.ReadHTML(r, emit)
			if err == nil {
				_, err = io.Copy(io.Discard, r) // hash what the tokenizer did not need
			}
		default:
			err = parse.ReadText(r, emit)
		}
	}
	if err == nil {
		err = split.Close()
	}
	if ctx.Err() != nil || b.stopped {
		return // left queued; the next pass starts the file again
	}
	if err != nil {
		fail(describe(err))
		return
	}
	ix.parses.Add(1)
	if hook := ix.opts.afterParse; hook != nil {
		hook(j.path)
	}
	b.finish(&fileInfo{format: string(format), hash: hex.EncodeToString(h.Sum(nil)), size: st.Size(), mtime: read.mtime})
}

// limitReason is the sentence the documents panel shows for a document
// over one of its limits, naming the setting that raises it.
func limitReason(le *parse.LimitError) string {
	var what, key string
	switch le.Limit {
	case parse.LimitBytes:
		what, key = "larger than "+sizeText(le.Max), "maxBytes"
	case parse.LimitPages:
		what, key = "more than "+countText(le.Max)+" pages", "maxPages"
	case parse.LimitText:
		what, key = "more than "+sizeText(le.Max)+" of text", "maxTextBytes"
	default:
		what, key = "more than "+countText(le.Max)+" chunks of text", "maxChunks"
	}
	return what + " — raise the limit in Settings (documents." + key + " in settings.json) to index it"
}

// sizeText writes a byte count the way people read sizes: "64 MiB".
func sizeText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<20)), ".0") + " MiB"
	case n >= 1<<10:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<10)), ".0") + " KiB"
	}
	return fmt.Sprintf("%d bytes", n)
}

// countText writes a count with thousands separators: "2,000".
func countText(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// fileBatcher sends a file's chunks in batches, each followed by its vectors.
type fileBatcher struct {
	ix       *Index
	ctx      context.Context
	send     func(message) bool
	buf      []chunk.Chunk
	ord      int
	sent     bool // a batch went out (so the next one does not reset)
	embedErr error
	stopped  bool
}

func (b *fileBatcher) add(c chunk.Chunk) error {
	b.buf = append(b.buf, c)
	if len(b.buf) >= batchChunks {
		return b.flush(nil)
	}
	return nil
}

// flush sends the buffered chunks, then their vectors; file marks the last batch.
func (b *fileBatcher) flush(file *fileInfo) error {
	last := file != nil
	m := message{kind: msgChunks, reset: !b.sent, ord0: b.ord, chunks: b.buf, file: file, last: last}
	if !b.send(m) {
		b.stopped = true
		return b.ctx.Err()
	}
	b.sent = true
	vm := message{kind: msgVectors, last: last}
	if b.embedErr == nil && len(b.buf) > 0 {
		texts := make([]string, len(b.buf))
		for i, c := range b.buf {
			texts[i] = c.Text
		}
		vecs, feats, err := b.ix.embed(b.ctx, texts)
		if err != nil {
			if b.ctx.Err() != nil {
				b.stopped = true
				return b.ctx.Err()
			}
			b.embedErr = err
		} else {
			vm.vecs, vm.feats = vecs, feats
			for i := range b.buf {
				vm.ords = append(vm.ords, b.ord+i)
			}
		}
	}
	b.ord += len(b.buf)
	b.buf = nil
	if last && b.embedErr != nil {
		if !b.send(message{kind: msgFail, keep: true, reason: embedReason(b.embedErr)}) {
			b.stopped = true
		}
		return nil
	}
	if len(vm.vecs) > 0 || last {
		if !b.send(vm) {
			b.stopped = true
			return b.ctx.Err()
		}
	}
	return nil
}

func (b *fileBatcher) finish(file *fileInfo) {
	if !b.stopped {
		b.flush(file)
	}
}

// embedJob embeds the stored chunks of a parsed file that have no vector
// from the active embedder (a pass resumed after a crash, or a new embedder).
func (ix *Index) embedJob(ctx context.Context, j *job, send func(message) bool) {
	var after int64
	for {
		ids, texts, err := ix.chunksLacking(ctx, j.id, after, ix.cur().name)
		if err != nil {
			if ctx.Err() == nil {
				send(message{kind: msgFail, keep: true, reason: "cannot read its chunks: " + err.Error()})
			}
			return
		}
		if len(ids) == 0 {
			send(message{kind: msgVectors, last: true})
			return
		}
		vecs, feats, err := ix.embed(ctx, texts)
		if err != nil {
			if ctx.Err() == nil {
				send(message{kind: msgFail, keep: true, reason: embedReason(err)})
			}
			return
		}
		last := len(ids) < batchChunks
		if !send(message{kind: msgVectors, ids: ids, vecs: vecs, feats: feats, last: last}) || last {
			return
		}
		after = ids[len(ids)-1]
	}
}

// embed makes document vectors (and, for the offline embedder, each
// text's features for the statistics).
func (ix *Index) embed(ctx context.Context, texts []string) ([][]float32, [][]uint64, error) {
	return ix.embedWith(ctx, ix.cur(), texts)
}

// embedWith is embed by a given embedder: the active one, or a switch's target.
func (ix *Index) embedWith(ctx context.Context, e *embedding, texts []string) ([][]float32, [][]uint64, error) {
	if e.offline != nil {
		vecs := make([][]float32, len(texts))
		feats := make([][]uint64, len(texts))
		for i, t := range texts {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			var fs []uint64
			vecs[i] = e.offline.Document(t, func(h uint64) { fs = append(fs, h) })
			feats[i] = fs
		}
		return vecs, feats, nil
	}
	var vecs [][]float32
	for i := 0; i < len(texts); i += ix.opts.batch {
		part := texts[i:min(i+ix.opts.batch, len(texts))]
		got, err := e.emb.Embed(ctx, part)
		if err != nil {
			return nil, nil, err
		}
		if len(got) != len(part) {
			return nil, nil, fmt.Errorf("%s returned %d vectors for %d texts", e.name, len(got), len(part))
		}
		for _, v := range got {
			if err := checkDims(e, len(v)); err != nil {
				return nil, nil, err
			}
			u, err := vecindex.Unit(v)
			if err != nil {
				return nil, nil, err
			}
			vecs = append(vecs, u)
		}
	}
	return vecs, nil, nil
}

func embedReason(err error) string {
	return "could not make its vectors (text search still finds it): " + err.Error()
}

func describe(err error) string {
	if le := (*parse.LimitError)(nil); errors.As(err, &le) {
		return limitReason(le)
	}
	msg := err.Error()
	return strings.TrimPrefix(msg, "rag: ")
}

func unwrapPath(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// writer applies workers' messages in transactions, then updates the
// in-memory vector index, and counts progress.
type writer struct {
	ix     *Index
	ctx    context.Context // the pass's context; writes use a detached one so work received is kept
	report func(Progress)

	ids map[int64][]int64 // chunk ids by position, for files being parsed

	// effects of the transaction in flight, applied after it commits
	add           []vecindex.Vector
	remove        []int64
	embedded      []*job
	finished      int // files finished in the transaction
	failedInTx    int
	doneBytesInTx int64
	sketchTouched bool
	changedCorpus bool
	bumped        bool

	toDone []int64 // files whose vectors are in memory, to mark done

	// unindexed are the passages written in the transaction in flight
	// and not yet in rag_fts (flushText).
	unindexed []int64
	// unstored are the vectors of the transaction in flight not yet in
	// rag_vector_blocks (flushVectors), all of the embedder unstoredFor.
	unstored    []vecindex.Vector
	unstoredFor string
	// noted is the vectors' length noteDims recorded in this transaction.
	noted int

	// found by this pass's scans before any job: new files Quire does not
	// read (Skipped) and new links out of their folder (failed)
	skipped, refused int

	total, done, failed   int
	totalBytes, doneBytes int64
	start                 time.Time
	lastReport            time.Time
	current               atomic.Pointer[string]
}

func (ix *Index) newWriter(ctx context.Context, report func(Progress)) *writer {
	if report == nil {
		report = func(Progress) {}
	}
	return &writer{ix: ix, ctx: ctx, report: report, ids: map[int64][]int64{}}
}

// maxTxWait is how long a transaction stays open waiting for more work.
const maxTxWait = 50 * time.Millisecond

func (w *writer) consume(in <-chan message) error {
	for {
		m, ok := <-in
		if !ok {
			return nil
		}
		closed := false
		err := w.inTx(func(tx *sql.Tx) error {
			if err := w.markDone(tx); err != nil {
				return err
			}
			if err := w.apply(tx, m); err != nil {
				return err
			}
			rows := len(m.chunks) + len(m.vecs) + 1
			timer := time.NewTimer(maxTxWait)
			defer timer.Stop()
			for rows < w.ix.opts.txRows {
				select {
				case m, ok := <-in:
					if !ok {
						closed = true
						return nil
					}
					if err := w.apply(tx, m); err != nil {
						return err
					}
					rows += len(m.chunks) + len(m.vecs) + 1
				case <-timer.C:
					return nil
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		if err := w.afterCommit(); err != nil {
			return err
		}
		if hook := w.ix.opts.afterCommit; hook != nil {
			hook()
		}
		if time.Since(w.lastReport) >= 100*time.Millisecond {
			w.lastReport = time.Now()
			w.report(w.progress("indexing"))
		}
		if closed {
			return nil
		}
	}
}

// finish marks the last files done.
func (w *writer) finish() error {
	if len(w.toDone) == 0 {
		return nil
	}
	err := w.inTx(w.markDone)
	if err == nil {
		err = w.afterCommit()
	}
	return err
}

func (w *writer) markDone(tx *sql.Tx) error {
	for _, id := range w.toDone {
		if err := w.exec(tx, `UPDATE rag_files SET status = 'done' WHERE id = ? AND status = 'embedded'`, id); err != nil {
			return err
		}
	}
	w.toDone = w.toDone[:0]
	return nil
}

// wctx is the context of writes: detached from the pass's cancellation, so
// work already received lands, but bounded.
func (w *writer) wctx() context.Context { return context.WithoutCancel(w.ctx) }

// inTx runs fn in a transaction; on failure the effects gathered are dropped.
func (w *writer) inTx(fn func(tx *sql.Tx) error) error {
	ctx, cancel := context.WithTimeout(w.wctx(), time.Minute)
	defer cancel()
	tx, err := w.ix.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("rag: %w", err)
	}
	w.bumped, w.noted = false, 0
	err = fn(tx)
	if err == nil {
		err = w.flushText(tx)
	}
	if err == nil {
		err = w.flushVectors(tx)
	}
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		tx.Rollback()
		w.rollback()
		return fmt.Errorf("rag: %w", err)
	}
	return nil
}

// exec runs q in tx through its prepared statement.
func (w *writer) exec(tx *sql.Tx, q string, args ...any) error {
	return w.execCtx(w.wctx(), tx, q, args...)
}

// execCtx is exec on ctx (a scan's writes stop with the pass).
func (w *writer) execCtx(ctx context.Context, tx *sql.Tx, q string, args ...any) error {
	st, err := w.ix.txStmt(ctx, tx, q)
	if err != nil {
		return err
	}
	_, err = st.ExecContext(ctx, args...)
	return err
}

// query runs q in tx through its prepared statement: a statement a file
// prepared anew was 14 % of a first pass's CPU (issue 30).
func (w *writer) query(tx *sql.Tx, q string, args ...any) (*sql.Rows, error) {
	st, err := w.ix.txStmt(w.wctx(), tx, q)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(w.wctx(), args...)
}

// flushText puts the transaction's new passages into the text index, in
// one statement: FTS5 writes its pending terms as a segment at every
// statement that follows a change to it, so a row at a time made (and
// merged) a segment a passage.
func (w *writer) flushText(tx *sql.Tx) error {
	if len(w.unindexed) == 0 {
		return nil
	}
	ids, err := json.Marshal(w.unindexed)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(w.wctx(), `INSERT INTO rag_fts(rowid, heading, text)
		SELECT id, heading, text FROM rag_chunks WHERE id IN (SELECT value FROM json_each(?))`, string(ids)); err != nil {
		return err
	}
	w.unindexed = w.unindexed[:0]
	return nil
}

// flushVectors stores the transaction's new vectors, a read and a write
// of each block they fall in: a file's few vectors a time rewrote a
// block as many times as it had files.
func (w *writer) flushVectors(tx *sql.Tx) error {
	if len(w.unstored) == 0 {
		return nil
	}
	if err := w.ix.putVectors(w.wctx(), tx, w.unstoredFor, w.unstored); err != nil {
		return err
	}
	w.unstored = w.unstored[:0]
	return nil
}

// isUnstored is true if chunk id has a vector of the embedder named name
// among the transaction's not yet in their blocks: a file parsed again
// in the transaction that embedded it.
func (w *writer) isUnstored(id int64, name string) bool {
	if w.unstoredFor != name {
		return false
	}
	for _, v := range w.unstored {
		if v.ID == id {
			return true
		}
	}
	return false
}

func (w *writer) rollback() {
	w.unindexed = w.unindexed[:0]
	w.unstored = w.unstored[:0]
	w.add, w.remove, w.embedded = nil, nil, nil
	w.finished, w.failedInTx, w.doneBytesInTx = 0, 0, 0
	clear(w.ids)
	if e := w.ix.cur(); w.sketchTouched && e.sketch != nil {
		// The statistics counted changes that did not land: count again.
		sk := e.sketch
		fresh := hashvec.NewSketch()
		if w.ix.rebuildSketch(w.wctx(), e, fresh) == nil {
			sk.Replace(fresh)
		}
	}
	w.sketchTouched = false
}

// afterCommit applies the committed transaction's effects to memory.
func (w *writer) afterCommit() error {
	if w.bumped {
		w.ix.dfs.reset()
		w.ix.corpus.Add(1) // bumpCorpus added one in the transaction
	}
	if err := w.ix.cur().applyVectors(w.add, w.remove); err != nil {
		return err
	}
	for _, j := range w.embedded {
		w.toDone = append(w.toDone, j.id)
	}
	w.done += w.finished
	w.failed += w.failedInTx
	w.doneBytes += w.doneBytesInTx
	w.add, w.remove, w.embedded = nil, nil, nil
	w.finished, w.failedInTx, w.doneBytesInTx = 0, 0, 0
	w.sketchTouched = false
	return nil
}

func (w *writer) progress(phase string) Progress {
	p := Progress{Phase: phase, Total: w.total, Done: w.done, Failed: w.failed, Skipped: w.skipped, Refused: w.refused}
	if c := w.current.Load(); c != nil && phase != "done" {
		p.CurrentFile = *c
	}
	if w.doneBytes > 0 && w.totalBytes > w.doneBytes && phase == "indexing" {
		rate := float64(w.doneBytes) / float64(time.Since(w.start))
		p.ETA = time.Duration(float64(w.totalBytes-w.doneBytes) / rate).Round(time.Second / 10)
	}
	return p
}

func (w *writer) bump(tx *sql.Tx) error {
	w.changedCorpus = true
	if w.bumped {
		return nil
	}
	w.bumped = true
	return bumpCorpus(w.wctx(), tx)
}

func (w *writer) apply(tx *sql.Tx, m message) error {
	ctx := w.wctx()
	j := m.job
	now := time.Now().UnixNano()
	switch m.kind {
	case msgChunks:
		if m.reset {
			if err := w.deleteChunks(tx, j.id); err != nil {
				return err
			}
			w.ids[j.id] = nil
		}
		if len(m.chunks) > 0 {
			if err := w.bump(tx); err != nil {
				return err
			}
		}
		ins, err := w.ix.txStmt(ctx, tx, `INSERT INTO rag_chunks(file_id, ord, heading, start_line, end_line, text) VALUES (?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		for i, c := range m.chunks {
			res, err := ins.ExecContext(ctx, j.id, m.ord0+i, joinHeadings(c.Headings), c.Start, c.End, c.Text)
			if err != nil {
				return err
			}
			id, err := res.LastInsertId()
			if err != nil {
				return err
			}
			w.ids[j.id] = append(w.ids[j.id], id)
			w.unindexed = append(w.unindexed, id)
		}
		if m.last {
			f := m.file
			return w.exec(tx, `UPDATE rag_files SET status = 'parsed', reason = '', format = ?, hash = ?, size = ?, mtime_ns = ?, chunks = ?, updated_ns = ? WHERE id = ?`,
				f.format, f.hash, f.size, f.mtime, len(w.ids[j.id]), now, j.id)
		}
	case msgVectors:
		e := w.ix.cur()
		if len(m.vecs) > 0 {
			if err := w.bump(tx); err != nil {
				return err
			}
			if w.noted != len(m.vecs[0]) {
				if err := noteDims(ctx, tx, e.name, len(m.vecs[0])); err != nil {
					return err
				}
				w.noted = len(m.vecs[0])
			}
		}
		if w.unstoredFor != e.name {
			if err := w.flushVectors(tx); err != nil {
				return err
			}
			w.unstoredFor = e.name
		}
		for i, v := range m.vecs {
			var id int64
			if m.ids != nil {
				id = m.ids[i]
			} else {
				ids := w.ids[j.id]
				if m.ords[i] >= len(ids) {
					return fmt.Errorf("vectors for chunk %d of %s arrived before the chunk", m.ords[i], j.path)
				}
				id = ids[m.ords[i]]
			}
			w.add = append(w.add, vecindex.Vector{ID: id, Embedding: v})
			w.unstored = append(w.unstored, vecindex.Vector{ID: id, Embedding: v})
		}
		if e.sketch != nil && len(m.feats) > 0 {
			e.sketch.Update(m.feats, +1)
			w.sketchTouched = true
		}
		if m.last {
			delete(w.ids, j.id)
			if err := w.exec(tx, `UPDATE rag_files SET status = 'embedded', updated_ns = ? WHERE id = ?`, now, j.id); err != nil {
				return err
			}
			w.embedded = append(w.embedded, j)
			w.finished++
			w.doneBytesInTx += j.size
		}
	case msgFail:
		delete(w.ids, j.id)
		if !m.keep {
			if err := w.deleteChunks(tx, j.id); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE rag_files SET status = 'failed', reason = ?, updated_ns = ?,
			chunks = (SELECT count(*) FROM rag_chunks WHERE file_id = ?) WHERE id = ?`, m.reason, now, j.id, j.id); err != nil {
			return err
		}
		if f := m.file; f != nil {
			// The size and time the failure is about, so the next scan
			// sees the file unchanged and does not queue it again.
			if _, err := tx.ExecContext(ctx, `UPDATE rag_files SET size = ?, mtime_ns = ? WHERE id = ?`, f.size, f.mtime, j.id); err != nil {
				return err
			}
		}
		w.finished++
		w.failedInTx++
		w.doneBytesInTx += j.size
	}
	return nil
}

// deleteChunks removes a file's chunks (and through the trigger their
// FTS rows) and vectors, and uncounts them from the statistics.
func (w *writer) deleteChunks(tx *sql.Tx, fileID int64) error {
	ctx := w.wctx()
	e := w.ix.cur()
	rows, err := w.query(tx, `SELECT c.id, c.text, `+hasVector+`
		FROM rag_chunks c WHERE c.file_id = ?`, e.name, fileID)
	if err != nil {
		return err
	}
	var uncount [][]uint64
	var ids []int64
	for rows.Next() {
		var id int64
		var text string
		var had bool
		if err := rows.Scan(&id, &text, &had); err != nil {
			rows.Close()
			return err
		}
		ids = append(ids, id)
		w.remove = append(w.remove, id)
		had = had || w.isUnstored(id, e.name)
		if had && e.sketch != nil {
			uncount = append(uncount, features(e, text))
			if len(uncount) == 256 {
				e.sketch.Update(uncount, -1)
				w.sketchTouched = true
				uncount = uncount[:0]
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(uncount) > 0 {
		e.sketch.Update(uncount, -1)
		w.sketchTouched = true
	}
	if len(ids) == 0 {
		return nil
	}
	// The delete trigger takes each passage out of the text index, so
	// the passages of this transaction must be in it first.
	if err := w.flushText(tx); err != nil {
		return err
	}
	if err := w.bump(tx); err != nil {
		return err
	}
	// The vectors of this transaction must be in their blocks to be
	// deleted with the others. Only here: a flush at every file parsed
	// rewrote the last block once a file.
	if err := w.flushVectors(tx); err != nil {
		return err
	}
	if err := w.ix.dropVectors(ctx, tx, ids); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `DELETE FROM rag_chunks WHERE file_id = ?`, fileID)
	return err
}

// deleteFile drops a file and everything derived from it.
func (w *writer) deleteFile(tx *sql.Tx, fileID int64) error {
	if err := w.deleteChunks(tx, fileID); err != nil {
		return err
	}
	_, err := tx.ExecContext(w.wctx(), `DELETE FROM rag_files WHERE id = ?`, fileID)
	return err
}

// headingSep joins a heading path in storage; FTS reads it as a separator.
const headingSep = " › "

func joinHeadings(h []string) string { return strings.Join(h, headingSep) }

func splitHeadings(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, headingSep)
}
