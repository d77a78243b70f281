package assembly

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"quire/config"
	"quire/doctor"
	"quire/kernel/protocol"
	"quire/kernel/provider/ollama"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

// newTestModels is the models screen's back end over the fake server at
// url, with a clock that moves one second per reading.
func newTestModels(t *testing.T, url string) *models {
	t.Helper()
	host, err := ollama.ParseHost(url)
	if err != nil {
		t.Fatal(err)
	}
	var tick atomic.Int64
	clock := func() time.Time { return time.Unix(1_700_000_000+tick.Add(1), 0) }
	m := newModels(ollama.New(host, &http.Client{}), slog.New(slog.DiscardHandler), clock)
	t.Cleanup(m.close)
	return m
}

// until reads pull states from ch until one of model is final, and
// returns every state read.
func until(t *testing.T, ch <-chan protocol.PullProgress, model string) []protocol.PullProgress {
	t.Helper()
	timeout := time.NewTimer(testkit.Patience)
	defer timeout.Stop()
	var seen []protocol.PullProgress
	for {
		select {
		case p, ok := <-ch:
			if !ok {
				t.Fatalf("the watch closed before %s ended; saw %+v", model, seen)
			}
			seen = append(seen, p)
			if p.Model == model && p.State != protocol.PullRunning {
				return seen
			}
		case <-timeout.C:
			t.Fatalf("waited %s for the pull of %s to end; saw %+v", testkit.Patience, model, seen)
		}
	}
}

func TestModelsListSaysWhatEachCanDo(t *testing.T) {
	t.Parallel()
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.AddModel(ollamatest.Model{Name: "nomic-embed-text", Family: "nomic-bert", Capabilities: []string{"embedding"}, ContextLength: 2048, Size: 274_302_450})
	fake.Load("qwen3:4b")
	m := newTestModels(t, fake.URL())

	st, err := m.List(t.Context())
	if err != nil || st.Error != "" {
		t.Fatalf("List = %+v, %v", st, err)
	}
	if len(st.Installed) != 2 {
		t.Fatalf("installed = %+v, want 2", st.Installed)
	}
	embed, chat := st.Installed[0], st.Installed[1]
	if embed.Name != "nomic-embed-text:latest" || embed.Loaded || embed.ContextLength != 2048 ||
		strings.Join(embed.Capabilities, ",") != "embedding" || embed.Size != 274_302_450 || embed.Family != "nomic-bert" {
		t.Errorf("embedding model = %+v", embed)
	}
	if chat.Name != "qwen3:4b" || !chat.Loaded || chat.ContextLength != 40960 ||
		strings.Join(chat.Capabilities, ",") != "completion,tools,thinking" || chat.Quantization != "Q4_K_M" {
		t.Errorf("chat model = %+v", chat)
	}
	installed := map[string]bool{}
	for _, r := range st.Recommended {
		installed[r.Name] = r.Installed
		if r.DownloadSize <= 0 || r.Summary == "" {
			t.Errorf("recommended %+v has no size or summary", r)
		}
	}
	if !installed["qwen3:4b"] || !installed["nomic-embed-text"] || installed["qwen3:8b"] {
		t.Errorf("recommended installed = %v; want qwen3:4b and nomic-embed-text (as Ollama matches names), not qwen3:8b", installed)
	}
}

func TestModelsListWithoutOllamaStillRecommends(t *testing.T) {
	t.Parallel()
	fake := ollamatest.New(t)
	url := fake.URL()
	fake.Close()
	m := newTestModels(t, url)
	st, err := m.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(st.Error, "Ollama is not running") || len(st.Installed) != 0 || len(st.Recommended) != len(recommended) {
		t.Errorf("List without Ollama = %+v; want the sentence, nothing installed, the recommended list", st)
	}
}

