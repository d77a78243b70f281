package window

import (
	"context"
	"fmt"
	"strings"

	"quire/host"
	"quire/kernel/protocol"
)

// Batches: "organise a folder" as a queue of small tasks, its progress and
// its one review. The page shows the whole review list and its own confirm;
// the yes itself (Apply, and Undo) is a native dialog here, as a permission
// question is: the page shows text the workers wrote from the notes, and a
// dialog is what none of that can click. The dialog lists what Go will
// apply — the decision it was given, not words the page made.

// eventBatch carries a protocol.BatchProgress whenever a batch changes
// (docs/PROTOCOL.md), in order per batch.
const eventBatch = "quire:batch"

// startBatches runs with the window: it forwards every batch's progress.
func (h *Host) startBatches(ctx context.Context) {
	if h.batches == nil {
		return
	}
	go func() {
		for p := range h.batches.Watch(ctx) {
			h.emit(ctx, eventBatch, p)
		}
	}()
}

func (h *Host) batchesPort() (host.Batches, error) { return partOf(h, h.batches, errNoBatches) }

// ApplyBatch is the user's one yes for a batch: a native dialog lists what
// d approves (every selected item: the move, its tags and links), and only
// its Yes applies them, as one change. A No changes nothing and returns
// the batch as it is (still reviewing).
func (h *Host) ApplyBatch(id string, d protocol.BatchDecision) (protocol.Batch, error) {
	b, err := h.batchesPort()
	if err != nil {
		return protocol.Batch{}, err
	}
	var lines []string
	for _, it := range d.Items {
		if it.Selected {
			lines = append(lines, itemLine(it))
		}
	}
	title := "Apply this change to your notes?"
	if len(lines) != 1 {
		title = fmt.Sprintf("Apply these %s to your notes?", count(len(lines), "change", "changes"))
	}
	text := batchText("Quire will make these changes as one batch; Undo this batch reverts all of them.", lines,
		"Yes applies them all; No changes nothing.")
	yes, err := h.confirm(title, text)
	if err != nil || !yes {
		return h.unchanged(b, id, err)
	}
	batch, err := b.Apply(h.callCtx(), id, d)
	return batch, host.Spoken(err)
}

// UndoBatch reverts an applied batch, as one, after a native dialog lists
// what it reverses (the changes the queue recorded). A No changes nothing and returns the batch as it is.
func (h *Host) UndoBatch(id string) (protocol.Batch, error) {
	b, err := h.batchesPort()
	if err != nil {
		return protocol.Batch{}, err
	}
	r, err := b.Get(h.callCtx(), id)
	if err != nil {
		return protocol.Batch{}, err
	}
	var lines []string
	for _, c := range r.Changes {
		lines = append(lines, changeLine(c))
	}
	title := fmt.Sprintf("Undo this batch (%s)?", count(len(lines), "change", "changes"))
	text := batchText("Quire will put these notes back as they were before the batch:", lines, "Yes undoes them all; No changes nothing.")
	yes, err := h.confirm(title, text)
	if err != nil || !yes {
		return h.unchanged(b, id, err)
	}
	batch, err := b.Undo(h.callCtx(), id)
	return batch, host.Spoken(err)
}

// unchanged is a batch the user said No to (or could not be asked about).
func (h *Host) unchanged(b host.Batches, id string, asked error) (protocol.Batch, error) {
	if asked != nil {
		return protocol.Batch{}, asked
	}
	r, err := b.Get(h.callCtx(), id)
	return r.Batch, err
}

// itemLine is one review item in words, every invisible character
// escaped: "inbox/a.md → projects/a.md · tags: idea".
func itemLine(it protocol.ReviewItem) string {
	to := it.To
	if to == "" {
		to = it.From
	}
	parts := []string{host.Visible(it.From) + " → " + host.Visible(to)}
	if to == it.From {
		parts[0] = host.Visible(it.From) + " (stays)"
	}
	if len(it.Tags) > 0 {
		parts = append(parts, "tags: "+host.Visible(strings.Join(it.Tags, ", ")))
	}
	if len(it.Links) > 0 {
		parts = append(parts, "links: "+host.Visible(strings.Join(it.Links, ", ")))
	}
	return strings.Join(parts, " · ")
}

// changeLine is what undoing one change of a batch does, in words.
func changeLine(c protocol.BatchChange) string {
	if c.Kind == protocol.BatchChangeMove {
		return host.Visible(c.Path) + " → " + host.Visible(c.From)
	}
	return host.Visible(c.Path) + ": its tags and links as before"
}
