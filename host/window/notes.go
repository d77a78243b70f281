package window

import (
	"context"
	"fmt"

	"quire/host"
	"quire/kernel/protocol"
)

// The notes panel's undos, each asked in a native dialog first (its other
// calls are operations, Op).

// withNotes calls f on the notes panel's backend once the page greeted.
func withNotes[T any](h *Host, f func(n host.Notes, ctx context.Context) (T, error)) (T, error) {
	var none T
	if err := h.ready(); err != nil {
		return none, err
	}
	if h.notes == nil {
		return none, errNoNotesHere
	}
	return f(h.notes, h.callCtx())
}

// UndoChange reverts one change. The page's confirmation showed its exact
// reverse; the yes is a native dialog, as for every other change to the
// notes in the window (the page shows text from the notes, so its own
// button is not the user's yes: ApplyBatch). A No undoes nothing and says so.
func (h *Host) UndoChange(id string) (protocol.UndoOutcome, error) {
	return withNotes(h, func(n host.Notes, ctx context.Context) (protocol.UndoOutcome, error) {
		return h.askUndo(ctx, n, []string{id}, func() (protocol.UndoOutcome, error) { return n.Undo(ctx, id) })
	})
}

// UndoConversation reverts a conversation's changes, exactly ids (what the
// confirmation listed), newest first, stopping at the first refusal, after
// one native dialog listing them.
func (h *Host) UndoConversation(session string, ids []string) (protocol.UndoOutcome, error) {
	return withNotes(h, func(n host.Notes, ctx context.Context) (protocol.UndoOutcome, error) {
		return h.askUndo(ctx, n, ids, func() (protocol.UndoOutcome, error) { return n.UndoAll(ctx, session, ids) })
	})
}

// askUndo asks, in one native dialog, whether to undo the changes ids
// (each in words: what comes back where), and runs undo on a Yes.
func (h *Host) askUndo(ctx context.Context, n host.Notes, ids []string, undo func() (protocol.UndoOutcome, error)) (protocol.UndoOutcome, error) {
	if len(ids) == 0 {
		return undo()
	}
	list, err := n.Changes(ctx)
	if err != nil {
		return protocol.UndoOutcome{}, err
	}
	byID := map[string]protocol.ChangeRecord{}
	for _, c := range list.Changes {
		byID[c.ID] = c
	}
	lines := make([]string, 0, len(ids))
	for _, id := range ids {
		lines = append(lines, undoLine(id, byID[id]))
	}
	title := "Undo this change?"
	if len(ids) > 1 {
		title = fmt.Sprintf("Undo these %s?", count(len(ids), "change", "changes"))
	}
	text := batchText("Quire will put back, newest first (the window shows each change's exact reverse):", lines, "Yes undoes them; No changes nothing.")
	yes, err := h.confirm(title, text)
	if err != nil {
		return protocol.UndoOutcome{}, err
	}
	if !yes {
		first := byID[ids[0]]
		return protocol.UndoOutcome{Refused: &protocol.UndoRefusal{ID: ids[0], Path: first.Path, Reason: "You said No: nothing was undone."}}, nil
	}
	return undo()
}

// undoLine is one change's undo in words, every invisible character escaped.
func undoLine(id string, c protocol.ChangeRecord) string {
	switch {
	case c.ID == "":
		return host.Visible(id) + " (no longer listed: Quire will refuse it)"
	case c.From != "":
		return host.Visible(c.Path) + " → back to " + host.Visible(c.From)
	default:
		return host.Visible(c.Path) + ": as it was before this change (" + host.Visible(c.Tool) + ")"
	}
}
