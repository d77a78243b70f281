package queue_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/tool"
	"quire/queue"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

// A batch over 50 inbox notes with scripted workers ends with one review
// question for the whole batch; applied, every note is where its worker
// proposed with its tags, and one undo puts every note back.
func TestFiftyNotesOneReview(t *testing.T) {
	w := newWorld(t, 50, fileUnder, queue.WithWorkers(2))
	ctx := t.Context()
	watch, stop := context.WithCancel(ctx)
	defer stop()
	stream := w.Q.Watch(watch)

	b, err := w.Q.Start(ctx, "inbox")
	if err != nil {
		t.Fatal(err)
	}
	if b.Total != 50 || b.State != protocol.BatchRunning || b.Workers != 2 {
		t.Fatalf("started %+v", b)
	}
	reviews := 0
	var last protocol.Batch
	for p := range stream {
		if p.Batch.ID != b.ID {
			continue
		}
		if p.Batch.State == protocol.BatchReviewing && last.State != protocol.BatchReviewing {
			reviews++
		}
		last = p.Batch
		if p.Batch.State == protocol.BatchReviewing {
			break
		}
	}
	if reviews != 1 || last.Done != 50 || last.Failed != 0 {
		t.Fatalf("%d reviews; the batch at review: %+v", reviews, last)
	}
	r, err := w.Q.Get(ctx, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Items) != 50 {
		t.Fatalf("%d review items, want 50", len(r.Items))
	}
	// No worker asked the user anything: the batch's one question is the review.
	sessions := map[string]bool{}
	for _, k := range r.Tasks {
		if k.Session == "" || sessions[k.Session] {
			t.Fatalf("task %s has session %q (a task owns a session of its own)", k.Note, k.Session)
		}
		sessions[k.Session] = true
		evs, err := w.K.Runtime.Events(ctx, k.Session, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			if e.Type == string(event.PermissionRequested) {
				t.Fatalf("the worker of %s asked the user: %s", k.Note, e.Payload)
			}
		}
	}
	// Every worker's session is marked a worker's, so no host lists it
	// among the user's chats.
	listed, err := w.K.Runtime.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range listed {
		if sessions[s.ID] != (s.Kind == protocol.SessionWorker) {
			t.Fatalf("session %s (%s) has kind %q", s.ID, s.Title, s.Kind)
		}
	}
	// A worker's requests are rebuilt from its log, as `quire replay
	// -request` prints them, and match what the model was sent.
	req, err := w.K.Runtime.Request(ctx, r.Tasks[7].Session, 1)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(req)
	if !strings.Contains(string(raw), "Organise the note inbox/n07.md") || !strings.Contains(string(raw), `"propose"`) || strings.Contains(string(raw), "n08.md") {
		t.Fatalf("the worker's first request, replayed: %.400s", raw)
	}
	if before := files(t, w.Dir); len(before) != 50 {
		t.Fatalf("before the answer the notes changed: %v", before)
	}
	applied, err := w.Q.Apply(ctx, b.ID, protocol.BatchDecision{Items: r.Items})
	if err != nil {
		t.Fatal(err)
	}
	if applied.State != protocol.BatchDone || applied.Applied != 50 {
		t.Fatalf("applied: %+v", applied)
	}
	var want []string
	for i := range 50 {
		want = append(want, fmt.Sprintf("projects/n%02d.md", i))
	}
	if got := files(t, w.Dir); !slices.Equal(got, want) {
		t.Fatalf("after apply: %v", got)
	}
	text, _ := os.ReadFile(filepath.Join(w.Dir, "projects", "n07.md"))
	if !strings.Contains(string(text), "filed") || !strings.Contains(string(text), "about project 7") {
		t.Fatalf("projects/n07.md is %q", text)
	}
	undone, err := w.Q.Undo(ctx, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if undone.State != protocol.BatchUndone {
		t.Fatalf("undone: %+v", undone)
	}
	for i, f := range files(t, w.Dir) {
		if f != fmt.Sprintf("inbox/n%02d.md", i) {
			t.Fatalf("after undo: %v", files(t, w.Dir))
		}
	}
	text, _ = os.ReadFile(filepath.Join(w.Dir, "inbox", "n07.md"))
	if string(text) != "# Note 7\n\nabout project 7\n" {
		t.Fatalf("inbox/n07.md after undo is %q", text)
	}
}

// One worker's task fails (its model never proposes): the failure is
// reported with its reason and the other tasks go on to review.
func TestOneTaskFailsTheOthersGoOn(t *testing.T) {
	w := newWorld(t, 4, func(note string) []ollamatest.ToolCall {
		if note == "inbox/n02.md" {
			return nil
		}
		return fileUnder(note)
	})
	b, err := w.Q.Start(t.Context(), "inbox")
	if err != nil {
		t.Fatal(err)
	}
	end := until(t, w.Q, b.ID, protocol.BatchReviewing)
	if end.Done != 3 || end.Failed != 1 {
		t.Fatalf("at review: %+v", end)
	}
	r, _ := w.Q.Get(t.Context(), b.ID)
	for _, k := range r.Tasks {
		failed := k.State == protocol.TaskFailed
		if failed != (k.Note == "inbox/n02.md") {
			t.Fatalf("task %s: %+v", k.Note, k)
		}
		if failed && !strings.Contains(k.Error, "without a proposal") {
			t.Fatalf("the failure does not say why: %q", k.Error)
		}
	}
	if len(r.Items) != 3 {
		t.Fatalf("%d review items, want the 3 done", len(r.Items))
	}
}

// A worker that tries to write is refused by its tool set: no write tool is
// in its registry, so the call never reaches a note, and the task fails
// saying so.
func TestWorkerCannotWrite(t *testing.T) {
	w := newWorld(t, 1, func(note string) []ollamatest.ToolCall {
		args, _ := json.Marshal(map[string]string{"from": note, "to": "projects/stolen.md"})
		return []ollamatest.ToolCall{{Name: "move_note", Arguments: args}}
	})
	b, err := w.Q.Start(t.Context(), "inbox")
	if err != nil {
		t.Fatal(err)
	}
	end := until(t, w.Q, b.ID, protocol.BatchReviewing)
	if end.Failed != 1 {
		t.Fatalf("at review: %+v", end)
	}
	if got := files(t, w.Dir); !slices.Equal(got, []string{"inbox/n00.md"}) {
		t.Fatalf("a worker changed the notes: %v", got)
	}
	r, _ := w.Q.Get(t.Context(), b.ID)
	evs, err := w.K.Runtime.Events(t.Context(), r.Tasks[0].Session, 0)
	if err != nil {
		t.Fatal(err)
	}
	var caps event.Capabilities
	for _, e := range evs {
		if e.Type == string(event.InputReceived) {
			var p event.InputReceivedPayload
			if err := json.Unmarshal(e.Payload, &p); err != nil || p.Caps == nil {
				t.Fatalf("input.received: %s", e.Payload)
			}
			caps = *p.Caps
		}
		if e.Type == string(event.ToolStarted) {
			t.Fatalf("a tool ran: %s", e.Payload)
		}
	}
	var names []string
	for _, d := range caps.Tools {
		names = append(names, d.Name)
		if d.Effects&^1 != 0 { // ReadFs is the only effect a worker's tool may have
			t.Fatalf("the worker was offered %s with effects %d", d.Name, d.Effects)
		}
	}
	if !slices.Contains(names, queue.ProposeName) || slices.Contains(names, "move_note") || caps.Profile != "minimal" {
		t.Fatalf("the worker's tools: %v, profile %q", names, caps.Profile)
	}
}

// The user's one answer can untick and edit: only the ticked items are
// applied, an edited destination is used, and the rest stay as they were.
// A destination is read as the notes tools read it: the note's own path
// spelled another way (./inbox/n00.md, inbox//n00.md) leaves it where it is,
// rather than failing the whole batch on a move onto itself.
func TestEditedDestinationIsAPath(t *testing.T) {
	w := newWorld(t, 2, fileUnder)
	b, r := reviewing(t, w)
	items := slices.Clone(r.Items)
	items[0].To = "./" + items[0].From
	items[1].To = strings.Replace(items[1].To, "/", "//", 1)
	applied, err := w.Q.Apply(t.Context(), b.ID, protocol.BatchDecision{Items: items})
	if err != nil {
		t.Fatal(err)
	}
	if applied.State != protocol.BatchDone {
		t.Fatalf("applied %+v", applied)
	}
	want := []string{items[0].From, path.Clean(items[1].To)}
	slices.Sort(want)
	if got := files(t, w.Dir); !slices.Equal(got, want) {
		t.Fatalf("files %v, want %v", got, want)
	}
}

func TestPartlyRejected(t *testing.T) {
	w := newWorld(t, 3, fileUnder)
	b, r := reviewing(t, w)
	items := r.Items
	items[0].Selected = false
	items[1].To = "projects/renamed.md"
	applied, err := w.Q.Apply(t.Context(), b.ID, protocol.BatchDecision{Items: items})
	if err != nil {
		t.Fatal(err)
	}
	if applied.Applied != 2 {
		t.Fatalf("applied %+v", applied)
	}
	want := []string{"inbox/n00.md", "projects/n02.md", "projects/renamed.md"}
	if got := files(t, w.Dir); !slices.Equal(got, want) {
		t.Fatalf("files %v, want %v", got, want)
	}
}

// An answer the batch cannot take is refused with a sentence, and nothing
// changes: an item of another note, two notes to one path, a destination
// that exists (found while applying: what was moved is put back).
func TestBadAnswers(t *testing.T) {
	w := newWorld(t, 3, fileUnder)
	b, r := reviewing(t, w)
	testkit.WriteOld(t, filepath.Join(w.Dir, "projects", "taken.md"), "mine\n")
	cases := []struct {
		name  string
		edit  func(items []protocol.ReviewItem)
		class error
		says  string
	}{
		{"another note", func(it []protocol.ReviewItem) { it[0].From = "inbox/other.md" }, protocol.ErrBadPayload, "the task is about"},
		{"unknown task", func(it []protocol.ReviewItem) { it[0].Task = "task_nope" }, protocol.ErrBadPayload, "no task"},
		{"one path twice", func(it []protocol.ReviewItem) { it[1].To = it[0].To }, protocol.ErrBadPayload, "would both move"},
		// The same path spelled another way is the same path.
		{"one path twice, spelled apart", func(it []protocol.ReviewItem) { it[1].To = "./" + strings.Replace(it[0].To, "/", "//", 1) }, protocol.ErrBadPayload, "would both move"},
		{"outside the notes", func(it []protocol.ReviewItem) { it[0].To = "../escape.md" }, protocol.ErrBadPayload, "cannot be used"},
		{"destination exists", func(it []protocol.ReviewItem) { it[2].To = "projects/taken.md" }, protocol.ErrConflict, "already exists"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			items := slices.Clone(r.Items)
			c.edit(items)
			_, err := w.Q.Apply(t.Context(), b.ID, protocol.BatchDecision{Items: items})
			if !errors.Is(err, c.class) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("err = %v, want %v saying %q", err, c.class, c.says)
			}
			want := []string{"inbox/n00.md", "inbox/n01.md", "inbox/n02.md", "projects/taken.md"}
			if got := files(t, w.Dir); !slices.Equal(got, want) {
				t.Fatalf("files %v", got)
			}
			if got, _ := w.Q.Get(t.Context(), b.ID); got.Batch.State != protocol.BatchReviewing {
				t.Fatalf("the batch is %s", got.Batch.State)
			}
		})
	}
}

