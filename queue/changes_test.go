package queue_test

import (
	"fmt"
	"testing"

	"quire/kernel/protocol"
)

// What an applied batch changed is in its review, as the undo's confirm
// lists it: each move (from → to) and each note whose text changed, only
// the approved ones, and nothing once it is undone.
func TestAppliedChangesAreWhatUndoReverts(t *testing.T) {
	w := newWorld(t, 3, fileUnder)
	ctx := t.Context()
	b, err := w.Q.Start(ctx, "inbox")
	if err != nil {
		t.Fatal(err)
	}
	until(t, w.Q, b.ID, protocol.BatchReviewing)
	r, err := w.Q.Get(ctx, b.ID)
	if err != nil || len(r.Changes) != 0 {
		t.Fatalf("before apply: changes %+v, %v", r.Changes, err)
	}
	items := r.Items
	items[0].Selected = false
	items[1].To = "projects/renamed.md"
	if _, err := w.Q.Apply(ctx, b.ID, protocol.BatchDecision{Items: items}); err != nil {
		t.Fatal(err)
	}
	r, err = w.Q.Get(ctx, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprint([]protocol.BatchChange{
		{Kind: protocol.BatchChangeMove, From: "inbox/n01.md", Path: "projects/renamed.md"},
		{Kind: protocol.BatchChangeMove, From: "inbox/n02.md", Path: "projects/n02.md"},
		{Kind: protocol.BatchChangeEdit, Path: "projects/renamed.md"},
		{Kind: protocol.BatchChangeEdit, Path: "projects/n02.md"},
	})
	if got := fmt.Sprint(r.Changes); got != want {
		t.Fatalf("after apply:\n got  %s\n want %s", got, want)
	}
	if _, err := w.Q.Undo(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if r, err = w.Q.Get(ctx, b.ID); err != nil || len(r.Changes) != 0 {
		t.Fatalf("after undo: changes %+v, %v", r.Changes, err)
	}
}
