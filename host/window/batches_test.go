package window

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"quire/host"
	"quire/kernel/protocol"
)

// batchDesk is the task queue's port as the window reaches it, holding one
// batch in review: the window's part (the native dialog, the decision it
// passes on) is what these tests check; the queue itself is tested in its
// own package and in the browser and desktop suites.
type batchDesk struct {
	host.Batches // any method the test does not hold fails loudly (nil)
	mu           sync.Mutex
	review       protocol.BatchReview
	applied      []protocol.BatchDecision
	undone       int
	progress     chan protocol.BatchProgress
}

func (d *batchDesk) Get(context.Context, string) (protocol.BatchReview, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.review, nil
}

func (d *batchDesk) Apply(_ context.Context, _ string, dec protocol.BatchDecision) (protocol.Batch, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.applied = append(d.applied, dec)
	d.review.Batch.State = protocol.BatchDone
	for _, it := range dec.Items {
		if it.Selected && it.To != it.From {
			d.review.Changes = append(d.review.Changes, protocol.BatchChange{Kind: protocol.BatchChangeMove, From: it.From, Path: it.To})
		}
		if it.Selected && len(it.Tags)+len(it.Links) > 0 {
			d.review.Changes = append(d.review.Changes, protocol.BatchChange{Kind: protocol.BatchChangeEdit, Path: it.To})
		}
	}
	return d.review.Batch, nil
}

func (d *batchDesk) Undo(context.Context, string) (protocol.Batch, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.undone++
	d.review.Batch.State = protocol.BatchUndone
	return d.review.Batch, nil
}

func (d *batchDesk) Watch(ctx context.Context) <-chan protocol.BatchProgress { return d.progress }

func reviewItem(n int, selected bool) protocol.ReviewItem {
	return protocol.ReviewItem{Task: fmt.Sprintf("t%d", n), From: fmt.Sprintf("inbox/n%02d.md", n), To: fmt.Sprintf("projects/n%02d.md", n),
		Tags: []string{"idea"}, Reason: "a project", Selected: selected}
}

// batchApp is a window that has shaken hands, is up, and holds desk.
func batchApp(t *testing.T, desk *batchDesk) (*Host, *window, *[]string) {
	t.Helper()
	a, _, w := newTestApp(t, "")
	a.batches = desk
	if _, err := a.Handshake(protocol.Version); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	a.window.Store(&ctx)
	var asked []string
	a.dialog = func(_ context.Context, title, message string) (bool, error) {
		asked = append(asked, title+"\n"+message)
		return false, nil
	}
	return a, w, &asked
}