// Actions a batch's state does not allow are refused as conflicts; an
// unknown batch is not found.
func TestStateRules(t *testing.T) {
	w := newWorld(t, 1, fileUnder)
	ctx := t.Context()
	if _, err := w.Q.Get(ctx, "batch_nope"); !errors.Is(err, protocol.ErrNotFound) {
		t.Fatalf("unknown batch: %v", err)
	}
	b, err := w.Q.Start(ctx, "inbox")
	if err != nil {
		t.Fatal(err)
	}
	until(t, w.Q, b.ID, protocol.BatchReviewing)
	for name, act := range map[string]func() error{
		"pause":  func() error { _, err := w.Q.Pause(ctx, b.ID); return err },
		"resume": func() error { _, err := w.Q.Resume(ctx, b.ID); return err },
		"undo":   func() error { _, err := w.Q.Undo(ctx, b.ID); return err },
	} {
		if err := act(); !errors.Is(err, protocol.ErrConflict) {
			t.Errorf("%s while reviewing: %v", name, err)
		}
	}
	c, err := w.Q.Cancel(ctx, b.ID)
	if err != nil || c.State != protocol.BatchCancelled {
		t.Fatalf("cancel: %+v %v", c, err)
	}
	r, _ := w.Q.Get(ctx, b.ID)
	if _, err := w.Q.Apply(ctx, b.ID, protocol.BatchDecision{Items: r.Items}); !errors.Is(err, protocol.ErrConflict) {
		t.Fatalf("apply after cancel: %v", err)
	}
	if got := files(t, w.Dir); !slices.Equal(got, []string{"inbox/n00.md"}) {
		t.Fatalf("files %v", got)
	}
}

