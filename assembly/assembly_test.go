package assembly

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"quire/config"
	"quire/host"
	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/rag"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

// openOwner assembles the parts over dataDir as the window does.
func openOwner(t *testing.T, dataDir, ollamaURL string) *Parts {
	t.Helper()
	cfg := config.Config{DataDir: dataDir, OllamaHost: ollamaURL, Model: "qwen3:4b", NumCtx: 4096}
	p, err := Open(t.Context(), config.NewStore(cfg), slog.New(slog.DiscardHandler), Owner)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestOpenPlanItemsExtendTheRunOnce: a plan with open items at the end of a
// run gets one reminder step, and no more.
func TestOpenPlanItemsExtendTheRunOnce(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.Script(
		ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "c1", Name: "update_todos", Arguments: []byte(`{"items":[{"text":"file plan.md"}]}`)}}},
		ollamatest.Turn{Content: []string{"I made a plan."}},
		ollamatest.Turn{Content: []string{"Still to do."}},
	)
	dir := t.TempDir()
	s := openOwner(t, dir, fake.URL())
	defer s.Close()
	sess, _ := protocol.Run[protocol.Session](t.Context(), s.Kernel(), "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "p"})
	if _, err := protocol.Run[protocol.SendResult](t.Context(), s.Kernel(), "", protocol.SendMessage, protocol.SendMessagePayload{Session: sess.ID, Text: "organise"}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitRuns(t, s.Kernel(), sess.ID, 1)
	reqs := fake.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls, want 3 (plan, reply, one reminder step)", len(reqs))
	}
	last := reqs[2].Chat.Messages
	if m := last[len(last)-1]; m.Role != "user" || !strings.Contains(m.Content, "file plan.md") {
		t.Fatalf("the reminder step's last message: %+v", m)
	}
}

