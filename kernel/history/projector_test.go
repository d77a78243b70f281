package history_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"quire/kernel/event"
	"quire/kernel/history"
	"quire/kernel/provider"
	"quire/kernel/store"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func user(text string) event.Draft {
	return event.Draft{Type: event.UserMessage, Time: t0, Payload: event.UserMessagePayload{Text: text}}
}

func assistant(text string) event.Draft {
	return event.Draft{Type: event.AssistantMessage, Time: t0, Payload: event.AssistantMessagePayload{Content: text}}
}

func replace(from, to int64, summary string) event.Draft {
	return event.Draft{Type: event.HistoryReplace, Time: t0, Sources: []int64{from, to},
		Payload: event.HistoryReplacePayload{From: from, To: to, Summary: summary}}
}

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "quire.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func render(msgs []provider.Message) string {
	var b []string
	for _, m := range msgs {
		b = append(b, string(m.Role)+":"+strings.TrimPrefix(m.Content, history.SummaryLabel))
	}
	return strings.Join(b, "|")
}

func TestReplaceKeepsOriginalsAndChangesWhatTheModelSees(t *testing.T) {
	st := openStore(t)
	p := history.NewProjector(st)
	ctx := t.Context()
	if _, _, err := st.CreateSession(ctx, "s", "S", t0, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Append(ctx, "s", user("a"), assistant("b"), user("c"), assistant("d")); err != nil {
		t.Fatal(err)
	}
	before, err := p.Messages(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if got := render(before); got != "user:a|assistant:b|user:c|assistant:d" {
		t.Fatalf("before: %s", got)
	}
	// Replace one message by one summary: the length stays 4, and the cache
	// must still see the change.
	if _, err := st.Append(ctx, "s", replace(2, 2, "B")); err != nil {
		t.Fatal(err)
	}
	after, err := p.Messages(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Fatalf("test premise: lengths %d and %d should be equal", len(after), len(before))
	}
	if got := render(after); got != "user:a|user:B|user:c|assistant:d" {
		t.Fatalf("after a same-length replace: %s", got)
	}
	// Compacting again over the earlier summary replaces it too.
	if _, err := st.Append(ctx, "s", user("e"), replace(1, 4, "ABCD")); err != nil {
		t.Fatal(err)
	}
	again, _ := p.Messages(ctx, "s")
	if got := render(again); got != "user:ABCD|user:e" {
		t.Fatalf("after a second replace: %s", got)
	}
	// The originals are all still in the log.
	evs, _ := st.Events(ctx, "s", 0)
	if len(evs) != 8 {
		t.Fatalf("log has %d events", len(evs))
	}
}

func TestCachedProjectionIsReusedUntilTheLogChanges(t *testing.T) {
	st := openStore(t)
	p := history.NewProjector(st)
	ctx := t.Context()
	st.CreateSession(ctx, "s", "S", t0, nil, nil)
	st.Append(ctx, "s", user("a"))
	first, _ := p.Messages(ctx, "s")
	second, _ := p.Messages(ctx, "s")
	if &first[0] != &second[0] {
		t.Fatal("an unchanged log was projected again instead of served from the cache")
	}
	st.Append(ctx, "s", assistant("b"))
	third, _ := p.Messages(ctx, "s")
	if render(third) != "user:a|assistant:b" {
		t.Fatalf("after an append: %s", render(third))
	}
}

func TestBranchProjection(t *testing.T) {
	st := openStore(t)
	p := history.NewProjector(st)
	ctx := t.Context()
	st.CreateSession(ctx, "root", "R", t0, nil, nil)
	st.Append(ctx, "root", user("a"), assistant("b"), user("c"), assistant("d"))
	if _, _, err := st.CreateSession(ctx, "b1", "B1", t0, &event.BranchPoint{Session: "root", Seq: 2}, nil); err != nil {
		t.Fatal(err)
	}
	st.Append(ctx, "b1", user("x"))
	// A branch of the branch, and a replace inside it that must not touch
	// the parent's messages even though their seqs overlap.
	if _, _, err := st.CreateSession(ctx, "b2", "B2", t0, &event.BranchPoint{Session: "b1", Seq: 1}, nil); err != nil {
		t.Fatal(err)
	}
	st.Append(ctx, "b2", user("y"), replace(1, 1, "Y"))
	cases := map[string]string{
		"root": "user:a|assistant:b|user:c|assistant:d",
		"b1":   "user:a|assistant:b|user:x",
		"b2":   "user:a|assistant:b|user:x|user:Y",
	}
	for session, want := range cases {
		got, err := p.Messages(ctx, session)
		if err != nil {
			t.Fatal(err)
		}
		if render(got) != want {
			t.Errorf("%s: %s, want %s", session, render(got), want)
		}
	}
}

// TestEntriesNameTheirEvents: a compaction chooses its range by the seqs
// EntriesAt gives, so each message must carry its event's seq, and a
// summary the From of its replace (a later replace from there covers it)
// and the replace's own seq (the inspector names the compaction).
func TestEntriesNameTheirEvents(t *testing.T) {
	st := openStore(t)
	p := history.NewProjector(st)
	ctx := t.Context()
	if _, _, err := st.CreateSession(ctx, "s", "S", t0, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Append(ctx, "s", user("a"), assistant("b"), user("c"), assistant("d")); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Append(ctx, "s", replace(1, 2, "ab")); err != nil {
		t.Fatal(err)
	}
	got, err := p.EntriesAt(ctx, "s", -1)
	if err != nil {
		t.Fatal(err)
	}
	var seqs []int64
	for _, e := range got {
		if e.Session != "s" {
			t.Fatalf("entry of session %q", e.Session)
		}
		seqs = append(seqs, e.Seq)
	}
	if want := []int64{1, 3, 4}; len(seqs) != 3 || seqs[0] != want[0] || seqs[1] != want[1] || seqs[2] != want[2] {
		t.Fatalf("seqs %v, want %v (the summary carries From 1)", seqs, want)
	}
	// The summary names the replace that made it (seq 5); the others none.
	if rep := []int64{got[0].Replace, got[1].Replace, got[2].Replace}; rep[0] != 5 || rep[1] != 0 || rep[2] != 0 {
		t.Fatalf("replace seqs %v, want [5 0 0]", rep)
	}
	if msgs, _ := p.Messages(ctx, "s"); render(msgs) != "user:ab|user:c|assistant:d" {
		t.Fatalf("messages %s", render(msgs))
	}
	// A later replace over the summary and the next message.
	if _, err := st.Append(ctx, "s", replace(1, 3, "abc")); err != nil {
		t.Fatal(err)
	}
	if msgs, _ := p.Messages(ctx, "s"); render(msgs) != "user:abc|assistant:d" {
		t.Fatalf("after a replace over a summary: %s", render(msgs))
	}
	// Past seqs answer as they were.
	if old, _ := p.EntriesAt(ctx, "s", 4); len(old) != 4 {
		t.Fatalf("entries at seq 4: %d, want the 4 originals", len(old))
	}
}
