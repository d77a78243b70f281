package queue_test

import (
	"strings"
	"testing"

	"quire/kernel/protocol"
	"quire/queue"
)

// TestOrderNamesItsBatchBoundsItsNotesAndInstructsItsWorkers: a batch a
// standing task orders has the id it chose, takes at most MaxNotes notes,
// gives every worker the instruction, and waits for the review like any.
func TestOrderNamesItsBatchBoundsItsNotesAndInstructsItsWorkers(t *testing.T) {
	w := newWorld(t, 5, fileUnder)
	b, err := w.Q.StartOrder(t.Context(), queue.Order{ID: "batch_chosen", Folder: "inbox", Instruction: "receipts go under finance", MaxNotes: 3})
	if err != nil {
		t.Fatal(err)
	}
	if b.ID != "batch_chosen" || b.Total != 3 {
		t.Fatalf("ordered batch %+v, want id batch_chosen with 3 notes", b)
	}
	until(t, w.Q, b.ID, protocol.BatchReviewing)
	r, err := w.Q.Get(t.Context(), b.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range r.Tasks {
		evs, err := w.K.Store.Events(t.Context(), task.Session, 0)
		if err != nil {
			t.Fatal(err)
		}
		told := false
		for _, e := range evs {
			if strings.Contains(string(e.Payload), "receipts go under finance") {
				told = true
			}
		}
		if !told {
			t.Errorf("the worker of %s was not given the instruction", task.Note)
		}
	}
	if _, err := w.Q.StartOrder(t.Context(), queue.Order{ID: "batch_chosen", Folder: "inbox"}); err == nil {
		t.Fatal("a second batch with the same id was made")
	}
}
