package assembly

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"quire/config"
	"quire/host/httpapi"
	"quire/internal/datadir"
	"quire/kernel/protocol"
	"quire/kernel/tool"
	"quire/test/ollamatest"
	"quire/test/testkit"
	"quire/tools/notes"
	"quire/vaultindex"
	"quire/watch"
)

// waitSynced reads the index's updates until a reconciling scan of dir
// was committed.
func waitSynced(t *testing.T, updates <-chan vaultindex.Update) {
	t.Helper()
	deadline := time.After(testkit.Patience)
	for {
		select {
		case u := <-updates:
			if u.Err != nil {
				t.Fatal(u.Err)
			}
			if u.Rescan {
				return
			}
		case <-deadline:
			t.Fatal("the notes folder was never indexed")
		}
	}
}

// TestNotesPanelLinksThroughTheLocalRoute: the Notes port's Links reach
// the index of the chosen folder over the HTTP routes (the local channel a
// terminal uses), and follow the folder when the user changes it.
func TestNotesPanelLinksThroughTheLocalRoute(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	dataDir, notesDir, otherDir := t.TempDir(), t.TempDir(), t.TempDir()
	for rel, text := range map[string]string{
		"Hub.md":         "# Hub\n\n[[Alpha]] and [[Beta]].\n",
		"notes/Alpha.md": "# Alpha\n\n[[Hub]] and [[Missing]].\n",
		"notes/Beta.md":  "# Beta\n\n[[Hub]].\n",
		".obsidian/x.md": "[[Hub]]",
	} {
		testkit.WriteOld(t, filepath.Join(notesDir, rel), text)
	}
	testkit.WriteOld(t, filepath.Join(otherDir, "Other.md"), "# Other\n\n[[Nowhere]]\n")
	updates := make(chan vaultindex.Update, 64)
	cfg := config.Config{DataDir: dataDir, OllamaHost: fake.URL(), Model: "qwen3:4b", NumCtx: 4096, NotesDir: notesDir}
	settings := config.NewStore(cfg)
	p, err := OpenWith(t.Context(), settings, slog.New(slog.DiscardHandler), Owner, Extras{Kind: datadir.Serve,
		NotesIndex: []vaultindex.Option{vaultindex.WithOnUpdate(func(u vaultindex.Update) { updates <- u }),
			vaultindex.WithWatch(watch.WithDebounce(10 * time.Millisecond))}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	waitSynced(t, updates)
	var names []string
	for _, tl := range p.notes.Tools() {
		names = append(names, tl.Spec().Name)
	}
	for _, want := range []string{"find_notes", "search_notes", "note_links", "vault_orphans", "related_notes"} {
		if !slices.Contains(names, want) {
			t.Errorf("the tools lack %s: %v", want, names)
		}
	}
	p.ServeLocal(t.Context(), p.ServeBackend(t.Context(), ""))
	n := httpapi.DialLocal(datadir.SocketPath(dataDir)).Notes()
	hub, err := n.Links(t.Context(), "Hub.md")
	if err != nil {
		t.Fatal(err)
	}
	var from []string
	for _, l := range hub.Backlinks {
		from = append(from, l.From)
	}
	slices.Sort(from)
	if !hub.Indexed || !slices.Equal(from, []string{"notes/Alpha.md", "notes/Beta.md"}) || hub.BacklinkCount != 2 {
		t.Errorf("Hub's links %+v", hub)
	}
	alpha, err := n.Links(t.Context(), "notes/Alpha.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := []protocol.NoteLink{{From: "notes/Alpha.md", Target: "Missing", Line: 3, Wiki: true}}; !slices.Equal(alpha.Unresolved, want) {
		t.Errorf("Alpha's unresolved %+v, want %+v", alpha.Unresolved, want)
	}
	if l, err := n.Links(t.Context(), ".obsidian/x.md"); err != nil || l.Indexed {
		t.Errorf("a hidden note: %+v, %v", l, err)
	}
	if err := p.Settings().SetNotesDir(otherDir); err != nil {
		t.Fatal(err)
	}
	waitSynced(t, updates)
	other, err := n.Links(t.Context(), "Other.md")
	if err != nil || !other.Indexed || len(other.Unresolved) != 1 {
		t.Errorf("after the switch: %+v, %v", other, err)
	}
	if l, _ := n.Links(t.Context(), "Hub.md"); l.Indexed {
		t.Error("the old folder's note is still indexed after the switch")
	}
}

// TestADroppedFolderChangedElsewhereIsIndexedLive: a file written into a
// folder the user dropped reaches the document index through the watch,
// with the documents panel's progress, without a restart.
func TestADroppedFolderChangedElsewhereIsIndexedLive(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	dataDir, folder := t.TempDir(), t.TempDir()
	testkit.WriteOld(t, filepath.Join(folder, "wind.md"), "# Wind\n\nTurbines turn in the wind.\n")
	cfg := config.Config{DataDir: dataDir, OllamaHost: fake.URL(), Model: "qwen3:4b", NumCtx: 4096}
	p, err := OpenWith(t.Context(), config.NewStore(cfg), slog.New(slog.DiscardHandler), Owner,
		Extras{DocWatch: []watch.Option{watch.WithDebounce(10 * time.Millisecond)}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	docs := p.Documents(t.Context())
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Patience)
	defer cancel()
	progress := docs.Watch(ctx)
	has := func(name string) bool {
		st, err := docs.State(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range st.Documents {
			if filepath.Base(d.Path) == name && d.Status == "done" {
				return true
			}
		}
		return false
	}
	waitUntil := func(what string, ok func() bool) {
		for !ok() {
			select {
			case <-progress:
			case <-ctx.Done():
				t.Fatalf("waited for %s", what)
			}
		}
	}
	if err := docs.Add(ctx, []string{folder}); err != nil {
		t.Fatal(err)
	}
	waitUntil("the first pass", func() bool { return has("wind.md") })
	if err := os.WriteFile(filepath.Join(folder, "tide.md"), []byte("# Tide\n\nThe moon pulls the sea.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitUntil("the new file, through the watch", func() bool { return has("tide.md") })
}

// TestTheIndexToolsWaitForLinksOrNotes: a small folder without links gets
// no declaration of the index's tools (each takes room in a small model's
// context); a link makes them worth it.
func TestTheIndexToolsWaitForLinksOrNotes(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	dataDir, notesDir := t.TempDir(), t.TempDir()
	testkit.WriteOld(t, filepath.Join(notesDir, "plan.md"), "# Plan\n\nWrite the report.\n")
	updates := make(chan vaultindex.Update, 64)
	cfg := config.Config{DataDir: dataDir, OllamaHost: fake.URL(), Model: "qwen3:4b", NumCtx: 4096, NotesDir: notesDir}
	p, err := OpenWith(t.Context(), config.NewStore(cfg), slog.New(slog.DiscardHandler), Owner, Extras{
		NotesIndex: []vaultindex.Option{vaultindex.WithOnUpdate(func(u vaultindex.Update) { updates <- u }),
			vaultindex.WithWatch(watch.WithDebounce(10 * time.Millisecond))}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	waitSynced(t, updates)
	offered := func(name string) bool {
		return slices.ContainsFunc(p.notes.Tools(), func(tl tool.Tool) bool { return tl.Spec().Name == name })
	}
	if offered("search_notes") || !offered("find_notes") {
		t.Error("one note without links is offered the index's tools")
	}
	testkit.WriteOld(t, filepath.Join(notesDir, "todo.md"), "# Todo\n\nSee [[plan]].\n")
	for deadline := time.After(testkit.Patience); !offered("note_links"); {
		select {
		case <-updates:
		case <-deadline:
			t.Fatal("a link did not bring the index's tools")
		}
	}
}

// TestAMoveIsPlannedByTheIndexOnlyOnceItReadTheFolder: the chosen folder's
// moves are planned with its index's graph once that graph has read the
// whole folder, and from a scan of the folder before (or for another
// folder's index), so a move made while a large vault is first indexed
// never leaves a link the half-read graph does not know.
func TestAMoveIsPlannedByTheIndexOnlyOnceItReadTheFolder(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	dataDir, notesDir, otherDir := t.TempDir(), t.TempDir(), t.TempDir()
	testkit.WriteOld(t, filepath.Join(notesDir, "Hub.md"), "# Hub\n")
	testkit.WriteOld(t, filepath.Join(notesDir, "a/Alpha.md"), "[[Hub]] and [hub](../Hub.md)\n")
	updates := make(chan vaultindex.Update, 64)
	cfg := config.Config{DataDir: dataDir, OllamaHost: fake.URL(), Model: "qwen3:4b", NotesDir: notesDir}
	p, err := OpenWith(t.Context(), config.NewStore(cfg), slog.New(slog.DiscardHandler), Owner, Extras{Kind: datadir.Serve,
		NotesIndex: []vaultindex.Option{vaultindex.WithOnUpdate(func(u vaultindex.Update) { updates <- u })}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	waitSynced(t, updates)
	read := func(rel string) ([]byte, error) { return os.ReadFile(filepath.Join(notesDir, filepath.FromSlash(rel))) }

	x := p.notes.Index()
	for _, c := range []struct {
		name  string
		l     liveLinker
		ready bool
	}{
		{"the index of the folder, synced", liveLinker{n: p.notes, dir: notesDir}, true},
		{"another folder's index", liveLinker{n: p.notes, dir: otherDir}, false},
		{"no index", liveLinker{n: &notesTools{}, dir: notesDir}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			plan, err := c.l.PlanMove("Hub.md", "b/Hub 2.md", read)
			if !c.ready {
				if !errors.Is(err, notes.ErrGraphNotReady) {
					t.Fatalf("planned %+v, %v; want ErrGraphNotReady", plan, err)
				}
				return
			}
			if err != nil || plan.Links() != 2 || len(plan.Edits) != 1 {
				t.Fatalf("plan %+v, %v; want both links of a/Alpha.md", plan, err)
			}
		})
	}

	// A rescan that did not finish (lost events, a stop) leaves a graph
	// not ready until the next one does.
	testkit.WriteOld(t, filepath.Join(notesDir, "a/Beta.md"), "[[Hub]]\n")
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	if err := x.Sync(cancelled); err == nil || x.Synced() {
		t.Fatalf("a cancelled rescan: %v, synced %v", err, x.Synced())
	}
	live := liveLinker{n: p.notes, dir: notesDir}
	if _, err := live.PlanMove("Hub.md", "b/Hub 2.md", read); !errors.Is(err, notes.ErrGraphNotReady) {
		t.Fatalf("after a rescan cut short: %v, want ErrGraphNotReady", err)
	}
	if err := x.Sync(t.Context()); err != nil || !x.Synced() {
		t.Fatalf("a whole rescan: %v, synced %v", err, x.Synced())
	}
	if plan, err := live.PlanMove("Hub.md", "b/Hub 2.md", read); err != nil || plan.Links() != 3 {
		t.Fatalf("after the rescan: %+v, %v; want Beta's link too", plan, err)
	}
}

// TestFindNotesAnswersFromTheIndexOnceItReadTheFolder: the chosen folder's
// find_notes is answered by its index (ranked, no file read) once the
// index has read the whole folder, and by reading the files before, and
// its result says which.
func TestFindNotesAnswersFromTheIndexOnceItReadTheFolder(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	dataDir, notesDir := t.TempDir(), t.TempDir()
	testkit.WriteOld(t, filepath.Join(notesDir, "Kakapo.md"), "# Kakapo\n\nA kakapo is a parrot. Kakapo, kakapo.\n")
	testkit.WriteOld(t, filepath.Join(notesDir, "birds/list.md"), "# Birds\n\nkea, kakapo\n")
	updates := make(chan vaultindex.Update, 64)
	cfg := config.Config{DataDir: dataDir, OllamaHost: fake.URL(), Model: "qwen3:4b", NotesDir: notesDir}
	p, err := OpenWith(t.Context(), config.NewStore(cfg), slog.New(slog.DiscardHandler), Owner, Extras{Kind: datadir.Serve,
		NotesIndex: []vaultindex.Option{vaultindex.WithOnUpdate(func(u vaultindex.Update) { updates <- u })}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	waitSynced(t, updates)
	find := func() notes.Found {
		t.Helper()
		i := slices.IndexFunc(p.notes.Tools(), func(tl tool.Tool) bool { return tl.Spec().Name == "find_notes" })
		res, err := p.notes.Tools()[i].Run(t.Context(), tool.Call{ID: "f", Name: "find_notes", Arguments: []byte(`{"query":"kakapo"}`)})
		if err != nil {
			t.Fatal(err)
		}
		return res.Data.(notes.Found)
	}
	f := find()
	var got []string
	for _, h := range f.Hits {
		got = append(got, h.Path)
	}
	// the name first, then the notes ranked by the word: the note named
	// for it above the list that mentions it once
	if f.Source != notes.FromIndex || !slices.Equal(got, []string{"Kakapo.md", "Kakapo.md", "birds/list.md"}) {
		t.Fatalf("source %q, hits %v", f.Source, got)
	}
	testkit.WriteOld(t, filepath.Join(notesDir, "birds/more.md"), "# More\n")
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	if err := p.notes.Index().Sync(cancelled); err == nil {
		t.Fatal("a cancelled rescan succeeded")
	}
	if f := find(); f.Source != notes.FromScan || f.Why != notes.ErrIndexNotReady.Error() {
		t.Fatalf("while the index is not ready: source %q, why %q", f.Source, f.Why)
	}
}
