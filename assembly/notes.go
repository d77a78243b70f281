package assembly

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"quire/kernel/store"
	"quire/kernel/tool"
	"quire/tools/notegraph"
	"quire/tools/notes"
	"quire/vault"
	"quire/vaultindex"
)

// notesTools offers the note tools for the folder the user chose; the folder
// can be set or changed while Quire runs, and later runs see the change.
// With the folder comes its index (vaultindex), kept current by a watch,
// and the tools that read it (notegraph).
type notesTools struct {
	changes *notes.ChangeIndex
	// journals is the data folder's folder for the journals of relinking
	// moves: outside the notes, so none is taken for a note or synced away
	// with them, and read again when a folder opens (a crash's move is
	// rolled back there, logged, and recorded in its conversation).
	journals string
	st       *store.Store
	log      *slog.Logger
	opts     []vaultindex.Option // test knobs (the watch's debounce, updates)

	// pending are the moves a folder's open rolled back before record was
	// set: the runtime records each in the log of the
	// conversation that made it once it runs (recordRecovered).
	pending []notes.Recovery
	record  func([]notes.Recovery)

	mu    sync.Mutex
	root  *notes.Root
	index *vaultindex.Index
	// followers are told every committed write of each index (follow).
	followers []func(*vaultindex.Index, vaultindex.Update)
	// emb is the documents' embedder, which the notes' index uses too
	// (useEmbedder); without one, meaningOff says why.
	emb        vaultindex.Embedder
	meaningOff string
}

// useEmbedder gives the notes' index (the open one, and each one opened
// after) the documents' embedder: nil with why the notes are searched by
// words alone, said once to the model and in the log.
func (n *notesTools) useEmbedder(emb vaultindex.Embedder, why string) {
	n.mu.Lock()
	n.emb, n.meaningOff = emb, why
	x := n.index
	n.mu.Unlock()
	if emb == nil {
		n.log.Info("notes are searched by words only", "why", why)
	}
	if x != nil {
		x.UseMeaning(emb, why)
	}
}

// JournalFolder is the data folder's folder for the journals of moves.
const JournalFolder = "journal"

