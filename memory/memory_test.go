package memory_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"quire/kernel/compact"
	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/memory"
	"quire/test/testkit"
)

func TestRememberToolWritesAnEventAndAnIndexedItemCitingTheCall(t *testing.T) {
	r := newRig(t, rigOptions{})
	s := r.chat(t)
	r.k.Ollama.Script(calling("c1", "remember", `{"kind":"fact","text":"Anna leads the garden project."}`), saying("Noted."))
	r.say(t, s, "Anna leads the garden project, remember that.")

	evs := r.log(t, s)
	if n := testkit.Count(evs, event.MemoryRemember); n != 1 {
		t.Fatalf("%d memory.remember events, want 1", n)
	}
	items, err := r.mem.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].Kind != memory.Fact || items[0].Text != "Anna leads the garden project." || items[0].Status != memory.Kept ||
		items[0].Origin != memory.ByTool || items[0].Approved != memory.ByAsking {
		t.Fatalf("items = %+v, want the fact kept as asked", items)
	}
	// By default the user was asked, and the question quoted the whole text.
	if qs := r.user.asked(); len(qs) != 1 || !strings.Contains(qs[0].Descriptions[0], "fact for every later conversation:\n“Anna leads the garden project.”") {
		t.Errorf("questions = %+v, want one quoting the fact", qs)
	}
	it := items[0]
	var call, user int64 = -1, -1
	for _, e := range evs {
		switch e.Type {
		case event.AssistantMessage:
			if call < 0 {
				call = e.Seq
			}
		case event.UserMessage:
			user = e.Seq
		}
	}
	if !slices.Equal(it.Sources, []int64{user, call}) {
		t.Errorf("sources = %v, want the user message %d and the call %d", it.Sources, user, call)
	}
	var tr event.ToolResultPayload
	for _, e := range evs {
		if e.Type == event.ToolResult {
			tr, _ = event.As[event.ToolResultPayload](e)
		}
	}
	if tr.Status != "success" || !strings.Contains(tr.Content, it.ID) {
		t.Errorf("tool result %+v does not give the id %s", tr, it.ID)
	}
}

func TestRememberArgumentsAreValidatedByTheRegistry(t *testing.T) {
	r := newRig(t, rigOptions{})
	s := r.chat(t)
	r.k.Ollama.Script(calling("c1", "remember", `{"kind":"gossip","text":"x"}`), calling("c2", "remember", `{"kind":"fact","text":""}`), saying("Sorry."))
	r.say(t, s, "remember something")
	evs := r.log(t, s)
	if n := testkit.Count(evs, event.MemoryRemember); n != 0 {
		t.Fatalf("%d memory events from invalid arguments", n)
	}
	var failures []string
	for _, e := range evs {
		// Arguments are checked as the reply arrives: a bad call is
		// refused with the schema error and never runs.
		if e.Type == event.ToolRefused {
			p, _ := event.As[event.ToolRefusedPayload](e)
			failures = append(failures, p.Status+": "+p.Reason)
		}
	}
	if len(failures) != 2 || !strings.HasPrefix(failures[0], "failure") || !strings.Contains(failures[0], "kind") ||
		!strings.HasPrefix(failures[1], "failure") || !strings.Contains(failures[1], "text") {
		t.Errorf("results = %q, want two failures naming kind and text", failures)
	}
}

