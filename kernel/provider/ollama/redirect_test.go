package ollama_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"quire/kernel/provider"
	"quire/kernel/provider/ollama"
	"quire/test/ollamatest"
)

// TestSetHostMovesEveryLaterRequest: after SetHost the chat, the probes
// and the messages all use the new address; the old server hears nothing
// more.
func TestSetHostMovesEveryLaterRequest(t *testing.T) {
	t.Parallel()
	first, p := fake(t)
	second := ollamatest.New(t)
	second.AddModel(ollamatest.DefaultModel())
	if _, err := collect(t, t.Context(), p, hello("qwen3:4b")); err != nil {
		t.Fatal(err)
	}
	p.SetHost(mustHost(t, second.URL()))
	if _, err := collect(t, t.Context(), p, hello("qwen3:4b")); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Version(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got, want := len(first.Requests()), 1; got != want {
		t.Errorf("the first server got %d chat requests, want %d", got, want)
	}
	if got, want := len(second.Requests()), 1; got != want {
		t.Errorf("the second server got %d chat requests, want %d", got, want)
	}
	if got, want := p.Host(), mustHost(t, second.URL()).String(); got != want {
		t.Errorf("Host() = %q, want %q", got, want)
	}

	down := closedPort(t)
	p.SetHost(mustHost(t, down))
	_, err := p.Version(t.Context())
	if !errors.Is(err, provider.ErrUnavailable) || !strings.Contains(err.Error(), strings.TrimPrefix(down, "http://")) {
		t.Errorf("Version at a closed port = %v, want ErrUnavailable naming %s", err, down)
	}
}

// TestSetHostKeepsThePathPrefix: a server behind a path prefix gets its
// requests under that prefix, whatever address the Provider was made with.
func TestSetHostKeepsThePathPrefix(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ from, to, want string }{
		{"", "/ollama", "/ollama/api/version"},
		{"/old", "", "/api/version"},
		{"/old/", "/new/", "/new/api/version"},
	} {
		var mu sync.Mutex
		var paths []string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			paths = append(paths, r.URL.Path)
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"version":"0.17.4"}`))
		}))
		t.Cleanup(srv.Close)
		p := ollama.New(mustHost(t, srv.URL+tc.from), nil)
		p.SetHost(mustHost(t, srv.URL+tc.to))
		if v, err := p.Version(t.Context()); err != nil || v != "0.17.4" {
			t.Fatalf("%s -> %s: Version = %q, %v", tc.from, tc.to, v, err)
		}
		mu.Lock()
		if len(paths) != 1 || paths[0] != tc.want {
			t.Errorf("%s -> %s: the server saw %q, want [%s]", tc.from, tc.to, paths, tc.want)
		}
		mu.Unlock()
	}
}

// TestAnswersReadWholeAreBounded: something at the Ollama address that
// answers /api/tags or /api/version without end is cut at MaxAnswerBytes
// with ErrAnswerTooLarge (Ollama's client would read it all into memory);
// an ordinary answer at the same address still reads.
func TestAnswersReadWholeAreBounded(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	served := 0
	endless := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/version" {
			w.Write([]byte(`{"version":"0.17.4"}`))
			return
		}
		w.Write([]byte(`{"models":[{"name":"`))
		chunk := []byte(strings.Repeat("a", 64<<10))
		for range (64 << 20) / len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			mu.Lock()
			served += len(chunk)
			mu.Unlock()
		}
	}))
	defer endless.Close()
	p := ollama.New(mustHost(t, endless.URL), &http.Client{})
	if v, err := p.Version(t.Context()); err != nil || v != "0.17.4" {
		t.Fatalf("an ordinary answer: %q, %v", v, err)
	}
	_, err := p.Models(t.Context())
	if !errors.Is(err, ollama.ErrAnswerTooLarge) {
		t.Fatalf("an endless model list: %v, want ErrAnswerTooLarge", err)
	}
	endless.CloseClientConnections()
	mu.Lock()
	defer mu.Unlock()
	if served > ollama.MaxAnswerBytes+(24<<20) { // room for the sockets' buffers; unbounded, all 64 MiB go
		t.Errorf("the server sent %d MiB before the read stopped; the bound is %d MiB", served>>20, ollama.MaxAnswerBytes>>20)
	}
}
