package library

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"quire/internal/latest"
	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/rag"
)

// Index is what the library needs of the document index; *rag.Index is one.
type Index interface {
	Index(ctx context.Context, roots []string, progress func(rag.Progress)) error
	Documents(ctx context.Context) ([]rag.Document, error)
	Document(ctx context.Context, path string) (rag.Document, error)
	Roots(ctx context.Context) ([]string, error)
	Remove(ctx context.Context, path string) error
	Retry(ctx context.Context, path string) error
	Embedder() string
	Offline() bool
	VectorError() string
	// A switch of embedder (rag.Index.Switch, Reembed): the target's
	// vectors are made beside the ones in use, which rank searches until
	// they are complete.
	Switch(emb rag.Embedder) error
	Reembed(ctx context.Context, progress func(rag.Progress)) error
	Target() string
	Dimensions(ctx context.Context) (int, error)
}

type jobKind int

const (
	jobIndex   jobKind = iota // index paths (none: refresh every known root)
	jobRetry                  // retry the failed files at or under paths[0]
	jobRemove                 // remove paths[0] from the index
	jobReembed                // make the vectors of a switch's target (Index.Reembed)
)

type job struct {
	kind  jobKind
	paths []string
	// quiet is a refresh the user did not ask for (a watched folder
	// changed): its progress is published only once it finds work, so a
	// pass with nothing to do never replaces the last pass's outcome on
	// the bar.
	quiet bool
}

// Library runs indexing in the background for hosts. Its methods are safe
// for concurrent use.
type Library struct {
	idx Index
	log *slog.Logger

	mu       sync.Mutex
	queue    []job
	cancel   context.CancelCauseFunc // of the running job; nil when idle
	progress protocol.IndexProgress
	watchers map[chan protocol.IndexProgress]struct{}
	closed   bool

	wake chan struct{} // a job was queued (buffered, 1)
	stop context.CancelFunc
	done chan struct{}

	embed *embedState // WithEmbedding; nil: the embedder is shown, not changed
}

// noSpace is the panel's sentence for a pass the disk had no room for: the
// driver's "database or disk is full (13)" says neither what nor what next.
const noSpace = "the disk is full, so the documents could not be saved to the index. Free some space on the disk that holds Quire's data folder, then add them again: what was indexed is kept."

// errCancelled is the cause of a pass the user stopped.
var errCancelled = errors.New("stopped by the user")

// New returns a library over idx. Call Start to run passes.
func New(idx Index, log *slog.Logger, opts ...Option) *Library {
	l := &Library{idx: idx, log: log, progress: protocol.IndexProgress{Phase: protocol.PhaseIdle},
		watchers: map[chan protocol.IndexProgress]struct{}{}, wake: make(chan struct{}, 1), done: make(chan struct{})}
	for _, o := range opts {
		o(l)
	}
	return l
}

// Start runs the worker until ctx ends or Close is called, and queues a
// refresh of the known folders (files changed while Quire was closed),
// when there are any.
func (l *Library) Start(ctx context.Context) {
	ctx, l.stop = context.WithCancel(ctx)
	go l.work(ctx)
	if roots, err := l.idx.Roots(ctx); err != nil {
		l.log.Warn("documents: cannot list the known folders", "err", err)
	} else if len(roots) > 0 {
		l.enqueue(job{kind: jobIndex})
	}
	// A switch of embedder a quit (or a crash) interrupted goes on.
	if err := l.reembedIfPending(); err != nil {
		l.log.Warn("documents: re-embed", "err", err)
	}
}

// Close stops the running pass (its work is kept and resumed next time)
// and waits for the worker.
func (l *Library) Close() {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return
	}
	l.closed = true
	l.queue = nil
	if l.cancel != nil {
		l.cancel(ErrClosed)
	}
	l.mu.Unlock()
	if l.stop != nil {
		l.stop()
		<-l.done
	}
}

// Add queues the paths (absolute, existing files or folders) for indexing
// and returns at once; progress arrives through Watch. A file Quire cannot
// read is indexed as failed with its reason, not refused here.
func (l *Library) Add(ctx context.Context, paths []string) error {
	var clean []string
	for _, p := range paths {
		if strings.TrimSpace(p) == "" {
			continue
		}
		if !filepath.IsAbs(p) {
			return fmt.Errorf("%q: %w", p, ErrRelativePath)
		}
		p = filepath.Clean(p)
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("%s: %w", p, ErrMissing)
		}
		if !slices.Contains(clean, p) {
			clean = append(clean, p)
		}
	}
	if len(clean) == 0 {
		return ErrNoPaths
	}
	return l.enqueue(job{kind: jobIndex, paths: clean})
}

