package queue

import (
	"context"

	"quire/kernel/protocol"
	"quire/tools/notes"
)

// appliedChanges are the changes of an applied batch that no undo has
// reverted, oldest first, as the undo's confirm lists them: moves (with the
// notes whose links each rewrote), and edits of a note's text (one per note).
func (q *Queue) appliedChanges(ctx context.Context, id string) ([]protocol.BatchChange, error) {
	applied, err := q.t.changes(ctx, id, false)
	if err != nil {
		return nil, err
	}
	undone, err := q.t.changes(ctx, id, true)
	if err != nil {
		return nil, err
	}
	reverted := map[string]bool{}
	for _, c := range undone {
		reverted[c.Undoes] = true
	}
	out := []protocol.BatchChange{}
	edited := map[string]bool{}
	for _, c := range applied {
		switch {
		case reverted[c.ID]:
		case c.Kind == notes.KindMove:
			out = append(out, protocol.BatchChange{Kind: protocol.BatchChangeMove, Path: c.Path, From: c.From})
			// The notes whose links it rewrote: the undo gives them back too.
			for _, e := range c.Edits {
				if !edited[e.NewPath] {
					edited[e.NewPath] = true
					out = append(out, protocol.BatchChange{Kind: protocol.BatchChangeEdit, Path: e.NewPath})
				}
			}
		case !edited[c.Path]:
			edited[c.Path] = true
			out = append(out, protocol.BatchChange{Kind: protocol.BatchChangeEdit, Path: c.Path})
		}
	}
	return out, nil
}
