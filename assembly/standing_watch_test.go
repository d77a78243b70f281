package assembly

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"quire/config"
	"quire/internal/datadir"
	"quire/kernel/protocol"
	"quire/test/ollamatest"
	"quire/test/testkit"
	"quire/vaultindex"
	"quire/watch"
)

// toldAdded reads the index's updates until one adds rel; Patience bounds it.
func toldAdded(t *testing.T, updates <-chan vaultindex.Update, rel string) {
	t.Helper()
	deadline := time.After(testkit.Patience)
	for {
		select {
		case u := <-updates:
			if u.Err != nil {
				t.Fatal(u.Err)
			}
			if slices.Contains(u.Added, rel) {
				return
			}
		case <-deadline:
			t.Fatalf("the index never told that %s landed", rel)
		}
	}
}

// TestNoteLandingWakesTheStandingTask: with the notes index's real watch,
// a note written into the folder of a "when a note lands" task wakes the
// runner, which fires it at once (its minute tick is a day here, so only
// the watch can). The notes there at the start did not land, and a note
// landing while the firing's batch waits for its review fires nothing more.
func TestNoteLandingWakesTheStandingTask(t *testing.T) {
	fake := ollamatest.New(t, ollamatest.WithResponder(isolationModel))
	fake.AddModel(ollamatest.DefaultModel())
	notesDir := t.TempDir()
	testkit.WriteOld(t, filepath.Join(notesDir, "inbox", "there.md"), "# there before\n")
	testkit.WriteOld(t, filepath.Join(notesDir, "elsewhere", "kept.md"), "# kept\n")
	updates := make(chan vaultindex.Update, 64)
	settings := config.NewStore(config.Config{DataDir: t.TempDir(), OllamaHost: fake.URL(), Model: "qwen3:4b", NumCtx: 8192,
		NotesDir: notesDir, Profile: "ask", Batch: config.BatchSettings{Workers: 2}})
	p, err := OpenWith(t.Context(), settings, slog.New(slog.DiscardHandler), Owner, Extras{Kind: datadir.Serve,
		NotesIndex: []vaultindex.Option{vaultindex.WithOnUpdate(func(u vaultindex.Update) { updates <- u }),
			vaultindex.WithWatch(watch.WithDebounce(10 * time.Millisecond))}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	waitSynced(t, updates)
	sum, err := p.Standing().Add(t.Context(), protocol.StandingTask{Name: "file what lands", Folder: "inbox",
		Schedule: protocol.StandingSchedule{Kind: protocol.StandingLands}})
	if err != nil {
		t.Fatal(err)
	}
	if fired, err := p.standing.Tick(t.Context()); err != nil || len(fired) != 0 {
		t.Fatalf("the notes there at the start fired the task: %+v %v", fired, err)
	}

	ctx, cancel := context.WithTimeout(t.Context(), testkit.Patience)
	defer cancel()
	stream := p.Batches().Watch(ctx)
	p.standingEvery = 24 * time.Hour
	p.RunStanding(t.Context())
	if err := os.WriteFile(filepath.Join(notesDir, "inbox", "new.md"), []byte("# landed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var batch protocol.Batch
	for pr := range stream {
		if pr.Batch.State == protocol.BatchReviewing {
			batch = pr.Batch
			break
		}
	}
	if batch.ID == "" {
		t.Fatal("the landing never fired the task")
	}
	task, ok, err := p.standing.Fired(t.Context(), batch.ID)
	if err != nil || !ok || task.ID != sum.Task.ID {
		t.Fatalf("the batch %s is not the task's firing: %+v %v %v", batch.ID, task, ok, err)
	}
	list, err := p.Standing().List(t.Context())
	if err != nil || len(list) != 1 || list[0].Last == nil || list[0].Last.Why != "a note landed in inbox" {
		t.Fatalf("the task's last firing: %+v %v", list, err)
	}

	// Another note lands while the batch waits: told to the runner (the
	// index tells its writes in order, so once a later one is told this
	// one was), it fires nothing while the batch is open.
	drain(updates)
	if err := os.WriteFile(filepath.Join(notesDir, "inbox", "second.md"), []byte("# second\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	toldAdded(t, updates, "inbox/second.md")
	if err := os.WriteFile(filepath.Join(notesDir, "elsewhere", "marker.md"), []byte("# marker\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	toldAdded(t, updates, "elsewhere/marker.md")
	if fired, err := p.standing.Tick(t.Context()); err != nil || len(fired) != 0 {
		t.Fatalf("a second firing while the batch waits: %+v %v", fired, err)
	}
	all, err := p.queue.List(t.Context())
	if err != nil || len(all) != 1 {
		t.Fatalf("batches: %+v %v", all, err)
	}
}

// drain empties updates of what was told so far.
func drain(updates <-chan vaultindex.Update) {
	for len(updates) > 0 {
		<-updates
	}
}

// TestLandingWithoutAnIndex: with no notes index (no database to keep one
// in), a landing is a note name the previous look did not see; the first
// look remembers what is there.
func TestLandingWithoutAnIndex(t *testing.T) {
	notesDir := t.TempDir()
	testkit.WriteOld(t, filepath.Join(notesDir, "inbox", "there.md"), "# there\n")
	n := newNotesTools(nil, t.TempDir(), nil)
	finish, err := n.ready(notesDir)
	if err != nil {
		t.Fatal(err)
	}
	finish(true)
	t.Cleanup(func() { n.root.Close() })
	if n.Index() != nil {
		t.Fatal("an index without a database")
	}
	at := time.Unix(1_800_000_000, 0)
	look := &folderLook{notes: n, now: func() time.Time { return at }, seen: map[string]map[string]bool{}}
	steps := []struct {
		name   string
		write  string // a note written before the look ("" none)
		landed bool
	}{
		{"the first look remembers", "", false},
		{"nothing new", "", false},
		{"a note made", "inbox/new.md", true},
		{"nothing new again", "", false},
	}
	for _, s := range steps {
		if s.write != "" {
			testkit.WriteOld(t, filepath.Join(notesDir, s.write), "# new\n")
		}
		v, err := look.look(t.Context(), []string{"inbox"})
		if err != nil {
			t.Fatal(err)
		}
		if _, landed := v.Landed["inbox"]; landed != s.landed {
			t.Errorf("%s: landed %v, want %v (%+v)", s.name, landed, s.landed, v)
		}
	}
}
