package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"quire/kernel/store"
	"quire/kernel/tool"
	"quire/tools/notegraph"
	"quire/tools/notes"
	"quire/vaultindex"
)

// notesTools offers the note tools for the folder the user chose; the folder
// can be set or changed while Quire runs, and later runs see the change.
// With the folder comes its index (vaultindex), kept current by a watch,
// and the tools that read it (notegraph).
type notesTools struct {
	changes *notes.ChangeIndex
	st      *store.Store
	log     *slog.Logger
	opts    []vaultindex.Option // test knobs (the watch's debounce, updates)

	mu    sync.Mutex
	root  *notes.Root
	index *vaultindex.Index
}

func newNotesTools(st *store.Store, log *slog.Logger, opts ...vaultindex.Option) *notesTools {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &notesTools{changes: notes.NewChangeIndex(st), st: st, log: log, opts: opts}
}

// Tools is the runtime's ToolProvider facet.
func (n *notesTools) Tools() []tool.Tool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.root == nil {
		return nil
	}
	return n.with(notes.Tools(n.root, n.changes))
}

// graphWorthFrom is the number of notes from which search_notes and the
// link tools are offered to a folder without links: below it find_notes
// reads every note quickly, and each declaration takes room in the
// model's context (a small model's has little).
const graphWorthFrom = 50

// with adds the index's tools to ts (n.mu held) when the folder has links
// or enough notes for a ranked search to matter.
func (n *notesTools) with(ts []tool.Tool) []tool.Tool {
	if n.index == nil {
		return ts
	}
	if n.index.Count() < graphWorthFrom {
		// The facet has no context: a run's start asks, and SQLite
		// answers from an index in a moment.
		linked, err := n.index.HasLinks(context.Background())
		if err != nil {
			n.log.Warn("cannot tell whether the notes link; the notes index's tools are offered", "err", err)
			linked = true
		}
		if !linked {
			return ts
		}
	}
	return append(ts, notegraph.Tools(n.index)...)
}

// Index is the chosen folder's notes index, or nil.
func (n *notesTools) Index() *vaultindex.Index {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.index
}

// openIndex opens dir's index from the tables (no file read), then
// reconciles it with the folder and watches it in the background: the
// first index of a large vault takes a while, and the tools answer from
// what is indexed meanwhile. Without an index the note tools still work.
func (n *notesTools) openIndex(dir string) *vaultindex.Index {
	if n.st == nil {
		return nil
	}
	ctx := context.Background()
	// The first index of a large vault takes a while: its count is logged
	// (the tools answer from what is indexed meanwhile).
	progress := vaultindex.WithProgress(func(done, total int) {
		if done == total || done%5000 < 256 {
			n.log.Info("notes index", "dir", dir, "read", done, "of", total)
		}
	})
	x, err := vaultindex.Open(ctx, n.st.DB(), dir, append([]vaultindex.Option{progress}, n.opts...)...)
	if err != nil {
		n.log.Warn("the notes index could not be opened; search_notes is off", "dir", dir, "err", err)
		return nil
	}
	go func() {
		watchErr, syncErr := x.Run()
		if errors.Is(watchErr, vaultindex.ErrClosed) || errors.Is(syncErr, context.Canceled) {
			return // the folder changed again meanwhile
		}
		if watchErr != nil {
			n.log.Warn("the notes folder is not watched; changes made elsewhere are found at the next start", "err", watchErr)
		}
		if syncErr != nil {
			n.log.Warn("the notes index could not be brought up to date", "dir", dir, "err", syncErr)
		}
	}()
	return x
}

// ready opens dir ("" turns the tools off) and returns the switch to it,
// for the settings owner (config.Store.OnNotesDir): finish(true) switches,
// finish(false) closes what was opened.
func (n *notesTools) ready(dir string) (func(publish bool), error) {
	var root *notes.Root
	if dir != "" {
		r, err := notes.Open(dir)
		if err != nil {
			return nil, fmt.Errorf("the notes folder %s cannot be used: %w", dir, err)
		}
		root = r
	}
	return func(publish bool) {
		if !publish {
			if root != nil {
				root.Close()
			}
			return
		}
		var index *vaultindex.Index
		if root != nil {
			index = n.openIndex(root.Dir())
		}
		n.mu.Lock()
		old, oldIndex := n.root, n.index
		n.root, n.index = root, index
		n.mu.Unlock()
		if old != nil {
			old.Close()
		}
		if oldIndex != nil {
			oldIndex.Close()
		}
	}, nil
}

// SetDir points the tools at dir at once (the folder the settings start with).
func (n *notesTools) SetDir(dir string) error {
	finish, err := n.ready(dir)
	if err != nil {
		return err
	}
	finish(true)
	return nil
}

func (n *notesTools) Close() { n.SetDir("") }

// toolsWith are the note tools for the chosen folder with log as their
// undo's change log (the task queue's own, for a batch's changes); none
// while no folder is chosen.
func (n *notesTools) toolsWith(log notes.ChangeLog) []tool.Tool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.root == nil {
		return nil
	}
	return n.with(notes.Tools(n.root, log))
}

// resolve is the chosen folder's confinement check.
func (n *notesTools) resolve(rel string) (string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.root == nil {
		return "", errNoNotesFolder
	}
	return n.root.Resolve(rel)
}
