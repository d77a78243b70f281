package app

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"

	"quire/kernel/store"
	"quire/kernel/tool"
	"quire/tools/notes"
)

// notesTools offers the note tools for the folder the user chose; the folder
// can be set or changed while Quire runs, and later runs see the change.
type notesTools struct {
	changes *notes.ChangeIndex
	// journals is the data folder's folder for the journals of relinking
	// moves: outside the notes, so none is taken for a note or synced away
	// with them, and read again when a folder opens (a crash's move is
	// rolled back there, logged, and recorded in its conversation).
	journals string
	log      *slog.Logger

	// pending are the moves a folder's open rolled back before record was
	// set: the runtime records each in the log of the
	// conversation that made it once it runs (recordRecovered).
	pending []notes.Recovery
	record  func([]notes.Recovery)

	mu   sync.Mutex
	root *notes.Root
}

// JournalFolder is the data folder's folder for the journals of moves.
const JournalFolder = "journal"

func newNotesTools(st *store.Store, dataDir string, log *slog.Logger) *notesTools {
	return &notesTools{changes: notes.NewChangeIndex(st), journals: filepath.Join(dataDir, JournalFolder), log: log}
}

// Tools is the runtime's ToolProvider facet.
func (n *notesTools) Tools() []tool.Tool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.root == nil {
		return nil
	}
	return notes.Tools(n.root, n.changes)
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
		r, err := notes.Open(dir, notes.WithJournal(n.journals))
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
		n.mu.Lock()
		old := n.root
		n.root = root
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
	return notes.Tools(n.root, log)
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