// Refresh queues an index pass of roots already in the library (a watched
// folder changed) that says nothing unless it finds something to index,
// remove or report: the bar the user knows shows a refresh with work, and
// keeps the last outcome when there is none.
func (l *Library) Refresh(ctx context.Context, roots []string) error {
	if len(roots) == 0 {
		return ErrNoPaths
	}
	return l.enqueue(job{kind: jobIndex, paths: roots, quiet: true})
}

// Retry queues the failed documents at or under path for another try.
func (l *Library) Retry(ctx context.Context, path string) error {
	path, err := l.known(ctx, path)
	if err != nil {
		return err
	}
	return l.enqueue(job{kind: jobRetry, paths: []string{path}})
}

// Remove queues taking path (a document, or a folder of them) out of the
// index; it runs after the pass that is going, unless that is cancelled.
func (l *Library) Remove(ctx context.Context, path string) error {
	path, err := l.known(ctx, path)
	if err != nil {
		return err
	}
	return l.enqueue(job{kind: jobRemove, paths: []string{path}})
}

// Cancel stops the running pass and drops the waiting ones. What the pass
// finished stays indexed; the rest is picked up by the next pass.
func (l *Library) Cancel() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.queue = slices.DeleteFunc(l.queue, func(j job) bool { return j.kind != jobRemove })
	if l.cancel != nil {
		l.cancel(errCancelled)
	}
}

// State is what the documents panel shows.
func (l *Library) State(ctx context.Context) (protocol.DocumentsState, error) {
	l.Recheck(ctx)
	docs, err := l.idx.Documents(ctx)
	if err != nil {
		return protocol.DocumentsState{}, err
	}
	roots, err := l.idx.Roots(ctx)
	if err != nil {
		return protocol.DocumentsState{}, err
	}
	st := protocol.DocumentsState{Embedder: l.idx.Embedder(), Offline: l.idx.Offline(), VectorError: l.idx.VectorError(),
		Roots: roots, Documents: make([]protocol.Document, 0, len(docs)), Progress: l.Progress(), Embedding: l.embeddingState(ctx)}
	if st.Roots == nil {
		st.Roots = []string{}
	}
	for _, d := range docs {
		st.Documents = append(st.Documents, protocol.Document{Path: d.Path, Name: rag.DisplayName(d.Root, d.Path), Root: d.Root,
			Format: d.Format, Status: d.Status, Reason: d.Reason, Chunks: d.Chunks, Size: d.Size, Updated: d.Updated})
	}
	return st, nil
}

// Progress is the current (or last) pass's progress.
func (l *Library) Progress() protocol.IndexProgress {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.progress
}

// Watch delivers progress until ctx ends: the current state first, then
// every change, lossily (a slow reader gets the latest).
func (l *Library) Watch(ctx context.Context) <-chan protocol.IndexProgress {
	ch := make(chan protocol.IndexProgress, 1)
	l.mu.Lock()
	l.watchers[ch] = struct{}{}
	ch <- l.progress
	l.mu.Unlock()
	return latest.Relay(ctx, ch, func() {
		l.mu.Lock()
		delete(l.watchers, ch)
		l.mu.Unlock()
	})
}

// publish records p and offers it to every watcher, replacing what a slow
// one has not read yet.
func (l *Library) publish(p protocol.IndexProgress) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p.Queued = len(l.queue)
	l.progress = p
	for ch := range l.watchers {
		latest.Offer(ch, p)
	}
}

// known returns path if it is exactly a watched folder or a document in
// the index: the only paths a host may retry or remove. A folder that
// merely holds documents is not enough — "/" holds them all, and removing
// it once wiped the index. The path must be absolute and already clean,
// so what the user was shown is what is acted on.
func (l *Library) known(ctx context.Context, path string) (string, error) {
	if err := checkPath(path); err != nil {
		return "", err
	}
	roots, err := l.idx.Roots(ctx)
	if err != nil {
		return "", err
	}
	if slices.Contains(roots, path) {
		return path, nil
	}
	if _, err := l.idx.Document(ctx, path); err == nil {
		return path, nil
	} else if !errors.Is(err, rag.ErrNotIndexed) {
		return "", err
	}
	return "", fmt.Errorf("%s: %w", path, ErrUnknownDocument)
}

// checkPath refuses a relative path and one that is not in its clean form
// ("/a/../b", "/a/./b", "/a//b", "/a/").
func checkPath(path string) error {
	if !filepath.IsAbs(path) {
		return fmt.Errorf("%q: %w", path, ErrRelativePath)
	}
	if clean := filepath.Clean(path); clean != path {
		return fmt.Errorf("%q (did you mean %s?): %w", path, clean, ErrUncleanPath)
	}
	return nil
}

