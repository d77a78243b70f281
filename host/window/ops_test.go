package window

import (
	"errors"
	"strings"
	"testing"

	"quire/kernel/protocol"
)

// TestWindowOpCannotSkipADialog: the window's one Op runs any operation
// of its ports by name, only after the handshake, and refuses one the
// window asks about first, so the page cannot apply a batch without the
// native dialog's yes.
func TestWindowOpCannotSkipADialog(t *testing.T) {
	desk := &batchDesk{review: protocol.BatchReview{Batch: protocol.Batch{ID: "b1", State: protocol.BatchReviewing}}}
	fresh, _, _ := newTestApp(t, "")
	fresh.batches = desk
	if _, err := fresh.Op("Batches.Get", []any{"b1"}); !errors.Is(err, errNoHandshake) {
		t.Errorf("before the handshake: %v", err)
	}
	a, _, asked := batchApp(t, desk)
	got, err := a.Op("Batches.Get", []any{"b1"})
	if r, ok := got.(protocol.BatchReview); err != nil || !ok || r.Batch.ID != "b1" {
		t.Errorf("a read: %#v, %v", got, err)
	}
	if _, err := a.Op("Batches.Apply", []any{"b1", map[string]any{"items": []any{}}}); !errors.Is(err, errAsksFirst) || !strings.Contains(err.Error(), "ApplyBatch") {
		t.Errorf("an apply without its dialog: %v", err)
	}
	if len(desk.applied) != 0 || len(*asked) != 0 {
		t.Errorf("applied %v, asked %v", desk.applied, *asked)
	}
}

// opAs runs operation name through the window's Op, as the page does, its
// result as a T.
func opAs[T any](h *Host, name string, args ...any) (T, error) {
	res, err := h.Op(name, args)
	v, _ := res.(T)
	return v, err
}

// opErr runs an operation without a result through the window's Op.
func opErr(h *Host, name string, args ...any) error {
	_, err := h.Op(name, args)
	return err
}