// The yes of a batch is a native dialog, as a permission question's is:
// the page cannot apply by itself. The dialog lists what Go applies — the
// decision it was handed, ticked items only — and a No applies nothing.
func TestBatchApplyIsAskedInANativeDialogListingWhatIsApplied(t *testing.T) {
	desk := &batchDesk{review: protocol.BatchReview{Batch: protocol.Batch{ID: "b1", State: protocol.BatchReviewing}}}
	a, _, asked := batchApp(t, desk)
	dec := protocol.BatchDecision{Items: []protocol.ReviewItem{reviewItem(1, true), reviewItem(2, false), reviewItem(3, true)}}
	dec.Items[2].To, dec.Items[2].Tags, dec.Items[2].Links = "inbox/n03.md", nil, []string{"projects/n01.md"}

	b, err := a.ApplyBatch("b1", dec)
	if err != nil || b.State != protocol.BatchReviewing || len(desk.applied) != 0 {
		t.Fatalf("a No: %+v, %v; applied %v", b, err, desk.applied)
	}
	if len(*asked) != 1 {
		t.Fatalf("%d dialogs for one apply", len(*asked))
	}
	text := (*asked)[0]
	for _, want := range []string{"Apply these 2 changes to your notes?", "• inbox/n01.md → projects/n01.md · tags: idea", "• inbox/n03.md (stays) · links: projects/n01.md", "No changes nothing"} {
		if !strings.Contains(text, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "n02") {
		t.Errorf("the dialog lists an unticked item:\n%s", text)
	}

	a.dialog = func(context.Context, string, string) (bool, error) { return true, nil }
	b, err = a.ApplyBatch("b1", dec)
	if err != nil || b.State != protocol.BatchDone || len(desk.applied) != 1 {
		t.Fatalf("a Yes: %+v, %v; applied %d times", b, err, len(desk.applied))
	}
	if got := desk.applied[0]; len(got.Items) != 3 || got.Items[1].Selected || got.Items[2].To != "inbox/n03.md" {
		t.Errorf("the queue was handed %+v, not the decision the dialog listed", got)
	}

	// Undo lists what it reverses; a No undoes nothing, a Yes undoes once.
	a.dialog = func(_ context.Context, title, message string) (bool, error) {
		*asked = append(*asked, title+"\n"+message)
		return false, nil
	}
	if b, err := a.UndoBatch("b1"); err != nil || b.State != protocol.BatchDone || desk.undone != 0 {
		t.Fatalf("an undo's No: %+v, %v, undone %d", b, err, desk.undone)
	}
	undo := (*asked)[len(*asked)-1]
	for _, want := range []string{"Undo this batch (3 changes)?", "• projects/n01.md → inbox/n01.md\n", "• projects/n01.md: its tags and links as before", "• inbox/n03.md: its tags and links as before"} {
		if !strings.Contains(undo, want) {
			t.Errorf("the undo dialog lacks %q:\n%s", want, undo)
		}
	}
	a.dialog = func(context.Context, string, string) (bool, error) { return true, nil }
	if b, err := a.UndoBatch("b1"); err != nil || b.State != protocol.BatchUndone || desk.undone != 1 {
		t.Fatalf("an undo's Yes: %+v, %v, undone %d", b, err, desk.undone)
	}
}

// A batch longer than a dialog can show is not cut silently: the dialog
// lists what fits, then says how many more there are and where all are
// listed; no line is wider than the dialog.
func TestALongBatchIsCountedInTheDialog(t *testing.T) {
	desk := &batchDesk{review: protocol.BatchReview{Batch: protocol.Batch{ID: "b1", State: protocol.BatchReviewing}}}
	a, _, asked := batchApp(t, desk)
	var dec protocol.BatchDecision
	for i := range 50 {
		dec.Items = append(dec.Items, reviewItem(i, true))
	}
	dec.Items[0].To = "projects/" + strings.Repeat("long", 40) + ".md"
	if _, err := a.ApplyBatch("b1", dec); err != nil {
		t.Fatal(err)
	}
	text := (*asked)[0]
	if !strings.Contains(text, "Apply these 50 changes") || !strings.Contains(text, "the Quire window lists all 50") {
		t.Errorf("a 50-item batch is not counted in its dialog:\n%s", text)
	}
	shown := strings.Count(text, "\n• ")
	if shown == 0 || shown >= 50 || !strings.Contains(text, fmt.Sprintf("…and %d more changes", 50-shown)) {
		t.Errorf("%d items shown, and the rest not counted:\n%s", shown, text)
	}
	for _, line := range strings.Split(text, "\n") {
		if w := cells(strings.TrimPrefix(line, "• ")); w > dialogWrap && !strings.HasPrefix(line, "…and") && !strings.HasPrefix(line, "Quire will") {
			t.Errorf("a line %d cells wide: %q", w, line)
		}
	}
}

// Each change of a batch reaches the page as quire:batch, in order.
func TestBatchProgressReachesTheWindow(t *testing.T) {
	desk := &batchDesk{progress: make(chan protocol.BatchProgress, 2)}
	a, w, _ := batchApp(t, desk)
	a.startBatches(t.Context())
	desk.progress <- protocol.BatchProgress{Batch: protocol.Batch{ID: "b1", Done: 1}}
	desk.progress <- protocol.BatchProgress{Batch: protocol.Batch{ID: "b1", Done: 2}}
	got := w.wait(t, "two batch changes", func(es []emitted) bool {
		n := 0
		for _, e := range es {
			if e.name == eventBatch {
				n++
			}
		}
		return n == 2
	})
	var done []int
	for _, e := range got {
		if e.name == eventBatch {
			done = append(done, e.data[0].(protocol.BatchProgress).Batch.Done)
		}
	}
	if fmt.Sprint(done) != "[1 2]" {
		t.Errorf("the window was sent %v", done)
	}
	close(desk.progress)
}

// Without the queue, or before the handshake, the batches' methods say so.
func TestBatchesNeedTheQueueAndAHandshake(t *testing.T) {
	a, _, _ := newTestApp(t, "")
	if _, err := opAs[[]protocol.Batch](a, "Batches.List"); !errors.Is(err, errNoHandshake) {
		t.Errorf("before the handshake: %v", err)
	}
	if _, err := a.Handshake(protocol.Version); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ApplyBatch("b1", protocol.BatchDecision{}); !errors.Is(err, errNoBatches) {
		t.Errorf("without the queue: %v", err)
	}
}