// A folder a batch cannot take is refused in words.
func TestStartRefusals(t *testing.T) {
	w := newWorld(t, 1, fileUnder)
	for i := range protocol.BatchMaxNotes + 1 {
		testkit.WriteOld(t, filepath.Join(w.Dir, "big", fmt.Sprintf("n%03d.md", i)), "x\n")
	}
	for _, c := range []struct{ folder, says string }{
		// The sentence of the bound, not list_notes' listing for the model.
		{"big", fmt.Sprintf("more than %d entries", protocol.BatchMaxNotes)},
		{"missing", "does not exist"},
		{"projects", "holds no notes"},
		{"../outside", ""},
		// An absolute path is outside the notes folder, even when the
		// notes folder has a folder of that name (inbox here).
		{"/inbox", "absolute path"},
		{"/", "absolute path"},
	} {
		_, err := w.Q.Start(t.Context(), c.folder)
		if !errors.Is(err, protocol.ErrBadPayload) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("Start(%q) = %v", c.folder, err)
		}
	}
}

// The conversation's organise_folder starts a batch, changing nothing, and
// a folder it cannot take is a failure the model reads in words.
func TestOrganiseToolStartsABatch(t *testing.T) {
	w := newWorld(t, 2, fileUnder)
	organise := w.Q.OrganiseTool()
	if sp := organise.Spec(); sp.Effects != 0 || sp.Name != queue.OrganiseName {
		t.Fatalf("spec %+v", sp)
	}
	res, err := organise.Run(t.Context(), tool.Call{Name: queue.OrganiseName, Arguments: []byte(`{"folder":"inbox"}`)})
	b, ok := res.Data.(protocol.Batch)
	if err != nil || res.Status != tool.Success || !ok || b.Total != 2 || !strings.Contains(res.Content, b.ID) {
		t.Fatalf("organise_folder: %+v %v", res, err)
	}
	until(t, w.Q, b.ID, protocol.BatchReviewing)
	if got := files(t, w.Dir); !slices.Equal(got, []string{"inbox/n00.md", "inbox/n01.md"}) {
		t.Fatalf("starting a batch changed the notes: %v", got)
	}
	res, _ = organise.Run(t.Context(), tool.Call{Name: queue.OrganiseName, Arguments: []byte(`{"folder":"nowhere"}`)})
	if res.Status != tool.Failure || !strings.Contains(res.Content, "does not exist") {
		t.Fatalf("a missing folder: %+v", res)
	}
}

