// Package watch owns watching folders: a recursive fsnotify watch of one
// folder, whose changes are delivered as debounced batches of paths, and a
// "rescan everything" signal when the operating system lost events
// (overflow), fsnotify erred, or the folder has more subfolders than the
// watch may hold.
//
// Delivery: batches reach the callback one at a time, in the order the
// changes were seen, from one goroutine the watcher owns; a callback that
// is slow makes later changes coalesce into the next batch, never drop.
// Hidden names (every name starting with '.': .obsidian, .trash, .git) are
// never watched nor reported; symbolic links are not followed.
//
// It imports the standard library and fsnotify only: never SQLite, the
// kernel, tools or hosts.
package watch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Batch is one delivery.
type Batch struct {
	// Paths changed (created, written, removed or renamed), absolute, each
	// once, in the order first seen. A new folder's files are listed.
	Paths []string
	// Rescan: events may have been lost; reconcile the whole folder.
	Rescan bool
	// Reason says why Rescan is set, as a sentence.
	Reason string
}

// DefaultMaxFolders bounds the folders one watch holds (each costs an
// inotify watch, a kernel resource shared by the user's programs).
const DefaultMaxFolders = 8192

// DefaultDebounce is how long the watch waits after the last change
// before it delivers: editors write a file in several steps, and a note
// saved elsewhere must still be searchable well within a second.
const DefaultDebounce = 150 * time.Millisecond

type config struct {
	debounce   time.Duration
	after      func(time.Duration) <-chan time.Time
	maxFolders int
}

// Option configures a watch.
type Option func(*config)

// WithDebounce sets the quiet time before a batch is delivered.
func WithDebounce(d time.Duration) Option { return func(c *config) { c.debounce = d } }

// WithTimer replaces time.After for the debounce, so a test decides when a
// batch is due.
func WithTimer(after func(time.Duration) <-chan time.Time) Option {
	return func(c *config) { c.after = after }
}

// WithMaxFolders bounds the folders watched; over it the watch says so
// with a Rescan batch and the rest is found by rescans on demand.
func WithMaxFolders(n int) Option { return func(c *config) { c.maxFolders = n } }

// Watcher watches one folder until Close.
type Watcher struct {
	root    string
	cfg     config
	fsw     *fsnotify.Watcher
	deliver func(Batch)

	folders map[string]bool // watched; only the event loop touches it
	limited string          // why not every folder is watched ("" = all are)

	mu     sync.Mutex
	outbox []Batch
	wake   chan struct{}

	done   chan struct{}
	closed sync.Once
	wg     sync.WaitGroup
}

// Start watches root (and every folder below it) and calls deliver with
// each batch until Close.
func Start(root string, deliver func(Batch), opts ...Option) (*Watcher, error) {
	cfg := config{debounce: DefaultDebounce, after: time.After, maxFolders: DefaultMaxFolders}
	for _, o := range opts {
		o(&cfg)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("watch %s: %w", abs, ErrNotFolder)
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", abs, err)
	}
	w := &Watcher{root: abs, cfg: cfg, fsw: fsw, deliver: deliver, folders: map[string]bool{},
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	if _, err := w.addTree(abs); err != nil {
		fsw.Close()
		return nil, fmt.Errorf("watch %s: %w", abs, err)
	}
	w.wg.Add(2)
	go w.loop()
	go w.deliverLoop()
	if w.limited != "" {
		w.push(Batch{Rescan: true, Reason: w.limited})
	}
	return w, nil
}

// Root is the absolute folder watched.
func (w *Watcher) Root() string { return w.root }

// Close stops the watch; no batch is delivered after it returns.
func (w *Watcher) Close() error {
	var err error
	w.closed.Do(func() {
		close(w.done)
		err = w.fsw.Close()
		w.wg.Wait()
	})
	return err
}

// Hidden reports whether rel (slash or OS separated, relative to a watched
// folder) has a hidden name in it.
func Hidden(rel string) bool {
	for _, part := range strings.FieldsFunc(rel, func(r rune) bool { return r == '/' || r == filepath.Separator }) {
		if strings.HasPrefix(part, ".") && part != "." {
			return true
		}
	}
	return false
}

func (w *Watcher) hidden(abs string) bool {
	rel, err := filepath.Rel(w.root, abs)
	return err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || Hidden(rel)
}

// addTree watches dir and the folders below it, and returns the files it
// found (a new folder's files were written before its watch existed).
func (w *Watcher) addTree(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // a folder gone or unreadable meanwhile: the rest still counts
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() { // WalkDir never follows a symbolic link to a folder
			if d.Type().IsRegular() {
				files = append(files, p)
			}
			return nil
		}
		if w.folders[p] {
			return nil
		}
		if len(w.folders) >= w.cfg.maxFolders {
			w.limited = fmt.Sprintf("The folder %s has more than %d folders; only %d are watched live, and changes elsewhere are found by a rescan.",
				w.root, w.cfg.maxFolders, w.cfg.maxFolders)
			return filepath.SkipAll
		}
		if err := w.fsw.Add(p); err != nil {
			if p == dir {
				return err
			}
			return nil
		}
		w.folders[p] = true
		return nil
	})
	return files, err
}

