package memory_test

import (
	"reflect"
	"slices"
	"testing"

	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/memory"
	"quire/test/ollamatest"
)

// fill writes every kind of item and every kind of change across two
// sessions, through the tools and the store's methods.
func fill(t *testing.T, r *rig) (a, b string) {
	t.Helper()
	ctx := t.Context()
	a, b = r.chat(t), r.chat(t)
	r.k.Ollama.Script(calling("c1", "remember", `{"kind":"preference","text":"Notes are named YYYY-MM-DD title."}`),
		calling("c2", "remember", `{"kind":"working","note":"open","text":"File the March receipts."}`), saying("Done."))
	r.say(t, a, "I name notes by date then title. Also file the March receipts later.")
	r.mem.SetApproval(false)
	fact, err := r.mem.Remember(ctx, b, memory.Fact, "", "The tax adviser is Mr Olsen.", memory.ByUser, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.mem.Edit(ctx, fact.ID, "The tax adviser is Ms Olsen."); err != nil {
		t.Fatal(err)
	}
	r.mem.SetApproval(true)
	pend, err := r.mem.Remember(ctx, b, memory.Fact, "", "The user has a cat called Miso.", memory.ByProposal, nil)
	if err != nil {
		t.Fatal(err)
	}
	rej, err := r.mem.Remember(ctx, b, memory.Preference, "", "Tags are in French.", memory.ByProposal, nil)
	if err != nil {
		t.Fatal(err)
	}
	if pend.Status != memory.Pending {
		t.Fatalf("with approval on, a new fact is %s", pend.Status)
	}
	if err := r.mem.Review(ctx, pend.ID, true); err != nil {
		t.Fatal(err)
	}
	if err := r.mem.Review(ctx, rej.ID, false); err != nil {
		t.Fatal(err)
	}
	gone, err := r.mem.Remember(ctx, a, memory.Fact, "", "A fact that turns out wrong.", memory.ByUser, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.mem.Forget(ctx, gone.ID, memory.ByUser); err != nil {
		t.Fatal(err)
	}
	if err := r.mem.NoteWorking(ctx, b, []memory.WorkingItem{{Note: memory.Conclusion, Text: "Receipts are in /Finance."}, {Note: memory.Attempt, Text: "find_notes receipts → 0 hits"}}, []int64{0}); err != nil {
		t.Fatal(err)
	}
	r.mem.SetApproval(false)
	return a, b
}

func TestIndexIsRebuiltIdenticallyFromTheLog(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	path := t.TempDir() + "/quire.db"
	r := openRig(t, fake, path, rigOptions{})
	fill(t, r)
	want, err := r.mem.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 6 {
		t.Fatalf("%d items after fill, want 6: %+v", len(want), want)
	}
	hits, err := r.mem.Search(t.Context(), "who is the tax adviser", 3)
	if err != nil || len(hits) == 0 {
		t.Fatalf("search before rebuild: %v, %v", hits, err)
	}

	t.Run("Rebuild", func(t *testing.T) {
		if err := r.mem.Rebuild(t.Context()); err != nil {
			t.Fatal(err)
		}
		got, err := r.mem.List(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("after Rebuild:\n got %+v\nwant %+v", got, want)
		}
	})
	t.Run("tables dropped, database reopened", func(t *testing.T) {
		for _, q := range []string{`DROP TABLE memory_fts`, `DROP TABLE memory_items`, `DROP TABLE memory_vectors`, `DROP TABLE memory_applied`} {
			if _, err := r.k.Store.DB().ExecContext(t.Context(), q); err != nil {
				t.Fatal(err)
			}
		}
		r.k.Close(t)
		r2 := openRig(t, fake, path, rigOptions{})
		got, err := r2.mem.List(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("after reopening:\n got %+v\nwant %+v", got, want)
		}
		again, err := r2.mem.Search(t.Context(), "who is the tax adviser", 3)
		if err != nil || !reflect.DeepEqual(again, hits) {
			t.Errorf("search after rebuild = %+v, %v; before %+v", again, err, hits)
		}
	})
}

func TestEveryItemTracesBackToTheEventsItCameFrom(t *testing.T) {
	r := newRig(t, rigOptions{})
	fill(t, r)
	items, err := r.mem.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		evs := r.log(t, it.Session)
		bySeq := map[int64]event.Event{}
		for _, e := range evs {
			bySeq[e.Seq] = e
		}
		if len(it.Events) == 0 || it.Events[0] != it.Seq {
			t.Errorf("%s: events %v do not start with its seq %d", it.ID, it.Events, it.Seq)
		}
		// Every event the row names is a memory event about this item, and
		// the log holds no memory event about it that the row does not name.
		var about []int64
		for _, e := range evs {
			v, err := event.Decode(e)
			if err != nil {
				t.Fatal(err)
			}
			id := ""
			switch p := v.(type) {
			case event.MemoryRememberPayload:
				id = p.ID
				if p.ID == it.ID && (p.Kind != it.Kind || !slices.Equal(nonNil(e.Sources), it.Sources)) {
					t.Errorf("%s: row kind %s sources %v, event kind %s sources %v", it.ID, it.Kind, it.Sources, p.Kind, e.Sources)
				}
			case event.MemoryEditPayload:
				id = p.ID
			case event.MemoryReviewPayload:
				id = p.ID
			}
			if id == it.ID {
				about = append(about, e.Seq)
			}
		}
		if !slices.Equal(about, it.Events) {
			t.Errorf("%s: row names events %v, the log has %v", it.ID, it.Events, about)
		}
		for _, src := range it.Sources {
			if _, ok := bySeq[src]; !ok || src >= it.Seq {
				t.Errorf("%s: source %d is not an earlier event of %s", it.ID, src, it.Session)
			}
		}
	}
	// The item remembered through the tool cites the user's request and the call.
	i := slices.IndexFunc(items, func(it memory.Item) bool { return it.Origin == memory.ByTool && it.Kind == memory.Preference })
	if i < 0 || len(items[i].Sources) != 2 {
		t.Fatalf("tool item: %+v", items)
	}
	evs := r.log(t, items[i].Session)
	if evs[items[i].Sources[0]].Type != event.UserMessage || evs[items[i].Sources[1]].Type != event.AssistantMessage {
		t.Errorf("tool item cites %s and %s", evs[items[i].Sources[0]].Type, evs[items[i].Sources[1]].Type)
	}
}

func nonNil(s []int64) []int64 {
	if s == nil {
		return []int64{}
	}
	return s
}

func TestADeletedConversationTakesWhatWasLearntInItAlong(t *testing.T) {
	r := newRig(t, rigOptions{})
	a, b := r.chat(t), r.chat(t)
	if _, err := r.mem.Remember(t.Context(), a, memory.Fact, "", "Learnt in a.", memory.ByUser, nil); err != nil {
		t.Fatal(err)
	}
	kept, err := r.mem.Remember(t.Context(), b, memory.Fact, "", "Learnt in b.", memory.ByUser, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := protocol.Run[struct{}](t.Context(), r.k.Runtime, "", protocol.DeleteSession, protocol.SessionRef{Session: a}); err != nil {
		t.Fatal(err)
	}
	list, err := r.mem.MemoryList(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].ID != kept.ID {
		t.Errorf("after deleting a: %+v", list.Items)
	}
}
