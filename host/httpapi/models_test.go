package httpapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"quire/doctor"
	"quire/host/httpapi"
	"quire/kernel/protocol"
	"quire/test/testkit"
)

// stubModels is a host.Models that records what the routes ask of it; the
// composition root's own is tested in assembly against the fake Ollama.
type stubModels struct {
	mu       sync.Mutex
	calls    []string
	updates  chan protocol.PullProgress
	watching chan struct{}
}

func (s *stubModels) record(c string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, c)
}

func (s *stubModels) List(context.Context) (protocol.ModelsState, error) {
	s.record("list")
	return protocol.ModelsState{Installed: []protocol.ModelInfo{{Name: "qwen3:4b", Capabilities: []string{"tools"}, Loaded: true}},
		Recommended: s.Recommended()}, nil
}

func (s *stubModels) Pull(_ context.Context, name string) error {
	s.record("pull " + name)
	if name == "bad name" {
		return protocol.Classify(protocol.ErrBadPayload, fmt.Errorf("not a valid Ollama model name: %q", name))
	}
	return nil
}
func (s *stubModels) CancelPull(name string) { s.record("cancel " + name) }
func (s *stubModels) Delete(_ context.Context, name string) error {
	s.record("delete " + name)
	switch name {
	case "gone":
		return protocol.Classify(protocol.ErrNotFound, fmt.Errorf("Ollama does not have the model %q", name))
	case "down":
		return fmt.Errorf("Ollama is not running at 127.0.0.1:11434")
	}
	return nil
}
func (s *stubModels) Recommended() []protocol.RecommendedModel {
	return []protocol.RecommendedModel{{Name: "qwen3:4b", Role: protocol.RoleChat, DownloadSize: 2_500_000_000}}
}
func (s *stubModels) Watch(ctx context.Context) <-chan protocol.PullProgress {
	close(s.watching)
	return s.updates
}

func serveModels(t *testing.T, m *stubModels) client {
	t.Helper()
	k := testkit.New(t)
	h := httpapi.New(httpapi.Backend{Kernel: k.Runtime, Models: m,
		Doctor: func(context.Context) doctor.Report { return doctor.Report{OK: true} }},
		fstest.MapFS{"index.html": {Data: []byte("Quire")}}, slog.New(slog.DiscardHandler))
	return start(t, h)
}

func TestModelsRoutes(t *testing.T) {
	m := &stubModels{updates: make(chan protocol.PullProgress), watching: make(chan struct{})}
	srv := serveModels(t, m)
	status, body := srv.do(t, "POST", httpapi.OpPath+"Models.List", "")
	var st protocol.ModelsState
	if status != http.StatusOK || json.Unmarshal([]byte(body), &st) != nil || len(st.Installed) != 1 || !st.Installed[0].Loaded || len(st.Recommended) != 1 {
		t.Fatalf("Models.List: %d %s", status, body)
	}
	for _, tc := range []struct {
		op, model string
		status    int
		says      string
	}{
		{"Models.Pull", "qwen3:8b", http.StatusNoContent, ""},
		{"Models.Pull", "bad name", http.StatusBadRequest, "not a valid Ollama model name"},
		{"Models.CancelPull", "qwen3:8b", http.StatusNoContent, ""},
		{"Models.Delete", "tiny", http.StatusNoContent, ""},
		{"Models.Delete", "gone", http.StatusNotFound, "does not have the model"},
		{"Models.Delete", "down", http.StatusInternalServerError, "Ollama is not running"},
	} {
		b, _ := json.Marshal([]string{tc.model})
		status, body := srv.do(t, "POST", httpapi.OpPath+tc.op, string(b))
		if status != tc.status || !strings.Contains(body, tc.says) {
			t.Errorf("%s %s: %d %s; want %d saying %q", tc.op, tc.model, status, body, tc.status, tc.says)
		}
	}
	if status, _ := srv.do(t, "POST", httpapi.OpPath+"Models.Pull", "{not json"); status != http.StatusBadRequest {
		t.Errorf("a body that is not JSON: %d, want 400", status)
	}
	want := "list,pull qwen3:8b,pull bad name,cancel qwen3:8b,delete tiny,delete gone,delete down"
	if got := strings.Join(m.calls, ","); got != want {
		t.Errorf("the routes asked %s, want %s", got, want)
	}
}

func TestModelsPullStreamIsSSE(t *testing.T) {
	m := &stubModels{updates: make(chan protocol.PullProgress), watching: make(chan struct{})}
	srv := serveModels(t, m)
	req := srv.request(t, "GET", "/api/models/pull/stream?protocol="+protocol.Version, "")
	req.Header.Del(httpapi.ProtocolHeader)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	<-m.watching
	sent := []protocol.PullProgress{
		{Model: "qwen3:8b", State: protocol.PullRunning, Completed: 10, Total: 100, AtMs: 1},
		{Model: "qwen3:8b", State: protocol.PullFailed, Problem: protocol.PullOffline, Error: "Ollama could not reach the model registry"},
	}
	go func() {
		for _, p := range sent {
			m.updates <- p
		}
	}()
	lines := bufio.NewScanner(resp.Body)
	var got []protocol.PullProgress
	event := ""
	for len(got) < len(sent) && lines.Scan() {
		if e, ok := strings.CutPrefix(lines.Text(), "event: "); ok {
			event = e
		}
		data, ok := strings.CutPrefix(lines.Text(), "data: ")
		if !ok {
			continue
		}
		var p protocol.PullProgress
		if err := json.Unmarshal([]byte(data), &p); err != nil || event != "pull" {
			t.Fatalf("event %q data %q: %v", event, data, err)
		}
		got = append(got, p)
	}
	for i := range sent {
		if i >= len(got) || got[i] != sent[i] {
			t.Fatalf("streamed %+v, want %+v", got, sent)
		}
	}
}

func TestModelsRoutesWithoutModels(t *testing.T) {
	k := testkit.New(t)
	h := httpapi.New(httpapi.Backend{Kernel: k.Runtime,
		Doctor: func(context.Context) doctor.Report { return doctor.Report{OK: true} }},
		fstest.MapFS{"index.html": {Data: []byte("Quire")}}, slog.New(slog.DiscardHandler))
	if status, body := start(t, h).do(t, "GET", "/api/models/pull/stream", ""); status != http.StatusServiceUnavailable || !strings.Contains(body, "not available") {
		t.Errorf("the pull stream without models: %d %s", status, body)
	}
}
