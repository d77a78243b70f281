package assembly

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"quire/kernel/protocol"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

// "Changes by Quire" lists every approved write: an applied batch's moves
// are the queue's own record, so the list shows the batch as one entry
// (what it moved, from → to), and, once undone as one, as undone with
// nothing standing. A batch not applied is not a change.
func TestChangesListAppliedBatches(t *testing.T) {
	fake := ollamatest.New(t, ollamatest.WithResponder(isolationModel))
	fake.AddModel(ollamatest.DefaultModel())
	notesDir := t.TempDir()
	for i := range 2 {
		testkit.WriteOld(t, filepath.Join(notesDir, "inbox", fmt.Sprintf("i%d.md", i)), "# inbox note\n")
	}
	p := batchOwner(t, fake, notesDir)
	ctx := t.Context()
	batches, notesPort := p.Batches(), p.Notes()
	listed := func(when string) []protocol.AppliedBatch {
		t.Helper()
		l, err := notesPort.Changes(ctx)
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		return l.Batches
	}

	b, err := batches.Start(ctx, "inbox")
	if err != nil {
		t.Fatal(err)
	}
	waitReviewing(t, batches, b.ID)
	if got := listed("reviewing"); len(got) != 0 {
		t.Fatalf("a batch under review is listed as a change: %+v", got)
	}
	r, err := batches.Get(ctx, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := batches.Apply(ctx, b.ID, protocol.BatchDecision{Items: r.Items}); err != nil {
		t.Fatal(err)
	}
	got := listed("applied")
	if len(got) != 1 || got[0].Batch.ID != b.ID || got[0].Batch.State != protocol.BatchDone {
		t.Fatalf("applied: listed %+v", got)
	}
	var moves []string
	for _, c := range got[0].Changes {
		if c.Kind == protocol.BatchChangeMove {
			moves = append(moves, c.From+" → "+c.Path)
		}
	}
	slices.Sort(moves)
	if want := []string{"inbox/i0.md → projects/i0.md", "inbox/i1.md → projects/i1.md"}; !slices.Equal(moves, want) {
		t.Fatalf("the batch's moves listed %v, want %v", moves, want)
	}

	if _, err := batches.Undo(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	got = listed("undone")
	if len(got) != 1 || got[0].Batch.State != protocol.BatchUndone || len(got[0].Changes) != 0 {
		t.Fatalf("undone: listed %+v", got)
	}
}
