package app

import (
	"fmt"
	"sync"

	"quire/kernel/store"
	"quire/kernel/tool"
	"quire/tools/notes"
)

// notesTools offers the note tools for the folder the user chose; the folder
// can be set or changed while Quire runs, and later runs see the change.
type notesTools struct {
	changes *notes.ChangeIndex

	mu   sync.Mutex
	root *notes.Root
}

func newNotesTools(st *store.Store) *notesTools {
	return &notesTools{changes: notes.NewChangeIndex(st)}
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
		n.mu.Lock()
		old := n.root
		n.root = root
		n.mu.Unlock()
		if old != nil {
			old.Close()
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
