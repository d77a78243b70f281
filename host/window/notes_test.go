package window

import (
	"context"
	"strings"
	"testing"

	"quire/host"
	"quire/kernel/protocol"
)

// notesDesk is a host.Notes that records the undos it was asked for.
type notesDesk struct {
	host.Notes // unused methods: a call would panic the test
	changes    []protocol.ChangeRecord
	undone     [][]string
}

func (d *notesDesk) Changes(context.Context) (protocol.ChangeList, error) {
	return protocol.ChangeList{Changes: d.changes}, nil
}

func (d *notesDesk) Undo(_ context.Context, id string) (protocol.UndoOutcome, error) {
	d.undone = append(d.undone, []string{id})
	return protocol.UndoOutcome{Undone: []string{id}}, nil
}

func (d *notesDesk) UndoAll(_ context.Context, _ string, ids []string) (protocol.UndoOutcome, error) {
	d.undone = append(d.undone, ids)
	return protocol.UndoOutcome{Undone: ids}, nil
}

// An undo from the Changes list changes the notes only after the window's
// native Yes, like every other change to notes there: the dialog says what
// comes back where (escaped), a No undoes nothing and says so.
func TestAnUndoIsAskedInANativeDialog(t *testing.T) {
	a, _, asked := batchApp(t, &batchDesk{})
	desk := &notesDesk{changes: []protocol.ChangeRecord{
		{ID: "chg_1", Tool: "move_note", Kind: "move", Path: "projects/a.md", From: "inbox/a.md"},
		{ID: "chg_2", Tool: "edit_note", Kind: "write", Path: "b\x1b[2J.md"},
	}}
	a.notes = desk
	o, err := a.UndoChange("chg_1")
	if err != nil || o.Refused == nil || len(o.Undone) != 0 || len(desk.undone) != 0 {
		t.Fatalf("a No: %+v, %v; undone %v", o, err, desk.undone)
	}
	if len(*asked) != 1 || !strings.Contains((*asked)[0], "Undo this change?") || !strings.Contains((*asked)[0], "• projects/a.md → back to inbox/a.md") {
		t.Fatalf("the dialogs: %q", *asked)
	}
	a.dialog = func(_ context.Context, title, message string) (bool, error) {
		*asked = append(*asked, title+"\n"+message)
		return true, nil
	}
	o, err = a.UndoConversation("s1", []string{"chg_2", "chg_1"})
	if err != nil || len(o.Undone) != 2 || len(desk.undone) != 1 || len(desk.undone[0]) != 2 {
		t.Fatalf("a Yes: %+v, %v; undone %v", o, err, desk.undone)
	}
	last := (*asked)[len(*asked)-1]
	if !strings.Contains(last, "Undo these 2 changes?") || strings.Contains(last, "\x1b") || !strings.Contains(last, "as it was before this change (edit_note)") {
		t.Fatalf("the undo-all dialog: %q", last)
	}
}