func (l *Library) enqueue(j job) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	if j.kind == jobReembed && slices.ContainsFunc(l.queue, func(q job) bool { return q.kind == jobReembed }) {
		return nil // one waiting re-embedding does it all
	}
	// Adds waiting behind the running pass are merged into one.
	// A refresh and a pass the user asked for stay apart: the one is
	// silent when it finds nothing, the other always shows.
	if n := len(l.queue); n > 0 && j.kind == jobIndex && len(j.paths) > 0 && l.queue[n-1].kind == jobIndex && len(l.queue[n-1].paths) > 0 && l.queue[n-1].quiet == j.quiet {
		last := &l.queue[n-1]
		for _, p := range j.paths {
			if !slices.Contains(last.paths, p) {
				last.paths = append(last.paths, p)
			}
		}
	} else {
		l.queue = append(l.queue, j)
	}
	select {
	case l.wake <- struct{}{}:
	default:
	}
	return nil
}

func (l *Library) next(ctx context.Context) (job, context.Context, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.queue) == 0 || l.closed {
		return job{}, nil, false
	}
	j := l.queue[0]
	l.queue = l.queue[1:]
	var jctx context.Context
	jctx, l.cancel = context.WithCancelCause(ctx)
	return j, jctx, true
}

func (l *Library) work(ctx context.Context) {
	defer close(l.done)
	for {
		j, jctx, ok := l.next(ctx)
		if !ok {
			select {
			case <-l.wake:
				continue
			case <-ctx.Done():
				return
			}
		}
		l.run(jctx, j)
		l.mu.Lock()
		l.cancel(nil)
		l.cancel = nil
		l.mu.Unlock()
	}
}

// run performs one job and publishes its progress and final state.
func (l *Library) run(ctx context.Context, j job) {
	start := protocol.IndexProgress{Running: true, Phase: protocol.PhaseScanning, Paths: j.paths}
	if j.kind == jobReembed {
		start.Reembedding = l.idx.Target()
	}
	// A quiet pass speaks from the first progress that has work in it,
	// the start included, so the bar never shows a pass with nothing to do.
	spoke := !j.quiet
	publish := func(p protocol.IndexProgress) {
		if !spoke && p.Total+p.Failed+p.Refused+p.Skipped == 0 {
			return
		}
		if !spoke {
			spoke = true
			l.publish(start)
		}
		l.publish(p)
	}
	if spoke {
		l.publish(start)
	}
	report := func(p rag.Progress) {
		if p.Phase == "done" {
			return // the final state is published below, with the outcome
		}
		publish(fromRag(p, j.paths, true))
	}
	var err error
	last := start
	switch j.kind {
	case jobIndex:
		err = l.idx.Index(ctx, j.paths, func(p rag.Progress) { last = fromRag(p, j.paths, true); report(p) })
	case jobRetry:
		// rag's Retry runs its own pass without a progress callback.
		err = l.idx.Retry(ctx, j.paths[0])
	case jobRemove:
		err = l.idx.Remove(ctx, j.paths[0])
	case jobReembed:
		target := l.idx.Target()
		last.Reembedding = target
		err = l.idx.Reembed(ctx, func(p rag.Progress) {
			last = fromRag(p, nil, true)
			last.Reembedding = target
			if p.Phase != "done" {
				l.publish(last)
			}
		})
		if err != nil && ctx.Err() == nil {
			l.reembedFailed(err)
		}
	}
	final := last
	final.Running, final.Phase, final.CurrentFile, final.ETAMillis = false, protocol.PhaseDone, "", 0
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errCancelled):
		final.Phase = protocol.PhaseCancelled
	case err != nil && errors.Is(cause, ErrClosed):
		final.Phase, final.Error = protocol.PhaseCancelled, ErrClosed.Error()
	case err != nil && errors.Is(err, event.ErrNoSpace):
		final.Phase, final.Error = protocol.PhaseFailed, noSpace
		l.log.Warn("documents: pass failed", "paths", j.paths, "err", err)
	case err != nil && j.kind == jobReembed:
		final.Phase, final.Error = protocol.PhaseFailed, reembedStopped(final.Reembedding, err)
		l.log.Warn("documents: re-embedding stopped", "target", final.Reembedding, "err", err)
	case err != nil:
		final.Phase, final.Error = protocol.PhaseFailed, err.Error()
		l.log.Warn("documents: pass failed", "paths", j.paths, "err", err)
	}
	if final.Phase != protocol.PhaseDone && !spoke {
		spoke = true // a failure or a stop is always said
		l.publish(start)
	}
	publish(final)
}

func fromRag(p rag.Progress, paths []string, running bool) protocol.IndexProgress {
	phase := protocol.PhaseIndexing
	if p.Phase == "scanning" {
		phase = protocol.PhaseScanning
	}
	// Skipped and refused files are found by the scan, before the pass
	// counts anything: said, so a drop of only those does not seem ignored.
	return protocol.IndexProgress{Running: running, Phase: phase, Total: p.Total, Done: p.Done, Failed: p.Failed,
		Refused: p.Refused, Skipped: p.Skipped, CurrentFile: p.CurrentFile, ETAMillis: p.ETA.Milliseconds(), Paths: paths}
}
