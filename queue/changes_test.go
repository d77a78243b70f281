package queue_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// A batch's moves keep the links to the notes they move: a note outside
// the batch that links to them is rewritten as part of the apply, listed
// among the changes, and the batch's one undo gives every file back byte
// for byte.
func TestAppliedMovesKeepLinksAndUndoGivesEveryFileBack(t *testing.T) {
	w := newWorld(t, 3, fileUnder)
	ctx := t.Context()
	index := filepath.Join(w.Dir, "index.md")
	text := "# Index\n\n- [[n01]]\n- [two](inbox/n02.md)\n- [[n00]] stays\n"
	if err := os.WriteFile(index, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	before := tree(t, w.Dir)
	b, r := reviewing(t, w)
	items := r.Items
	items[0].Selected = false
	items[1].To = "projects/renamed.md"
	if _, err := w.Q.Apply(ctx, b.ID, protocol.BatchDecision{Items: items}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(index)
	if want := "# Index\n\n- [[renamed]]\n- [two](projects/n02.md)\n- [[n00]] stays\n"; string(got) != want {
		t.Fatalf("index.md after the batch:\n%s\nwant\n%s", got, want)
	}
	r, err := w.Q.Get(ctx, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(r.Changes, protocol.BatchChange{Kind: protocol.BatchChangeEdit, Path: "index.md"}) {
		t.Fatalf("the changes do not list index.md: %+v", r.Changes)
	}
	if _, err := w.Q.Undo(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if got := tree(t, w.Dir); got != before {
		t.Fatalf("after the undo:\n%s\nwant\n%s", got, before)
	}
}

// tree is every visible file under dir with its bytes.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	for _, f := range files(t, dir) {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s=%s\n", f, data)
	}
	return b.String()
}
