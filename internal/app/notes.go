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

// ready opens dir ("" turns the tools off) and returns the switch to it,
// for the settings owner (config.Store.OnNotesDir).
func (n *notesTools) ready(dir string) (func(), error) {
	var root *notes.Root
	if dir != "" {
		r, err := notes.Open(dir)
		if err != nil {
			return nil, fmt.Errorf("the notes folder %s cannot be used: %w", dir, err)
		}
		root = r
	}
	return func() {
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
	publish, err := n.ready(dir)
	if err != nil {
		return err
	}
	publish()
	return nil
}

func (n *notesTools) Close() { n.SetDir("") }