func newNotesTools(st *store.Store, dataDir string, log *slog.Logger, opts ...vaultindex.Option) *notesTools {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &notesTools{changes: notes.NewChangeIndex(st), journals: filepath.Join(dataDir, JournalFolder), st: st, log: log, opts: opts}
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

// graphWorthFrom is the number of notes from which search_notes, the
// link tools and search_docs' notes are offered to a folder without
// links: below it find_notes reads every note quickly, and each
// declaration takes room in the model's context (a small model's has
// little: a declaration too many leaves out a tool the task needs).
const graphWorthFrom = 50

// with adds the index's tools to ts (n.mu held) when the folder has links
// or enough notes for a ranked search to matter.
func (n *notesTools) with(ts []tool.Tool) []tool.Tool {
	if !n.indexWorth(n.index) {
		return ts
	}
	return append(ts, notegraph.Tools(n.index)...)
}

// indexWorth reports whether x's tools are worth their declarations: the
// folder has links or enough notes for a ranked search to matter.
func (n *notesTools) indexWorth(x *vaultindex.Index) bool {
	if x == nil {
		return false
	}
	if x.Count() >= graphWorthFrom {
		return true
	}
	// The facet has no context: a run's start asks, and SQLite answers
	// from an index in a moment.
	linked, err := x.HasLinks(context.Background())
	if err != nil {
		n.log.Warn("cannot tell whether the notes link; the notes index's tools are offered", "err", err)
		return true
	}
	return linked
}

// searchable is the chosen folder's notes index when search_docs should
// search it too (indexWorth), else nil.
func (n *notesTools) searchable() *vaultindex.Index {
	x := n.Index()
	if !n.indexWorth(x) {
		return nil
	}
	return x
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
	// The notes' vectors come after their words: how far they are is
	// logged, and search_notes says it while notes still wait.
	embedded := vaultindex.WithEmbedProgress(func(done, total int) {
		n.log.Info("notes meaning index", "dir", dir, "embedded", done, "of", total)
	})
	x, err := vaultindex.Open(ctx, n.st.DB(), dir, append([]vaultindex.Option{progress, embedded}, n.opts...)...)
	if err != nil {
		n.log.Warn("the notes index could not be opened; search_notes is off", "dir", dir, "err", err)
		return nil
	}
	n.mu.Lock()
	emb, why := n.emb, n.meaningOff
	followers := slices.Clone(n.followers)
	n.mu.Unlock()
	if emb != nil || why != "" {
		x.UseMeaning(emb, why)
	}
	for _, f := range followers {
		x.Subscribe(func(u vaultindex.Update) { f(x, u) })
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

// follow has f told of every committed write of the notes index, with
// the index it is of: the one open now and each opened after (another
// folder chosen), from before its first scan. Each is closed with its
// index; f must not block.
func (n *notesTools) follow(f func(*vaultindex.Index, vaultindex.Update)) {
	n.mu.Lock()
	n.followers = append(n.followers, f)
	x := n.index
	n.mu.Unlock()
	if x != nil {
		x.Subscribe(func(u vaultindex.Update) { f(x, u) })
	}
}

// chosen reports whether a notes folder is open.
func (n *notesTools) chosen() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.root != nil
}

// ready opens dir ("" turns the tools off) and returns the switch to it,
// for the settings owner (config.Store.OnNotesDir): finish(true) switches,
// finish(false) closes what was opened.
func (n *notesTools) ready(dir string) (func(publish bool), error) {
	var root *notes.Root
	if dir != "" {
		r, err := notes.Open(dir, notes.WithJournal(n.journals), notes.WithLinker(liveLinker{n: n, dir: dir}), notes.WithFinder(liveFinder{n: n, dir: dir}))
		if err != nil {
			return nil, fmt.Errorf("the notes folder %s cannot be used: %w", dir, err)
		}
		for _, rec := range r.Recovered() {
			n.log.Warn("notes: a move a stop interrupted was rolled back", "change", rec.Change, "call", rec.Call, "problems", len(rec.Problems), "outcome", rec.Sentence())
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
		record := n.record
		var recs []notes.Recovery
		if root != nil {
			recs = root.Recovered()
		}
		if record == nil {
			n.pending = append(n.pending, recs...)
		}
		n.mu.Unlock()
		if old != nil {
			old.Close()
		}
		if oldIndex != nil {
			oldIndex.Close()
		}
		if record != nil && len(recs) > 0 {
			record(recs)
		}
	}, nil
}

// recordWith hands what the folders' opens recovered to record, now for
// what was waiting and then as each later open recovers something.
func (n *notesTools) recordWith(record func([]notes.Recovery)) {
	n.mu.Lock()
	n.record = record
	recs := n.pending
	n.pending = nil
	n.mu.Unlock()
	if len(recs) > 0 {
		record(recs)
	}
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

// liveLinker plans a move with the chosen folder's index, whose graph the
// watch keeps current, so a rename of a note with a thousand backlinks
// reads only the notes that link to it. While that graph has not read the
// whole folder (the first index of a large vault, a rescan after lost
// events) or belongs to another folder (a switch under way), it answers
// notes.ErrGraphNotReady and the move is planned from a scan of the folder.
type liveLinker struct {
	n   *notesTools
	dir string // the folder as the settings name it; the index holds it resolved
}

func (l liveLinker) PlanMove(from, to string, read func(string) ([]byte, error)) (vault.Plan, error) {
	x := l.n.Index()
	if x == nil || !x.Synced() || !sameFolder(x.Dir(), l.dir) {
		return vault.Plan{}, notes.ErrGraphNotReady
	}
	return x.PlanMove(from, to, read)
}

// Moved brings the index's graph up to date with a move that just landed,
// before the next one is planned: the watch would tell it only after its
// debounce, and a batch applies its moves back to back.
func (l liveLinker) Moved(paths []string) {
	x := l.n.Index()
	if x == nil || !sameFolder(x.Dir(), l.dir) {
		return
	}
	if err := x.Apply(context.Background(), paths); err != nil {
		l.n.log.Warn("the notes index could not follow a move; the watch will", "err", err)
	}
}

// sameFolder reports whether a and b name one folder, however spelt.
func sameFolder(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// liveFinder answers find_notes from the chosen folder's index once it
// has read the whole folder (as liveLinker plans moves): names from the
// graph, text ranked by the index. Before that, or for another folder,
// it answers notes.ErrIndexNotReady and find_notes reads the files.
type liveFinder struct {
	n   *notesTools
	dir string
}

func (f liveFinder) Find(ctx context.Context, query, in string, limit int) ([]notes.Hit, bool, error) {
	x := f.n.Index()
	if x == nil || !x.Synced() || !sameFolder(x.Dir(), f.dir) {
		return nil, false, notes.ErrIndexNotReady
	}
	var hits []notes.Hit
	more := false
	if in != "content" {
		names, over := x.Names(query, limit)
		for _, p := range names {
			hits = append(hits, notes.Hit{Path: p})
		}
		more = over
	}
	if in != "name" && len(hits) < limit {
		found, err := x.Search(ctx, vaultindex.Query{Text: query, Limit: limit - len(hits) + 1})
		if err != nil {
			return nil, false, err
		}
		if len(found) > limit-len(hits) {
			found, more = found[:limit-len(hits)], true
		}
		for _, h := range found {
			text := h.Snippet
			if h.Line == 0 {
				text = h.Title
			}
			hits = append(hits, notes.Hit{Path: h.Path, Line: h.Line, Text: text})
		}
	} else if in != "name" {
		more = true // the names filled the answer; the text was not asked
	}
	return hits, more, nil
}