func TestBadInputGetsAClearErrorAndWritesNothing(t *testing.T) {
	r := newRig(t, rigOptions{mem: []memory.Option{memory.WithApproval(false)}})
	s := r.chat(t)
	kept, err := r.mem.Remember(t.Context(), s, memory.Fact, "", "The archive lives in /srv/notes.", memory.ByUser, nil)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("é", memory.MaxText+1)
	cases := []struct {
		name     string
		do       func() error
		sentinel error
		class    error
		says     string
	}{
		{"empty text", func() error {
			_, err := r.mem.Remember(t.Context(), s, memory.Fact, "", "  \n ", memory.ByUser, nil)
			return err
		}, memory.ErrEmptyText, protocol.ErrBadPayload, "empty"},
		{"over-long text", func() error {
			_, err := r.mem.Remember(t.Context(), s, memory.Preference, "", long, memory.ByUser, nil)
			return err
		}, memory.ErrTooLong, protocol.ErrBadPayload, "501 characters"},
		{"unknown kind", func() error {
			_, err := r.mem.Remember(t.Context(), s, "gossip", "", "x", memory.ByUser, nil)
			return err
		}, memory.ErrBadKind, protocol.ErrBadPayload, "gossip"},
		{"unknown working note", func() error {
			return r.mem.NoteWorking(t.Context(), s, []memory.WorkingItem{{Note: "idea", Text: "x"}}, nil)
		}, memory.ErrBadKind, protocol.ErrBadPayload, "idea"},
		{"edit unknown id", func() error {
			_, err := r.mem.Edit(t.Context(), "nope", "text")
			return err
		}, memory.ErrUnknownItem, protocol.ErrNotFound, `"nope"`},
		{"edit to empty", func() error {
			_, err := r.mem.Edit(t.Context(), kept.ID, "")
			return err
		}, memory.ErrEmptyText, protocol.ErrBadPayload, "empty"},
		{"edit over-long", func() error {
			_, err := r.mem.Edit(t.Context(), kept.ID, long)
			return err
		}, memory.ErrTooLong, protocol.ErrBadPayload, "shorten"},
		{"forget unknown id", func() error { return r.mem.Forget(t.Context(), "nope", memory.ByUser) }, memory.ErrUnknownItem, protocol.ErrNotFound, "nope"},
		{"approve a kept item", func() error { return r.mem.Review(t.Context(), kept.ID, true) }, memory.ErrNotPending, protocol.ErrConflict, "already kept"},
		{"review unknown id", func() error { return r.mem.Review(t.Context(), "nope", false) }, memory.ErrUnknownItem, protocol.ErrNotFound, "nope"},
	}
	before := len(r.log(t, s))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.do()
			if !errors.Is(err, c.sentinel) || !errors.Is(err, c.class) {
				t.Fatalf("err = %v, want %v and %v", err, c.sentinel, c.class)
			}
			if !strings.Contains(err.Error(), c.says) {
				t.Errorf("message %q does not say %q", err, c.says)
			}
		})
	}
	if after := len(r.log(t, s)); after != before {
		t.Errorf("bad input appended %d events", after-before)
	}
	got, err := r.mem.Get(t.Context(), kept.ID)
	if err != nil || got.Text != kept.Text {
		t.Errorf("the kept item changed: %+v, %v", got, err)
	}
}

func TestNoteWorkingIsAllOrNothing(t *testing.T) {
	r := newRig(t, rigOptions{})
	s := r.chat(t)
	before := len(r.log(t, s))
	if err := r.mem.NoteWorking(t.Context(), s, []memory.WorkingItem{{Note: memory.Conclusion, Text: "fine"}, {Note: memory.OpenTask, Text: ""}}, nil); !errors.Is(err, memory.ErrEmptyText) {
		t.Errorf("an empty second item: %v", err)
	}
	if err := r.mem.NoteWorking(t.Context(), s, []memory.WorkingItem{{Note: memory.Conclusion, Text: "fine"}}, []int64{999}); err == nil {
		t.Error("a source that is not in the session was accepted")
	}
	if after := len(r.log(t, s)); after != before {
		t.Errorf("refused writes appended %d events", after-before)
	}
	if err := r.mem.NoteWorking(t.Context(), s, []memory.WorkingItem{{Note: memory.Conclusion, Text: "a"}, {Note: memory.Attempt, Text: "b"}}, []int64{0}); err != nil {
		t.Fatal(err)
	}
	items, _ := r.mem.Session(t.Context(), s)
	if len(items) != 2 || items[0].Origin != memory.ByCompaction || items[1].Note != memory.Attempt || !slices.Equal(items[1].Sources, []int64{0}) {
		t.Errorf("items = %+v", items)
	}
}

// TestCompactionFilesWorkingMemory: what a compaction extracts becomes this
// session's working memory — facts as conclusions, an over-long text
// clipped, an empty one dropped — citing the compaction's sources.
func TestCompactionFilesWorkingMemory(t *testing.T) {
	r := newRig(t, rigOptions{})
	s := r.chat(t)
	long := strings.Repeat("é", memory.MaxText+40)
	err := r.mem.Compaction().NoteWorking(t.Context(), s, []compact.Item{
		{Kind: "fact", Text: "  The budget is 40 euros. "}, {Kind: memory.OpenTask, Text: "file plan.md"},
		{Kind: memory.Attempt, Text: long}, {Kind: memory.Conclusion, Text: "   "},
	}, []int64{0})
	if err != nil {
		t.Fatal(err)
	}
	items, _ := r.mem.Session(t.Context(), s)
	if len(items) != 3 {
		t.Fatalf("items = %+v", items)
	}
	want := []struct{ note, text string }{
		{memory.Conclusion, "The budget is 40 euros."}, {memory.OpenTask, "file plan.md"},
		{memory.Attempt, strings.Repeat("é", memory.MaxText-1) + "…"},
	}
	for i, w := range want {
		if items[i].Note != w.note || items[i].Text != w.text || items[i].Origin != memory.ByCompaction || !slices.Equal(items[i].Sources, []int64{0}) {
			t.Errorf("item %d = %+v, want %s %q", i, items[i], w.note, w.text)
		}
	}
}
