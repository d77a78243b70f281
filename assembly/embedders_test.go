package assembly

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"quire/config"
	"quire/doctor"
	"quire/host"
	"quire/kernel/protocol"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

func embedModel(name string, dims int) ollamatest.Model {
	return ollamatest.Model{Name: name, Capabilities: []string{"embedding"}, EmbeddingLength: dims, Family: "nomic-bert", Size: 274_000_000}
}

// embedFixture is the fake Ollama with the chat model and embed-small, a
// data folder, and a notes folder with one note about wind (and one about
// the sun when two are asked for).
func embedFixture(t *testing.T, notes int) (fake *ollamatest.Server, dir, folder string) {
	t.Helper()
	fake = ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.AddModel(embedModel("embed-small", 32))
	dir, folder = t.TempDir(), t.TempDir()
	testkit.WriteOld(t, filepath.Join(folder, "wind.md"), "# Wind\n\nTurbines turn in the wind.\n")
	if notes > 1 {
		testkit.WriteOld(t, filepath.Join(folder, "sun.md"), "# Sun\n\nPanels face the sun.\n")
	}
	return fake, dir, folder
}

func openEmbedOwner(t *testing.T, dir, url, embedModel string, clock *testkit.Clock) (*Parts, host.Documents) {
	t.Helper()
	p := openEmbed(t, Owner, dir, url, embedModel, clock)
	return p, p.Documents(t.Context())
}