// A worker's proposal the notes would refuse is refused to the model at
// once, in words it can act on: a destination that exists, a link to no
// note, a path out of the notes, a lost extension.
func TestProposalsTheNotesWouldRefuse(t *testing.T) {
	cases := []struct {
		name string
		call ollamatest.ToolCall
		says string
	}{
		{"destination exists", propose("inbox/n01.md", []string{}, "r"), "already exists"},
		{"outside", propose("../x.md", []string{}, "r"), "cannot be used"},
		{"extension", propose("projects/x.txt", []string{}, "r"), "extension"},
		{"no reason", propose("projects/x.md", []string{}, ""), "reason"},
		{"link to nothing", func() ollamatest.ToolCall {
			args, _ := json.Marshal(map[string]any{"path": "", "links": []string{"people/nobody.md"}, "reason": "r"})
			return ollamatest.ToolCall{Name: queue.ProposeName, Arguments: args}
		}(), "no note people/nobody.md"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, 2, func(note string) []ollamatest.ToolCall {
				if note == "inbox/n00.md" {
					return []ollamatest.ToolCall{c.call}
				}
				return fileUnder(note)
			})
			_, r := reviewing(t, w)
			k := r.Tasks[0]
			if k.State != protocol.TaskFailed || !strings.Contains(k.Error, "refused") || !strings.Contains(k.Error, c.says) {
				t.Fatalf("task %s: %+v", k.Note, k)
			}
		})
	}
}

// A proposal whose arguments the schema refuses (tags: null) fails its
// task with the schema's sentence, not a bare "no proposal".
func TestAProposalRefusedBySchemaSaysWhy(t *testing.T) {
	w := newWorld(t, 1, func(note string) []ollamatest.ToolCall {
		return []ollamatest.ToolCall{propose("projects/x.md", nil, "r")}
	})
	_, r := reviewing(t, w)
	if k := r.Tasks[0]; k.State != protocol.TaskFailed || !strings.Contains(k.Error, "refused") || !strings.Contains(k.Error, "tags") {
		t.Fatalf("task: %+v", k)
	}
}
