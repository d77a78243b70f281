package ollama_test

import (
	"net/http"
	"slices"
	"sync"
	"testing"

	"quire/kernel/provider/ollama"
	"quire/test/ollamatest"
)

// paths counts the requests a client sends, by path.
type paths struct {
	mu sync.Mutex
	n  map[string]int
}

func (p *paths) RoundTrip(r *http.Request) (*http.Response, error) {
	p.mu.Lock()
	p.n[r.URL.Path]++
	p.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

func (p *paths) count(path string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n[path]
}

// TestCatalogAsksOncePerModel: what a model can do is asked of /api/show
// once, however often a run or a step asks; a failure is not kept, and
// ToolModels lists only the installed models that can call tools.
func TestCatalogAsksOncePerModel(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	srv.AddModel(ollamatest.DefaultModel())
	srv.AddModel(ollamatest.Model{Name: "gemma:2b"})
	srv.AddModel(ollamatest.Model{Name: "nomic-embed-text", Capabilities: []string{"embedding"}})
	srv.AddModel(ollamatest.Model{Name: "llama3.2:3b", Capabilities: []string{"completion", "tools"}})
	count := &paths{n: map[string]int{}}
	c := ollama.NewCatalog(ollama.New(mustHost(t, srv.URL()), &http.Client{Transport: count}))

	for range 3 {
		caps, err := c.Capabilities(t.Context(), "gemma:2b")
		if err != nil || !slices.Equal(caps, []string{"completion"}) {
			t.Fatalf("Capabilities = %v, %v", caps, err)
		}
	}
	if n := count.count("/api/show"); n != 1 {
		t.Fatalf("/api/show asked %d times for one model, want 1", n)
	}
	for range 2 {
		if _, err := c.Capabilities(t.Context(), "absent:1b"); err == nil {
			t.Fatal("a model that is not installed has capabilities")
		}
	}
	if n := count.count("/api/show"); n != 3 {
		t.Fatalf("/api/show asked %d times, want 3: a failure must be asked again", n)
	}
	got, err := c.ToolModels(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if want := []string{"llama3.2:3b", "qwen3:4b"}; !slices.Equal(got, want) {
		t.Fatalf("ToolModels = %v, want %v", got, want)
	}
	c.Forget("gemma:2b")
	before := count.count("/api/show")
	c.Capabilities(t.Context(), "gemma:2b")
	if count.count("/api/show") != before+1 {
		t.Fatal("a forgotten model was answered from the cache")
	}
}

// TestCatalogAsksAnotherServerAfresh: the Settings screen moves the adapter
// to another Ollama (SetHost); what the first server said of a model's name
// is not what the second one has.
func TestCatalogAsksAnotherServerAfresh(t *testing.T) {
	t.Parallel()
	first, second := ollamatest.New(t), ollamatest.New(t)
	first.AddModel(ollamatest.Model{Name: "tiny-text", Capabilities: []string{"completion"}})
	second.AddModel(ollamatest.Model{Name: "tiny-text", Capabilities: []string{"completion", "tools"}})
	p := ollama.New(mustHost(t, first.URL()), &http.Client{})
	c := ollama.NewCatalog(p)
	if caps, err := c.Capabilities(t.Context(), "tiny-text"); err != nil || slices.Contains(caps, "tools") {
		t.Fatalf("first server: %v, %v", caps, err)
	}
	p.SetHost(mustHost(t, second.URL()))
	if caps, err := c.Capabilities(t.Context(), "tiny-text"); err != nil || !slices.Contains(caps, "tools") {
		t.Fatalf("after moving to the second server, Capabilities = %v, %v; want the second server's, with tools", caps, err)
	}
}
