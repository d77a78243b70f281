package host_test

import (
	"errors"
	"slices"
	"testing"

	"quire/host"
	"quire/kernel/protocol"
)

// The board a page reads its questions from: ids in asking order (q10
// after q9), a watcher woken by every change and only by a change, and a
// question that closed gone from the list and from Show.
func TestTheQuestionBoardListsInOrderAndWakesItsWatchers(t *testing.T) {
	var b host.Questions
	list, changed := b.Watch()
	if len(list) != 0 {
		t.Fatalf("an empty board lists %+v", list)
	}
	var ids []string
	for i := range 10 {
		q, _ := b.Add(protocol.Question{Session: "s", RunID: "r" + string(rune('a'+i))})
		ids = append(ids, q.ID)
	}
	select {
	case <-changed:
	default:
		t.Fatal("adding a question did not wake the watcher")
	}
	list, changed = b.Watch()
	got := make([]string, len(list))
	for i, q := range list {
		got[i] = q.ID
	}
	if !slices.Equal(got, ids) || got[9] != "q10" {
		t.Fatalf("listed %v, want %v", got, ids)
	}
	b.Remove("q99") // not on the board: no change
	select {
	case <-changed:
		t.Fatal("removing nothing woke the watcher")
	default:
	}
	_, open := b.Add(protocol.Question{Session: "s"})
	if err := b.Show("q11"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-open.Shown():
	default:
		t.Fatal("a question shown is not marked shown")
	}
	b.Remove("q3")
	<-changed
	if slices.ContainsFunc(b.List(), func(q protocol.Question) bool { return q.ID == "q3" }) {
		t.Fatal("a removed question is still listed")
	}
	if err := b.Show("q3"); !errors.Is(err, host.ErrNoQuestion) {
		t.Fatalf("showing a closed question: %v", err)
	}
}
