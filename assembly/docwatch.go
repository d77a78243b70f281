package assembly

import (
	"context"
	"log/slog"
	"os"
	"sync"

	"quire/kernel/protocol"
	"quire/watch"
)

// maxWatchedRoots bounds the document folders watched live: each watch is
// an inotify instance, of which a user has 128 shared by every program.
// The others are still refreshed at each start.
const maxWatchedRoots = 32

// docWatch keeps the dropped document folders (rag's roots) current while
// Quire runs: one watch a folder, and a change in one queues an index pass
// of that folder through the library, so the documents panel shows the
// progress bar the user already knows. The watch debounces; the library
// merges passes that wait behind the running one.
type docWatch struct {
	roots func(ctx context.Context) ([]string, error)
	// add is a pass the panel shows; refresh one that says nothing unless
	// it finds work (library.Refresh), for a change that may be none.
	add, refresh func(ctx context.Context, paths []string) error
	log          *slog.Logger
	opts         []watch.Option
	ctx          context.Context

	mu      sync.Mutex
	watches map[string]*watch.Watcher
	closed  bool
}

func newDocWatch(ctx context.Context, roots func(context.Context) ([]string, error), add, refresh func(context.Context, []string) error,
	log *slog.Logger, opts ...watch.Option) *docWatch {
	return &docWatch{roots: roots, add: add, refresh: refresh, log: log, opts: opts, ctx: ctx, watches: map[string]*watch.Watcher{}}
}

// gone reports whether a path of the batch no longer exists: a document
// removed or renamed leaves the panel's list, which a quiet pass (it
// counts no removal) would not make it read again.
func gone(paths []string) bool {
	for _, p := range paths {
		if _, err := os.Lstat(p); err != nil {
			return true
		}
	}
	return false
}

// follow re-reads the roots after every pass (one may have added or
// removed a folder) until progress closes.
func (d *docWatch) follow(progress <-chan protocol.IndexProgress) {
	d.sync(true)
	for p := range progress {
		if !p.Running {
			// After a pass the user stopped, nothing starts on its own:
			// the rest waits for a change in the folder or the next start,
			// as the bar says.
			d.sync(p.Phase != protocol.PhaseCancelled)
		}
	}
}

// sync watches every folder root not yet watched and stops watching the
// ones gone from the index; catchUp queues one pass of a newly watched
// folder, for what changed between its last pass and the watch's start.
func (d *docWatch) sync(catchUp bool) {
	roots, err := d.roots(d.ctx)
	if err != nil {
		d.log.Warn("documents: cannot list the folders to watch", "err", err)
		return
	}
	want := map[string]bool{}
	for _, r := range roots {
		if info, err := os.Stat(r); err == nil && info.IsDir() {
			want[r] = true // a single dropped file is refreshed at start
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return
	}
	for r, w := range d.watches {
		if !want[r] {
			w.Close()
			delete(d.watches, r)
		}
	}
	for r := range want {
		if d.watches[r] != nil {
			continue
		}
		if len(d.watches) >= maxWatchedRoots {
			d.log.Info("documents: more folders than are watched live; the rest are refreshed at each start", "limit", maxWatchedRoots)
			break
		}
		root := r
		w, err := watch.Start(root, func(b watch.Batch) {
			if b.Rescan {
				d.log.Info("documents: the folder is read again", "root", root, "why", b.Reason)
			}
			pass := d.refresh
			if b.Rescan || gone(b.Paths) {
				pass = d.add
			}
			if err := pass(d.ctx, []string{root}); err != nil && d.ctx.Err() == nil {
				d.log.Warn("documents: cannot queue a pass of a changed folder", "root", root, "err", err)
			}
		}, d.opts...)
		if err != nil {
			d.log.Warn("documents: the folder is not watched; it is refreshed at the next start", "root", root, "err", err)
			continue
		}
		d.watches[root] = w
		// What changed between the pass that added the folder and this
		// watch's start is found by one more pass (nothing to do when
		// nothing did).
		if !catchUp {
			continue
		}
		if err := d.refresh(d.ctx, []string{root}); err != nil && d.ctx.Err() == nil {
			d.log.Warn("documents: cannot queue a pass of a newly watched folder", "root", root, "err", err)
		}
	}
}

func (d *docWatch) close() {
	d.mu.Lock()
	d.closed = true
	ws := d.watches
	d.watches = nil
	d.mu.Unlock()
	for _, w := range ws {
		w.Close()
	}
}
