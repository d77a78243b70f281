package assembly

import (
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"quire/config"
	"quire/kernel/tool"
	"quire/test/ollamatest"
	"quire/test/testkit"
	"quire/tools/notegraph"
	"quire/vaultindex"
)

// openNotesWithEmbedder opens the parts on a small linked notes folder,
// with the settings' embedding model served by the fake Ollama server
// (embedModel "" chooses none), and waits until the notes are indexed
// and, with a model, embedded.
func openNotesWithEmbedder(t *testing.T, embedModel string) *Parts {
	t.Helper()
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.AddModel(ollamatest.Model{Name: "nomic-embed-text", Capabilities: []string{"embedding"}, Family: "nomic-bert"})
	dataDir, notesDir := t.TempDir(), t.TempDir()
	testkit.WriteOld(t, filepath.Join(notesDir, "Garage.md"), "# Garage\n\nThe car needs new tyres before winter. See [[Recipes]].\n")
	testkit.WriteOld(t, filepath.Join(notesDir, "Recipes.md"), "# Recipes\n\nTomato soup with basil.\n")
	cfg := config.Config{DataDir: dataDir, OllamaHost: fake.URL(), Model: "qwen3:4b", NumCtx: 4096, NotesDir: notesDir, EmbedModel: embedModel}
	if embedModel == "" {
		cfg.EmbedModel = config.NoEmbedModel
	}
	updates := make(chan vaultindex.Update, 64)
	embedded := make(chan [2]int, 64)
	p, err := OpenWith(t.Context(), config.NewStore(cfg), slog.New(slog.DiscardHandler), Owner, Extras{
		NotesIndex: []vaultindex.Option{vaultindex.WithOnUpdate(func(u vaultindex.Update) { updates <- u }),
			vaultindex.WithMeaningFloor(0.2),
			vaultindex.WithEmbedProgress(func(done, total int) { embedded <- [2]int{done, total} })}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	waitSynced(t, updates)
	if embedModel == "" {
		return p
	}
	for deadline := time.After(testkit.Patience); ; {
		select {
		case r := <-embedded:
			if r[0] == r[1] && r[1] == 2 {
				return p
			}
		case <-deadline:
			t.Fatal("the notes were never embedded")
		}
	}
}

func searchNotes(t *testing.T, p *Parts, query string) (tool.Result, notegraph.SearchData) {
	t.Helper()
	ts := p.notes.Tools()
	i := slices.IndexFunc(ts, func(tl tool.Tool) bool { return tl.Spec().Name == "search_notes" })
	if i < 0 {
		t.Fatal("search_notes is not offered")
	}
	res, err := ts[i].Run(t.Context(), tool.Call{ID: "s", Name: "search_notes", Arguments: []byte(`{"query":"` + query + `"}`)})
	if err != nil {
		t.Fatal(err)
	}
	return res, res.Data.(notegraph.SearchData)
}

// TestNotesGetTheDocumentsEmbedder: with an embedding model in the
// settings, the notes' passages get its vectors (from the fake Ollama
// server) in the same database as the documents', and search_notes and
// search_docs' notes rank by words and meaning fused.
func TestNotesGetTheDocumentsEmbedder(t *testing.T) {
	p := openNotesWithEmbedder(t, "nomic-embed-text")
	var n int
	var name string
	if err := p.store.DB().QueryRow(`SELECT count(*), max(embedder) FROM vault_vectors`).Scan(&n, &name); err != nil || n != 2 || name != "ollama:nomic-embed-text" {
		t.Fatalf("%d vectors of %q (%v); want 2 of the model", n, name, err)
	}
	_, data := searchNotes(t, p, "car tyres")
	if len(data.Hits) == 0 || data.Hits[0].Path != "Garage.md" || data.Hits[0].LexicalRank != 1 || data.Hits[0].MeaningRank != 1 {
		t.Fatalf("search_notes: %+v", data.Hits)
	}
	if data.Meaning != "" {
		t.Errorf("a notice with every note embedded: %q", data.Meaning)
	}
	hits, err := (noteSearch{p.notes.Index()}).SearchNotes(t.Context(), "car tyres", 5)
	if err != nil || len(hits) == 0 || hits[0].Path != "Garage.md" {
		t.Fatalf("search_docs' notes: %+v, %v", hits, err)
	}
}

// TestWithoutAnEmbeddingModelSearchNotesSaysWhyOnce: no model chosen, the
// notes are searched by words and search_notes says why, once.
func TestWithoutAnEmbeddingModelSearchNotesSaysWhyOnce(t *testing.T) {
	p := openNotesWithEmbedder(t, "")
	res, data := searchNotes(t, p, "car")
	if len(data.Hits) != 1 || data.Hits[0].MeaningRank != 0 || !strings.Contains(res.Content, "Notes are found by their words only: no embedding model is chosen in the settings.") {
		t.Fatalf("first search: %s", res.Content)
	}
	if res, _ := searchNotes(t, p, "car"); strings.Contains(res.Content, "words only") {
		t.Errorf("said again: %s", res.Content)
	}
}