func (w *Watcher) loop() {
	defer w.wg.Done()
	var (
		pending []string
		seen    = map[string]bool{}
		rescan  string
		due     <-chan time.Time
	)
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			pending = append(pending, p)
		}
		due = w.cfg.after(w.cfg.debounce)
	}
	for {
		select {
		case <-w.done:
			return
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			if ev.Name == "" || w.hidden(ev.Name) || ev.Op == fsnotify.Chmod {
				continue
			}
			if ev.Has(fsnotify.Create) {
				if info, err := os.Lstat(ev.Name); err == nil && info.IsDir() {
					wasLimited := w.limited != ""
					files, _ := w.addTree(ev.Name)
					for _, f := range files {
						add(f)
					}
					if !wasLimited && w.limited != "" {
						rescan = w.limited
					}
				}
			}
			if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
				w.forget(ev.Name)
			}
			add(ev.Name)
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				rescan = "Too many changes at once for the live watch; the folder is read again."
			} else {
				rescan = fmt.Sprintf("The live watch erred (%v); the folder is read again.", err)
			}
			due = w.cfg.after(w.cfg.debounce)
		case <-due:
			due = nil
			w.push(Batch{Paths: pending, Rescan: rescan != "", Reason: rescan})
			pending, seen, rescan = nil, map[string]bool{}, ""
		}
	}
}

// forget drops the watches of a folder that is gone or moved (a moved
// folder's new name comes as a Create and is watched again).
func (w *Watcher) forget(p string) {
	prefix := p + string(filepath.Separator)
	for f := range w.folders {
		if f == p || strings.HasPrefix(f, prefix) {
			delete(w.folders, f)
			_ = w.fsw.Remove(f) // already gone with the folder, most often
		}
	}
	if w.limited != "" && len(w.folders) < w.cfg.maxFolders {
		w.limited = "" // room again; the next new folder is watched
	}
}

// push queues b for delivery; batches still waiting merge in order.
func (w *Watcher) push(b Batch) {
	w.mu.Lock()
	if n := len(w.outbox); n > 0 {
		last := &w.outbox[n-1]
		have := make(map[string]bool, len(last.Paths))
		for _, p := range last.Paths {
			have[p] = true
		}
		for _, p := range b.Paths {
			if !have[p] {
				last.Paths = append(last.Paths, p)
			}
		}
		if b.Rescan {
			last.Rescan, last.Reason = true, b.Reason
		}
	} else {
		w.outbox = append(w.outbox, b)
	}
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *Watcher) deliverLoop() {
	defer w.wg.Done()
	for {
		select {
		case <-w.done:
			return
		case <-w.wake:
		}
		for {
			w.mu.Lock()
			if len(w.outbox) == 0 {
				w.mu.Unlock()
				break
			}
			b := w.outbox[0]
			w.outbox = w.outbox[1:]
			w.mu.Unlock()
			select {
			case <-w.done:
				return
			default:
			}
			w.deliver(b)
		}
	}
}