func TestPullReportsProgressAndInstalls(t *testing.T) {
	t.Parallel()
	fake := ollamatest.New(t)
	fake.AddPullable(ollamatest.Model{Name: "tiny-text", Size: 4000})
	m := newTestModels(t, fake.URL())
	watch := m.Watch(t.Context())
	if err := m.Pull(t.Context(), "Tiny-Text"); err != nil {
		t.Fatal(err)
	}
	seen := until(t, watch, "Tiny-Text")
	first, last := seen[0], seen[len(seen)-1]
	if first.State != protocol.PullRunning || first.StartedMs == 0 {
		t.Errorf("first state = %+v, want running with its start", first)
	}
	if last.State != protocol.PullDone || last.Completed != 4487 || last.Total != 4487 || last.Status != "success" {
		t.Errorf("last state = %+v, want done with 4487 of 4487 bytes (both layers)", last)
	}
	if last.AtMs <= last.StartedMs {
		t.Errorf("the last reading (%d) is not after the start (%d)", last.AtMs, last.StartedMs)
	}
	st, _ := m.List(t.Context())
	if len(st.Installed) != 1 || st.Installed[0].Name != "tiny-text:latest" {
		t.Errorf("after the pull, installed = %+v", st.Installed)
	}
	if len(st.Pulls) != 1 || st.Pulls[0].State != protocol.PullDone {
		t.Errorf("pulls = %+v, want the one done", st.Pulls)
	}
}

// TestPullCancelKeepsBytesAndAPullResumes: a cancelled pull says so, and
// the next pull of the name continues where it stopped.
func TestPullCancelKeepsBytesAndAPullResumes(t *testing.T) {
	t.Parallel()
	// The fake holds the pull at 2,000 of the first layer's 4,000 bytes
	// until it is cancelled.
	fake := ollamatest.New(t, ollamatest.WithHeldWait(5))
	fake.AddPullable(ollamatest.Model{Name: "qwen3:4b", Size: 4000})
	m := newTestModels(t, fake.URL())
	watch := m.Watch(t.Context())
	if err := m.Pull(t.Context(), "qwen3:4b"); err != nil {
		t.Fatal(err)
	}
	// Half way, a second Pull of the same model (as Ollama spells it
	// otherwise) joins the first instead of starting another; then cancel.
	for p := range watch {
		if p.Completed == 2000 {
			break
		}
	}
	if err := m.Pull(t.Context(), "library/qwen3:4b"); err != nil {
		t.Fatal(err)
	}
	if ps := m.pulls(); len(ps) != 1 || ps[0].State != protocol.PullRunning {
		t.Fatalf("pulls = %+v, want one running", ps)
	}
	m.CancelPull("QWEN3:4b")
	seen := until(t, watch, "qwen3:4b")
	if last := seen[len(seen)-1]; last.State != protocol.PullCancelled || last.Completed != 2000 || last.Error != "" {
		t.Fatalf("cancelled pull ended %+v, want cancelled at 2000 bytes", last)
	}

	if err := m.Pull(t.Context(), "qwen3:4b"); err != nil {
		t.Fatal(err)
	}
	seen = until(t, watch, "qwen3:4b")
	for _, p := range seen {
		if p.Total > 0 && p.Completed < 2000 {
			t.Errorf("the resumed pull went back to %d bytes: %+v", p.Completed, p)
		}
	}
	if last := seen[len(seen)-1]; last.State != protocol.PullDone || last.Completed != 4487 {
		t.Errorf("resumed pull ended %+v, want done", last)
	}
}

func TestPullRefusesAndFails(t *testing.T) {
	t.Parallel()
	fake := ollamatest.New(t)
	m := newTestModels(t, fake.URL())
	if err := m.Pull(t.Context(), "bad name!"); !errors.Is(err, protocol.ErrBadPayload) {
		t.Errorf("a bad name: %v, want ErrBadPayload", err)
	}
	watch := m.Watch(t.Context())
	if err := m.Pull(t.Context(), "no-such-model"); err != nil {
		t.Fatal(err)
	}
	seen := until(t, watch, "no-such-model")
	last := seen[len(seen)-1]
	if last.State != protocol.PullFailed || last.Problem != protocol.PullUnknown || !strings.Contains(last.Error, "ollama.com/library") {
		t.Errorf("a pull of an unknown model ended %+v", last)
	}
}