// openEmbed opens the parts over dir in mode, with embedModel chosen and
// the back-off timed by clock; the caller closes them.
func openEmbed(t *testing.T, mode Mode, dir, url, embedModel string, clock *testkit.Clock) *Parts {
	t.Helper()
	cfg := config.Config{DataDir: dir, OllamaHost: url, Model: "qwen3:4b", NumCtx: 4096, EmbedModel: embedModel}
	p, err := OpenWith(t.Context(), config.NewStore(cfg), slog.New(slog.DiscardHandler), mode, Extras{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// indexWithEmbedSmall is a first start that indexes the notes folder
// with embed-small and ends once its vectors rank searches.
func indexWithEmbedSmall(t *testing.T, fake *ollamatest.Server, dir, notes string, clock *testkit.Clock) {
	t.Helper()
	p, docs := openEmbedOwner(t, dir, fake.URL(), "embed-small", clock)
	defer p.Close()
	if err := docs.Add(t.Context(), []string{notes}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitIndexed(t, docs, 1)
	waitInUse(t, docs, "ollama:embed-small")
}

// waitInUse waits until the documents panel says want ranks searches, with
// no switch pending and no pass running.
func waitInUse(t *testing.T, docs host.Documents, want string) protocol.DocumentsState {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Patience)
	defer cancel()
	changes := docs.Watch(ctx)
	for {
		st, err := docs.State(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.Embedding.InUse == want && st.Embedding.Target == "" && !st.Progress.Running {
			return st
		}
		select {
		case <-changes:
		case <-ctx.Done():
			t.Fatalf("waited for %s to be in use: %+v", want, st.Embedding)
		}
	}
}

func embeddingLine(t *testing.T, p *Parts) doctor.Check {
	t.Helper()
	for _, c := range p.Doctor(t.Context()).Checks {
		if c.Name == "Embedding model" {
			return c
		}
	}
	t.Fatal("doctor has no embedding line")
	return doctor.Check{}
}

// TestTheEmbeddingModelIsSeenCheckedAgainAndSwitched: two embedding models
// of different lengths on the fake Ollama. The chosen one is missing at
// start: the panel and doctor say so and search uses what the index has;
// once it is installed, a search after the back-off finds it and the
// documents are re-embedded with it without a restart; switching to the
// other model re-embeds again, and the next start goes on with it.
func TestTheEmbeddingModelIsSeenCheckedAgainAndSwitched(t *testing.T) {
	fake, dir, notes := embedFixture(t, 2)
	clock := testkit.NewClock()
	p, docs := openEmbedOwner(t, dir, fake.URL(), "embed-large", clock)
	if err := docs.Add(t.Context(), []string{notes}); err != nil {
		t.Fatal(err)
	}
	st := testkit.WaitIndexed(t, docs, 2)
	if e := st.Embedding; e.Status != protocol.EmbedMissing || !strings.Contains(e.Problem, "embed-large is not installed") || !st.Offline {
		t.Fatalf("the chosen model missing at start: %+v", st.Embedding)
	}
	if c := embeddingLine(t, p); !strings.Contains(c.Detail, "embed-large is chosen but not installed: search uses keywords only") || !strings.Contains(c.Remedy, "ollama pull embed-large") {
		t.Errorf("doctor: %+v", c)
	}

	search := recheckingSearcher{p.rag, p}
	if _, err := search.Search(t.Context(), "wind", 3); err != nil { // checks: still missing, backs off
		t.Fatal(err)
	}
	fake.AddModel(embedModel("embed-large", 48))
	if _, err := search.Search(t.Context(), "wind", 3); err != nil || p.rag.Target() != "" {
		t.Fatalf("a search within the back-off switched (target %q, %v)", p.rag.Target(), err)
	}
	clock.Add(5 * time.Second)
	if _, err := search.Search(t.Context(), "wind", 3); err != nil {
		t.Fatal(err)
	}
	st = waitInUse(t, docs, "ollama:embed-large")
	if e := st.Embedding; e.Status != protocol.EmbedReady || e.Dimensions != 48 || e.Problem != "" {
		t.Errorf("after the model was installed: %+v", e)
	}
	hits, err := search.Search(t.Context(), "turbines wind", 3)
	if err != nil || len(hits) == 0 || hits[0].VectorRank == 0 {
		t.Errorf("search with the model: %+v, %v", hits, err)
	}
	if c := embeddingLine(t, p); !c.OK || c.Detail != "embed-large is installed, 48 dimensions" {
		t.Errorf("doctor: %+v", c)
	}

	lib := p.library
	if err := lib.SetEmbedModel(t.Context(), "embed-small"); err != nil {
		t.Fatal(err)
	}
	st = waitInUse(t, docs, "ollama:embed-small")
	if st.Embedding.Dimensions != 32 {
		t.Errorf("after the switch: %+v", st.Embedding)
	}
	if saved, err := config.ReadSettings(dir); err != nil || saved.EmbedModel != "embed-small" {
		t.Errorf("saved %q, %v", saved.EmbedModel, err)
	}
	p.Close()

	again, docs := openEmbedOwner(t, dir, fake.URL(), "embed-small", clock)
	defer again.Close()
	st, err = docs.State(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if e := st.Embedding; e.InUse != "ollama:embed-small" || e.Target != "" || e.Status != protocol.EmbedReady {
		t.Errorf("the next start: %+v", e)
	}
}

// TestOllamaDownKeepsTheModelsVectors: a start while Ollama is not running
// does not throw the model's vectors away for the offline embedder: the
// index goes on with them (search by keywords until Ollama answers), and
// doctor's embedding line says so, leaving the failure to the Ollama line.
func TestOllamaDownKeepsTheModelsVectors(t *testing.T) {
	fake, dir, notes := embedFixture(t, 1)
	clock := testkit.NewClock()
	indexWithEmbedSmall(t, fake, dir, notes, clock)
	fake.Close() // Ollama stops

	down, docs := openEmbedOwner(t, dir, fake.URL(), "embed-small", clock)
	defer down.Close()
	st, err := docs.State(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if e := st.Embedding; e.InUse != "ollama:embed-small" || e.Target != "" || e.Status != protocol.EmbedUnreachable {
		t.Errorf("started with Ollama down: %+v", e)
	}
	if c := embeddingLine(t, down); !c.OK || !strings.Contains(c.Detail, "Ollama is not answering: search uses keywords and the vectors ollama:embed-small made before") {
		t.Errorf("doctor: %+v", c)
	}
	hits, err := recheckingSearcher{down.rag, down}.Search(t.Context(), "turbines", 3)
	if err != nil || len(hits) != 1 || down.rag.VectorError() == "" {
		t.Errorf("search with Ollama down: %+v, %v, vector error %q", hits, err, down.rag.VectorError())
	}
}

// TestTheSettingsScreenSwitchesTheEmbedder: choosing another embedding
// model on the Settings screen re-embeds the documents now, as the
// Documents panel does; a model Ollama does not have is refused beside its
// field, and a save with another field refused switches nothing.
func TestTheSettingsScreenSwitchesTheEmbedder(t *testing.T) {
	fake, dir, notes := embedFixture(t, 1)
	fake.AddModel(embedModel("embed-large", 48))
	p, docs := openEmbedOwner(t, dir, fake.URL(), "embed-small", testkit.NewClock())
	defer p.Close()
	if err := docs.Add(t.Context(), []string{notes}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitIndexed(t, docs, 1)
	waitInUse(t, docs, "ollama:embed-small")

	tooHot := 5.0
	_, err := p.Settings().Update(t.Context(), screenSettings(t, p, func(u *protocol.UserSettings) {
		u.EmbedModel, u.Temperature = "embed-large", &tooHot
	}))
	var se *protocol.SettingError
	if !errors.As(err, &se) || se.Field != "temperature" {
		t.Fatalf("a refused temperature: %v", err)
	}
	if st, _ := docs.State(t.Context()); st.Embedding.Target != "" || st.Embedding.InUse != "ollama:embed-small" {
		t.Fatalf("a save refused for its temperature switched the embedder: %+v", st.Embedding)
	}

	_, err = p.Settings().Update(t.Context(), screenSettings(t, p, func(u *protocol.UserSettings) { u.EmbedModel = "embed-absent" }))
	if !errors.As(err, &se) || se.Field != "embedModel" || !strings.Contains(se.Message, "embed-absent") {
		t.Fatalf("a model Ollama does not have: %v", err)
	}
	if saved, _ := config.ReadSettings(dir); saved.EmbedModel == "embed-absent" {
		t.Error("the refused model was saved")
	}

	if _, err := p.Settings().Update(t.Context(), screenSettings(t, p, func(u *protocol.UserSettings) { u.EmbedModel = "embed-large" })); err != nil {
		t.Fatal(err)
	}
	if st := waitInUse(t, docs, "ollama:embed-large"); st.Embedding.Dimensions != 48 {
		t.Errorf("after choosing embed-large in Settings: %+v", st.Embedding)
	}
	if saved, err := config.ReadSettings(dir); err != nil || saved.EmbedModel != "embed-large" {
		t.Errorf("saved %q, %v", saved.EmbedModel, err)
	}
}

// TestAReadersDoctorSaysWhatSearchRanksWith: `quire doctor` with no owner
// running (a Reader) said "search uses keywords only" while the vectors
// stored with the last model still rank a search (issue 32): it now opens
// the index as a search would and names them.
func TestAReadersDoctorSaysWhatSearchRanksWith(t *testing.T) {
	fake, dir, notes := embedFixture(t, 1)
	clock := testkit.NewClock()
	indexWithEmbedSmall(t, fake, dir, notes, clock)

	// The chosen model is now one Ollama does not have.
	r := openEmbed(t, Reader, dir, fake.URL(), "embed-large", clock)
	defer r.Close()
	if c := embeddingLine(t, r); !strings.Contains(c.Detail, "search uses keywords and the vectors ollama:embed-small made before") {
		t.Errorf("a reader's doctor: %+v", c)
	}
}

// TestIndexFinishesAPendingSwitch: with another embedding model chosen
// than the stored vectors were made with, `quire index` (an owner with no
// documents panel running) said "nothing changed" and left the switch for
// a window to make (issue 32); its pass now re-embeds with the chosen
// model, as the panel would in the background.
func TestIndexFinishesAPendingSwitch(t *testing.T) {
	fake, dir, notes := embedFixture(t, 1)
	fake.AddModel(embedModel("embed-large", 48))
	clock := testkit.NewClock()
	indexWithEmbedSmall(t, fake, dir, notes, clock)

	// As `quire index` opens it: an owner, no documents panel.
	o := openEmbed(t, Owner, dir, fake.URL(), "embed-large", clock)
	defer o.Close()
	idx, err := o.Index(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got := idx.Embedder(); got != "ollama:embed-small" {
		t.Fatalf("before the pass the index ranks with %q, want the stored embed-small", got)
	}
	if err := idx.Index(t.Context(), []string{notes}, func(protocol.IndexProgress) {}); err != nil {
		t.Fatal(err)
	}
	if got := idx.Embedder(); got != "ollama:embed-large" {
		t.Errorf("after the pass the index ranks with %q, want the chosen embed-large", got)
	}
}

// TestADoctorOutOfTimeDoesNotBlameOllama: `quire doctor` printed "ok
// Ollama version 0.17.4" and then the embedding model "could not be
// checked, Ollama is not answering" (issue 31): the embedding line asked
// Ollama on the doctor's deadline after the database check had spent it.
// It now has a deadline of its own; and a check whose caller's time ran
// out says it was not checked, never that Ollama is not answering.
func TestADoctorOutOfTimeDoesNotBlameOllama(t *testing.T) {
	fake, dir, _ := embedFixture(t, 1)
	p, _ := openEmbedOwner(t, dir, fake.URL(), "embed-small", testkit.NewClock())
	defer p.Close()
	if c := embeddingLine(t, p); !c.OK || !strings.HasPrefix(c.Detail, "embed-small is installed") {
		t.Errorf("doctor with Ollama answering: %+v", c)
	}
	spent, cancel := context.WithTimeout(t.Context(), 0)
	defer cancel()
	<-spent.Done()
	c := p.embeddingCheck(spent)
	if strings.Contains(c.Detail, "not answering") || !strings.Contains(c.Detail, "embed-small was not checked") || !strings.Contains(c.Remedy, "quire doctor") {
		t.Errorf("a check out of time: %+v", c)
	}
}
