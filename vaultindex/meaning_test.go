package vaultindex_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"quire/test/ollamatest"
	"quire/vaultindex"
)

// synonyms is what the test's model knows of meaning: a word and its
// synonym get one vector, as a real model puts them close.
var synonyms = strings.NewReplacer("automobile", "car", "vehicle", "car", "physician", "doctor")

// wordModel embeds as the fake Ollama server does (ollamatest.Embedding),
// after the synonyms, and counts the texts it embedded.
type wordModel struct {
	mu    sync.Mutex
	texts []string
}

func (m *wordModel) Name() string { return "ollama:test-embed" }

func (m *wordModel) Embed(_ context.Context, texts []string) ([][]float32, error) {
	m.mu.Lock()
	m.texts = append(m.texts, texts...)
	m.mu.Unlock()
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = ollamatest.Embedding(synonyms.Replace(strings.ToLower(t)), 64)
	}
	return out, nil
}

func (m *wordModel) embedded() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.texts)
}

// settle waits until every note has vectors of its current text.
func settle(t *testing.T, db *sql.DB, reports <-chan [2]int) {
	t.Helper()
	deadline := time.After(30 * time.Second) // a guard against a hang, not a measure
	for {
		var waiting int
		if err := db.QueryRow(`SELECT count(*) FROM vault_notes WHERE kind = 'note' AND vec_hash != 'ollama:test-embed' || char(0) || hash`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting == 0 {
			return
		}
		select {
		case <-reports:
		case <-deadline:
			t.Fatalf("%d notes never got their vectors", waiting)
		}
	}
}

func vectorsOf(t *testing.T, db *sql.DB, path string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM vault_vectors v JOIN vault_notes n ON n.id = v.note_id WHERE n.path = ?`, path).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestNotesAreFoundByMeaning: every note's passages get the embedder's
// vectors, a search fuses words and meaning (a note with none of the
// query's words is found by meaning, and says so), a changed note
// re-embeds only its changed passages, a removed note drops its vectors,
// and related_notes counts meaning too.
func TestNotesAreFoundByMeaning(t *testing.T) {
	t.Parallel()
	dir := vaultDir(t, map[string]string{
		"Garage.md": "# Garage\n\nMy car needs new tyres before winter.\n",
		"Health.md": "---\ntags: [care]\n---\n# Health\n\nSee the doctor about the knee.\n",
		"Long.md":   "# Long\n\n## One\n\nkiwi mango papaya\n\n## Two\n\nbanana cherry\n\n## Three\n\nlemon lime\n",
		"Other.md":  "# Other\n\nNothing to see here: tomatoes and basil.\n",
		"Cars.md":   "# Cars\n\nMy car, a car, the car.\n",
	})
	db := openDB(t)
	reports := make(chan [2]int, 256)
	model := &wordModel{}
	x := synced(t, db, dir, vaultindex.WithMeaningFloor(0.2),
		vaultindex.WithEmbedProgress(func(done, total int) { reports <- [2]int{done, total} }))
	x.UseMeaning(model, "")
	settle(t, db, reports)
	if m := x.Meaning(); !m.On || m.Done != 5 || m.Total != 5 {
		t.Fatalf("meaning %+v", m)
	}

	hits, err := x.Search(t.Context(), vaultindex.Query{Text: "automobile", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(hits, func(h vaultindex.Hit) bool { return h.Path == "Garage.md" })
	if i < 0 || hits[i].MeaningRank == 0 || hits[i].LexicalRank != 0 || hits[i].Similarity <= 0 {
		t.Fatalf("automobile: %+v", hits)
	}
	if !strings.Contains(hits[i].Snippet, "car needs new tyres") || hits[i].Line != 3 {
		t.Errorf("the passage found by meaning: line %d %q", hits[i].Line, hits[i].Snippet)
	}
	if slices.ContainsFunc(hits, func(h vaultindex.Hit) bool { return h.Path == "Other.md" }) {
		t.Errorf("a note far from the query passed the floor: %+v", hits)
	}
	// words and meaning fused: the note with the word first
	hits, err = x.Search(t.Context(), vaultindex.Query{Text: "physician knee", Limit: 5})
	if err != nil || len(hits) == 0 || hits[0].Path != "Health.md" || hits[0].LexicalRank != 1 || hits[0].MeaningRank != 1 {
		t.Fatalf("physician knee: %+v, %v", hits, err)
	}
	// filters hold for the meaning arm too
	if hits, _ := x.Search(t.Context(), vaultindex.Query{Text: "automobile", Tags: []string{"care"}}); slices.Contains(paths(hits), "Garage.md") {
		t.Errorf("a tag filter let a note through by meaning: %v", paths(hits))
	}

	// one passage of three changes: one text is embedded again
	before := model.embedded()
	long := filepath.Join(dir, "Long.md")
	if err := os.WriteFile(long, []byte("# Long\n\n## One\n\nkiwi mango papaya\n\n## Two\n\nbanana cherry durian\n\n## Three\n\nlemon lime\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := x.Apply(t.Context(), []string{"Long.md"}); err != nil {
		t.Fatal(err)
	}
	settle(t, db, reports)
	if got := model.embedded() - before; got != 1 {
		t.Errorf("a note with one passage changed embedded %d texts, want 1", got)
	}
	if n := vectorsOf(t, db, "Long.md"); n != 3 {
		t.Errorf("Long.md has %d vectors, want 3", n)
	}

	rel, err := x.Related(t.Context(), "Garage.md", 5)
	if err != nil {
		t.Fatal(err)
	}
	if j := slices.IndexFunc(rel, func(r vaultindex.Related) bool { return r.Path == "Cars.md" }); j < 0 || !slices.Contains(rel[j].Reasons, "close in meaning") {
		t.Errorf("related_notes of Garage.md: %+v; want Cars.md, close in meaning", rel)
	}
	for _, r := range rel {
		if r.Path == "Garage.md" {
			t.Error("a note is related to itself")
		}
	}

	// a removed note drops its vectors, in the table and in memory
	if err := os.Remove(filepath.Join(dir, "Garage.md")); err != nil {
		t.Fatal(err)
	}
	if err := x.Apply(t.Context(), []string{"Garage.md"}); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := db.QueryRow(`SELECT count(*) FROM vault_vectors v LEFT JOIN vault_notes n ON n.id = v.note_id WHERE n.id IS NULL`).Scan(&left); err != nil || left != 0 {
		t.Errorf("%d vectors of removed notes (%v)", left, err)
	}
	if hits, _ := x.Search(t.Context(), vaultindex.Query{Text: "automobile"}); slices.Contains(paths(hits), "Garage.md") {
		t.Errorf("a removed note is found by meaning: %v", paths(hits))
	}

	// a restart loads the vectors from the table and embeds nothing again
	x.Close()
	before = model.embedded()
	y := synced(t, db, dir, vaultindex.WithMeaningFloor(0.2))
	y.UseMeaning(model, "")
	if hits, err := y.Search(t.Context(), vaultindex.Query{Text: "vehicle cherry", Limit: 3}); err != nil || len(hits) == 0 || hits[0].Path != "Long.md" {
		t.Errorf("after a restart: %+v, %v", hits, err)
	}
	y.Close()
	if got := model.embedded() - before; got > 1 { // the query itself
		t.Errorf("a restart with nothing changed embedded %d texts", got-1)
	}
}

// TestWithoutAnEmbedderNotesAreFoundByWordsAndWhyIsSaidOnce: no embedder,
// the search is by words, and the reason is said the first time only.
func TestWithoutAnEmbedderNotesAreFoundByWordsAndWhyIsSaidOnce(t *testing.T) {
	t.Parallel()
	dir := vaultDir(t, fixture)
	x := synced(t, openDB(t), dir)
	x.UseMeaning(nil, "no embedding model is chosen in the settings")
	if m := x.Meaning(); m.On || m.Reason == "" {
		t.Errorf("meaning %+v", m)
	}
	if got := x.MeaningNotice(); got != "Notes are found by their words only: no embedding model is chosen in the settings." {
		t.Errorf("first notice %q", got)
	}
	if got := x.MeaningNotice(); got != "" {
		t.Errorf("said again: %q", got)
	}
	if got := search(t, x, "zebra"); !slices.Equal(got, []string{"Lonely.md"}) {
		t.Errorf("by words: %v", got)
	}
}

// downModel is an embedder whose server is down.
type downModel struct{}

func (downModel) Name() string { return "ollama:down" }
func (downModel) Embed(context.Context, []string) ([][]float32, error) {
	return nil, errors.New("connection refused")
}

// TestAFailingEmbedderLeavesTheWords: an embedder that fails keeps the
// search by words, and the notice says how far the vectors are and why.
func TestAFailingEmbedderLeavesTheWords(t *testing.T) {
	t.Parallel()
	dir := vaultDir(t, fixture)
	reports := make(chan [2]int, 16)
	x := synced(t, openDB(t), dir, vaultindex.WithEmbedProgress(func(done, total int) { reports <- [2]int{done, total} }))
	x.UseMeaning(downModel{}, "")
	// The loop reports before its round and again once the round failed:
	// the notice is read after the second.
	for range 2 {
		select {
		case r := <-reports:
			if r[0] != 0 {
				t.Errorf("progress %v with a failing embedder", r)
			}
		case <-time.After(30 * time.Second): // a guard against a hang, not a measure
			t.Fatal("no progress")
		}
	}
	if got := search(t, x, "zebra"); !slices.Equal(got, []string{"Lonely.md"}) {
		t.Errorf("by words: %v", got)
	}
	if n := x.MeaningNotice(); !strings.Contains(n, "covers 0 of 4 notes") || !strings.Contains(n, "connection refused") {
		t.Errorf("notice %q", n)
	}
}