func TestDeleteModel(t *testing.T) {
	t.Parallel()
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.Model{Name: "tiny-text"})
	m := newTestModels(t, fake.URL())
	if err := m.Delete(t.Context(), "tiny-text"); err != nil {
		t.Fatal(err)
	}
	err := m.Delete(t.Context(), "tiny-text")
	if !errors.Is(err, protocol.ErrNotFound) || !strings.Contains(err.Error(), "does not have the model") {
		t.Errorf("deleting it again: %v, want ErrNotFound with the sentence", err)
	}
}

func TestPullWatcherKeepsEveryEndAndTheLatestFigure(t *testing.T) {
	t.Parallel()
	run := func(model string, done int64) protocol.PullProgress {
		return protocol.PullProgress{Model: model, State: protocol.PullRunning, Completed: done}
	}
	end := func(model, state string) protocol.PullProgress {
		return protocol.PullProgress{Model: model, State: state}
	}
	tests := []struct {
		name string
		put  []protocol.PullProgress
		want []protocol.PullProgress
	}{
		{"running figures coalesce", []protocol.PullProgress{run("a", 1), run("a", 2), run("a", 3)}, []protocol.PullProgress{run("a", 3)}},
		{"an end replaces the figure queued before it", []protocol.PullProgress{run("a", 1), end("a", protocol.PullDone)}, []protocol.PullProgress{end("a", protocol.PullDone)}},
		{"an end is never replaced", []protocol.PullProgress{end("a", protocol.PullFailed), end("a", protocol.PullDone)}, []protocol.PullProgress{end("a", protocol.PullFailed), end("a", protocol.PullDone)}},
		{"another pull's figure is not replaced", []protocol.PullProgress{run("a", 1), run("b", 1), run("a", 2)}, []protocol.PullProgress{run("a", 1), run("b", 1), run("a", 2)}},
		{"a figure after an end is kept", []protocol.PullProgress{end("a", protocol.PullCancelled), run("a", 5)}, []protocol.PullProgress{end("a", protocol.PullCancelled), run("a", 5)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := &pullWatcher{wake: make(chan struct{}, 1)}
			for _, p := range tc.put {
				w.put(p)
			}
			got := w.take()
			if len(got) != len(tc.want) {
				t.Fatalf("took %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("took[%d] = %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
	w := &pullWatcher{wake: make(chan struct{}, 1)}
	for i := range maxPending + 10 {
		w.put(end(string(rune('a'+i%26))+"x", protocol.PullDone))
	}
	if n := len(w.take()); n != maxPending {
		t.Errorf("a watcher that never reads holds %d states, want the bound %d", n, maxPending)
	}
}

// TestPartsModelsEndTheirPullsOnClose: a pull running when Quire closes
// stops, and Close waits for it.
func TestPartsModelsEndTheirPullsOnClose(t *testing.T) {
	fake := ollamatest.New(t, ollamatest.WithDelay(time.Hour))
	fake.AddPullable(ollamatest.Model{Name: "tiny-text"})
	p := openOwner(t, t.TempDir(), fake.URL())
	ms := p.Models()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	watch := ms.Watch(ctx)
	if err := ms.Pull(t.Context(), "tiny-text"); err != nil {
		t.Fatal(err)
	}
	<-watch // running
	p.Close()
	if st := ms.(*models).pulls(); len(st) != 1 || st[0].State != protocol.PullCancelled {
		t.Errorf("after Close, pulls = %+v; want the pull cancelled (the next start resumes it)", st)
	}
	if err := ms.Pull(t.Context(), "tiny-text"); !errors.Is(err, errModelsClosed) {
		t.Errorf("a pull after Close: %v, want errModelsClosed", err)
	}
}

// TestDoctorMatchesModelNamesAsOllamaAndPrintsTheAddressUsed: a model
// setting Ollama accepts under another spelling is installed, and the
// Ollama line names the address the adapter dials, not the setting.
func TestDoctorMatchesModelNamesAsOllamaAndPrintsTheAddressUsed(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.Model{Name: "tiny-text", Capabilities: []string{"completion", "tools"}})
	typed := strings.TrimPrefix(fake.URL(), "http://") // as OLLAMA_HOST is often set
	for _, model := range []string{"Tiny-Text", "library/tiny-text", "registry.ollama.ai/library/tiny-text:latest"} {
		t.Run(model, func(t *testing.T) {
			cfg := config.Config{DataDir: t.TempDir(), OllamaHost: typed, Model: model, NumCtx: 4096}
			p, err := Open(t.Context(), config.NewStore(cfg), slog.New(slog.DiscardHandler), Reader)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			checks := map[string]doctor.Check{}
			for _, c := range p.Doctor(t.Context()).Checks {
				checks[c.Name] = c
			}
			if c := checks["Chat model"]; !c.OK || !strings.Contains(c.Detail, "tiny-text:latest") {
				t.Errorf("Chat model: %+v; want installed as tiny-text:latest", c)
			}
			if c := checks["Tool use"]; !c.OK {
				t.Errorf("Tool use: %+v", c)
			}
			if c := checks["Ollama"]; !strings.Contains(c.Detail, "at "+fake.URL()) {
				t.Errorf("Ollama: %q; want the address used, %s", c.Detail, fake.URL())
			}
		})
	}
}

// TestAPulledOrDeletedModelIsAskedAfresh: the runtime's catalog caches
// what each model can do; a pull (a new version of the name) or a delete
// must not leave the old answer there.
func TestAPulledOrDeletedModelIsAskedAfresh(t *testing.T) {
	t.Parallel()
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.Model{Name: "tiny-text", Capabilities: []string{"completion"}})
	m := newTestModels(t, fake.URL())
	catalog := ollama.NewCatalog(m.ollama)
	m.changed = catalog.Forget
	caps := func() []string {
		t.Helper()
		c, err := catalog.Capabilities(t.Context(), "tiny-text")
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if c := caps(); slices.Contains(c, "tools") {
		t.Fatalf("before the pull: %v", c)
	}
	// A newer version of the name, as `ollama pull` of an updated tag brings.
	fake.AddModel(ollamatest.Model{Name: "tiny-text", Capabilities: []string{"completion", "tools"}})
	watch := m.Watch(t.Context())
	if err := m.Pull(t.Context(), "Tiny-Text:latest"); err != nil {
		t.Fatal(err)
	}
	until(t, watch, "Tiny-Text:latest")
	if c := caps(); !slices.Contains(c, "tools") {
		t.Errorf("after pulling a version that calls tools, the catalog still says %v", c)
	}
	if err := m.Delete(t.Context(), "tiny-text"); err != nil {
		t.Fatal(err)
	}
	if _, err := catalog.Capabilities(t.Context(), "tiny-text"); err == nil {
		t.Error("after the delete, the catalog still answers for the model")
	}
}

// TestEndedPullsAreBounded: every name a page asks for is remembered while
// it runs, but only the latest maxEnded ended pulls stay in the listing.
func TestEndedPullsAreBounded(t *testing.T) {
	t.Parallel()
	fake := ollamatest.New(t)
	m := newTestModels(t, fake.URL())
	watch := m.Watch(t.Context())
	const asked = maxEnded + 8
	for i := range asked {
		name := fmt.Sprintf("absent-%d", i)
		if err := m.Pull(t.Context(), name); err != nil {
			t.Fatal(err)
		}
		if last := until(t, watch, name); last[len(last)-1].State != protocol.PullFailed {
			t.Fatalf("%s: %+v, want failed", name, last[len(last)-1])
		}
	}
	st, err := m.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Pulls) != maxEnded || st.Pulls[0].Model != fmt.Sprintf("absent-%d", asked-maxEnded) || st.Pulls[maxEnded-1].Model != fmt.Sprintf("absent-%d", asked-1) {
		t.Errorf("%d pulls listed, first %q; want the latest %d", len(st.Pulls), st.Pulls[0].Model, maxEnded)
	}
}
