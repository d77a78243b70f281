package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// start runs the command with args and returns its URL, read from the
// first line of its output, and a function that stops it and returns
// run's error.
func start(t *testing.T, args ...string) (string, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	out, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, args, w, io.Discard)
		w.Close()
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("no first line: %v (run: %v)", err, <-done)
	}
	go io.Copy(io.Discard, out)
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
		cancel()
		t.Fatalf("first line %q; want listening on http://127.0.0.1:PORT", line)
	}
	return url, func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(5 * time.Second):
			t.Fatal("run did not return after its context ended")
			return nil
		}
	}
}

// chat sends one user message and returns the reply's text and chunk count.
func chat(t *testing.T, url, model, text string) (string, int) {
	t.Helper()
	body, _ := json.Marshal(api.ChatRequest{Model: model, Messages: []api.Message{{Role: "user", Content: text}}})
	resp, err := http.Post(url+"/api/chat", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var reply strings.Builder
	chunks := 0
	dec := json.NewDecoder(resp.Body)
	for {
		var r api.ChatResponse
		if err := dec.Decode(&r); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		reply.WriteString(r.Message.Content)
		if !r.Done {
			chunks++
		}
	}
	return reply.String(), chunks
}

func TestServesEchoWithDefaultModel(t *testing.T) {
	url, stop := start(t, "--addr", "127.0.0.1:0", "--delay", "1ms")
	reply, chunks := chat(t, url, "qwen3:4b", "hi there")
	if reply != "You said: hi there" || chunks < 3 {
		t.Errorf("reply %q in %d chunks; want the echo in several chunks", reply, chunks)
	}
	if err := stop(); err != nil {
		t.Errorf("run: %v", err)
	}
}

func TestServesScriptAndModels(t *testing.T) {
	script := filepath.Join(t.TempDir(), "turns.json")
	os.WriteFile(script, []byte(`[{"content":["Scripted ","reply."],"delay":"1ms"}]`), 0o600)
	url, stop := start(t, "--delay", "0s", "--script", script, "--model", "llama3.2:1b,nomic-embed-text=embedding", "--model", "qwen3:4b")
	defer stop()

	if reply, _ := chat(t, url, "llama3.2:1b", "x"); reply != "Scripted reply." {
		t.Errorf("first reply %q, want the scripted one", reply)
	}
	if reply, _ := chat(t, url, "qwen3:4b", "y"); reply != "You said: y" {
		t.Errorf("second reply %q, want the echo", reply)
	}
	resp, err := http.Post(url+"/api/show", "application/json", strings.NewReader(`{"model":"nomic-embed-text"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var show api.ShowResponse
	json.NewDecoder(resp.Body).Decode(&show)
	if len(show.Capabilities) != 1 || show.Capabilities[0] != "embedding" {
		t.Errorf("nomic-embed-text capabilities = %v, want [embedding]", show.Capabilities)
	}
}

// TestOffline: --offline fails pulls as an unreachable registry does.
func TestOffline(t *testing.T) {
	url, stop := start(t, "--offline", "--delay", "0s")
	defer stop()
	resp, err := http.Post(url+"/api/pull", "application/json", strings.NewReader(`{"model":"qwen3:4b","stream":false}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 500 || !strings.Contains(string(b), "pull model manifest: Get ") || !strings.Contains(string(b), "no such host") {
		t.Errorf("pull offline: %d %s", resp.StatusCode, b)
	}
}

func TestRefusesBadArguments(t *testing.T) {
	for _, args := range [][]string{
		{"--script", filepath.Join(t.TempDir(), "missing.json")},
		{"--delay", "soon"},
		{"extra"},
		{"--addr", "not-an-address"},
	} {
		if err := run(t.Context(), args, io.Discard, io.Discard); err == nil {
			t.Errorf("run %q succeeded; want an error", args)
		}
	}
}