// TestNotesFolderIsRememberedAndGivesTheTools: choosing a notes folder turns
// the note tools on for later runs and is saved for the next start.
func TestNotesFolderIsRememberedAndGivesTheTools(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	dir, notesDir := t.TempDir(), t.TempDir()
	s := openOwner(t, dir, fake.URL())
	defer s.Close()
	if err := s.Settings().SetNotesDir(filepath.Join(notesDir, "missing")); err == nil {
		t.Fatal("a folder that does not exist was accepted")
	}
	if saved, _ := config.ReadSettings(dir); saved.NotesDir != "" {
		t.Fatalf("a refused folder was saved: %q", saved.NotesDir)
	}
	if err := s.Settings().SetNotesDir(notesDir); err != nil {
		t.Fatal(err)
	}
	saved, err := config.ReadSettings(dir)
	if err != nil || saved.NotesDir != notesDir {
		t.Fatalf("settings %+v %v", saved, err)
	}
	sess, _ := protocol.Run[protocol.Session](t.Context(), s.Kernel(), "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "n"})
	if _, err := protocol.Run[protocol.SendResult](t.Context(), s.Kernel(), "", protocol.SendMessage, protocol.SendMessagePayload{Session: sess.ID, Text: "list"}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitRuns(t, s.Kernel(), sess.ID, 1)
	evs, err := s.Kernel().Events(t.Context(), sess.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	names := offered(fake, 0)
	// At num_ctx 4096 not all of them fit: the run offers those "list"
	// needs and names the rest as left out (runtime fitTools).
	var leftOut []string
	for _, e := range evs {
		if e.Type == string(event.InputReceived) {
			p, err := event.As[event.InputReceivedPayload](event.Event{Type: event.Type(e.Type), Payload: e.Payload})
			if err == nil && p.Caps != nil {
				leftOut = p.Caps.LeftOut
			}
		}
	}
	if !slices.Contains(names, "list_notes") {
		t.Errorf("the model was not offered list_notes (tools: %v)", names)
	}
	for _, want := range []string{"move_note", "update_todos", "undo"} {
		if !slices.Contains(names, want) && !slices.Contains(leftOut, want) {
			t.Errorf("the run has no %s, offered or left out (tools: %v, left out: %v)", want, names, leftOut)
		}
	}
	// No document is indexed: search_docs would only take room.
	if slices.Contains(names, "search_docs") {
		t.Errorf("search_docs was offered with no document indexed (tools: %v)", names)
	}
	indexGarden(t, s)
	if _, err := protocol.Run[protocol.SendResult](t.Context(), s.Kernel(), "", protocol.SendMessage, protocol.SendMessagePayload{Session: sess.ID, Text: "search"}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitRuns(t, s.Kernel(), sess.ID, 2)
	if names := offered(fake, 1); !slices.Contains(names, "search_docs") {
		t.Errorf("search_docs was not offered with a document indexed (tools: %v)", names)
	}
}

// indexGarden indexes a folder holding one small document and returns
// the index.
func indexGarden(t *testing.T, p *Parts) host.Index {
	t.Helper()
	docs := t.TempDir()
	if err := os.WriteFile(filepath.Join(docs, "garden.md"), []byte("# Garden\n\nWater the basil every morning.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	idx, err := p.Index(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := idx.Index(t.Context(), []string{docs}, func(protocol.IndexProgress) {}); err != nil {
		t.Fatal(err)
	}
	return idx
}

// offered names the tools of the fake server's nth chat request.
func offered(fake *ollamatest.Server, n int) []string {
	var names []string
	for _, tl := range fake.Requests()[n].Chat.Tools {
		names = append(names, tl.Function.Name)
	}
	return names
}

func TestUnavailableDatabaseStillAnswers(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "quire.db")
	if err := os.WriteFile(dbPath, []byte(strings.Repeat("garbage!", 2000)), 0o600); err != nil {
		t.Fatal(err)
	}
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	s := openOwner(t, dir, fake.URL())
	defer s.Close()
	if _, err := s.Kernel().Sessions(t.Context()); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("sessions on a damaged database: %v", err)
	}
	r := s.Doctor(t.Context())
	if r.OK {
		t.Fatal("doctor passed with a damaged database")
	}
	last := r.Checks[len(r.Checks)-1]
	if last.Name != "Database" || last.OK || !strings.Contains(last.Remedy, "will not write to it") {
		t.Fatalf("database check %+v", last)
	}
}

// openReader assembles the parts over dataDir as `quire sessions` does.
func openReader(t *testing.T, dataDir string) *Parts {
	t.Helper()
	cfg := config.Config{DataDir: dataDir, OllamaHost: "http://127.0.0.1:1", Model: "qwen3:4b", NumCtx: 4096}
	p, err := Open(t.Context(), config.NewStore(cfg), slog.New(slog.DiscardHandler), Reader)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// TestReaderOfAnEmptyFolderMakesNothing: a reader over a data folder with
// no database lists no conversation, finds no session, says the database
// is not created yet, and creates no file.
func TestReaderOfAnEmptyFolderMakesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	p := openReader(t, dir)
	if list, err := p.Kernel().Sessions(t.Context()); err != nil || len(list) != 0 {
		t.Fatalf("sessions %v, %v", list, err)
	}
	if _, err := p.Kernel().Events(t.Context(), "s1", 0); !errors.Is(err, protocol.ErrNotFound) {
		t.Fatalf("events of a session that cannot exist: %v", err)
	}
	if _, err := p.Index(t.Context()); err == nil || !strings.Contains(err.Error(), "no document has been indexed yet") {
		t.Fatalf("the index over no database: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the reader made the data folder: %v", err)
	}
	checks := p.Doctor(t.Context()).Checks
	if db := checks[len(checks)-1]; db.Name != "Database" || !db.OK || !strings.Contains(db.Detail, "not created yet") {
		t.Fatalf("database check %+v", db)
	}
	if _, err := os.Stat(filepath.Join(dir, "quire.db")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a database file appeared: %v", err)
	}
	// A folder with no owner and no lock file: doctor says none runs and
	// makes no lock file to find out.
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if c := reportLine(t, p.Doctor(t.Context()), "Owner"); !c.OK || !strings.HasPrefix(c.Detail, "not running") {
		t.Fatalf("owner check %+v", c)
	}
	if _, err := os.Stat(filepath.Join(dir, "quire.lock")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("doctor made a lock file: %v", err)
	}
}

// TestReaderRefusesEveryChange: commands, the notes folder and indexing are
// refused by a reader, and the database keeps what it had.
func TestReaderRefusesEveryChange(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	dir := t.TempDir()
	owner := openOwner(t, dir, fake.URL())
	if _, err := protocol.Run[protocol.Session](t.Context(), owner.Kernel(), "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "kept"}); err != nil {
		t.Fatal(err)
	}
	owner.Close()

	p := openReader(t, dir)
	if _, err := protocol.Run[protocol.Session](t.Context(), p.Kernel(), "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "new"}); !errors.Is(err, protocol.ErrConflict) || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("a command to a reader: %v", err)
	}
	if err := p.Settings().SetNotesDir(t.TempDir()); !errors.Is(err, errReadOnly) {
		t.Fatalf("the notes folder from a reader: %v", err)
	}
	if saved, _ := config.ReadSettings(dir); saved.NotesDir != "" {
		t.Fatalf("a reader saved the notes folder %q", saved.NotesDir)
	}
	idx, err := p.Index(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := idx.Index(t.Context(), []string{t.TempDir()}, func(protocol.IndexProgress) {}); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("a reader indexed: %v", err)
	}
	if p.Documents(t.Context()) != nil || p.Memory() != nil {
		t.Fatal("a reader offers the documents or memory panel")
	}
	list, err := p.Kernel().Sessions(t.Context())
	if err != nil || len(list) != 1 || list[0].Title != "kept" {
		t.Fatalf("sessions %+v, %v", list, err)
	}
}

// countingEmbedder counts the texts it embeds for the embedder it wraps.
type countingEmbedder struct {
	rag.Embedder
	texts atomic.Int64
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.texts.Add(int64(len(texts)))
	return c.Embedder.Embed(ctx, texts)
}

// TestExtrasWrapThePickedEmbedder: Extras.Embedder is given the embedder the
// root picked — Ollama's when it has the embedding model, nil (the offline
// one) when it does not — and the index embeds with what it returns.
func TestExtrasWrapThePickedEmbedder(t *testing.T) {
	for _, tc := range []struct {
		name      string
		installed bool
		want      string // the picked embedder's name; "" for nil
	}{
		{"ollama has the embedding model", true, "ollama:" + config.DefaultEmbedModel},
		{"ollama does not", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := ollamatest.New(t)
			fake.AddModel(ollamatest.DefaultModel())
			if tc.installed {
				fake.AddModel(ollamatest.Model{Name: config.DefaultEmbedModel, Capabilities: []string{"embedding"}, Family: "nomic-bert"})
			}
			cfg := config.Config{DataDir: t.TempDir(), OllamaHost: fake.URL(), Model: "qwen3:4b", NumCtx: 4096, EmbedModel: config.DefaultEmbedModel}
			var picked rag.Embedder
			var wrapped *countingEmbedder
			p, err := OpenWith(t.Context(), config.NewStore(cfg), slog.New(slog.DiscardHandler), Owner, Extras{Embedder: func(e rag.Embedder) rag.Embedder {
				picked = e
				if e == nil {
					return nil
				}
				wrapped = &countingEmbedder{Embedder: e}
				return wrapped
			}})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			name := ""
			if picked != nil {
				name = picked.Name()
			}
			if name != tc.want {
				t.Fatalf("the picked embedder is %q, want %q", name, tc.want)
			}
			idx := indexGarden(t, p)
			if wrapped != nil && wrapped.texts.Load() == 0 {
				t.Fatal("the index did not embed with the embedder Extras returned")
			}
			if got := idx.Embedder(); tc.installed && got != tc.want {
				t.Fatalf("the index names its embedder %q, want %q", got, tc.want)
			}
		})
	}
}
