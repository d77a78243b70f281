package assembly

import (
	"log/slog"
	"net"
	"sync"
	"testing"

	"quire/config"
	"quire/kernel/protocol"
	"quire/test/ollamatest"
)

// stalledOllama is an address that takes connections and never answers
// (issue 30: a stalled Ollama delayed a keyword search by 2 s); it records
// every connection it was given.
type stalledOllama struct {
	ln    net.Listener
	mu    sync.Mutex
	seen  []string // the clients' addresses, in the order they connected
	conns []net.Conn
	next  chan struct{}
}

func newStalledOllama(t *testing.T) *stalledOllama {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &stalledOllama{ln: ln, next: make(chan struct{}, 1)}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.seen, s.conns = append(s.seen, c.RemoteAddr().String()), append(s.conns, c)
			s.mu.Unlock()
			select {
			case s.next <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, c := range s.conns {
			c.Close()
		}
	})
	return s
}

// others is how many connections came before a sentinel connection the
// test makes now: connections are accepted in the order they arrived, so
// once the sentinel is accepted every earlier one was.
func (s *stalledOllama) others(t *testing.T) int {
	t.Helper()
	c, err := net.Dial("tcp", s.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	me := c.LocalAddr().String()
	for {
		s.mu.Lock()
		for i, a := range s.seen {
			if a == me {
				s.mu.Unlock()
				return i
			}
		}
		s.mu.Unlock()
		select {
		case <-s.next:
		case <-t.Context().Done():
			t.Fatal("the sentinel connection was never accepted")
		}
	}
}

// TestAKeywordSearchNeverContactsOllama: `quire search -mode lexical` (a
// reader) ranks by words alone, which needs no model: it opens the index
// and searches without a single connection to Ollama, even with an
// embedding model chosen, so a stalled Ollama cannot delay it.
func TestAKeywordSearchNeverContactsOllama(t *testing.T) {
	dir := t.TempDir()
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	owner := openOwner(t, dir, fake.URL())
	indexGarden(t, owner)
	owner.Close()

	stalled := newStalledOllama(t)
	cfg := config.Config{DataDir: dir, OllamaHost: "http://" + stalled.ln.Addr().String(), Model: "qwen3:4b",
		NumCtx: 4096, EmbedModel: config.DefaultEmbedModel}
	p, err := Open(t.Context(), config.NewStore(cfg), slog.New(slog.DiscardHandler), Reader)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	idx, err := p.Index(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	hits, err := idx.Search(t.Context(), "basil", 5, protocol.SearchLexical)
	if err != nil || len(hits) == 0 {
		t.Fatalf("keyword search: %d hits, %v", len(hits), err)
	}
	if n := stalled.others(t); n != 0 {
		t.Fatalf("a keyword search made %d connections to Ollama, want none", n)
	}
}
