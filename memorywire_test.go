package main

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"quire/config"
	"quire/host/httpapi"
	"quire/internal/ollamatest"
	"quire/kernel/protocol"
)

// TestMemoryPanelThroughHTTPAndTheWindow drives the memory panel's backend
// as both hosts do — `quire serve`'s /api/memory and the window's bound
// methods — over the real services: an item the model remembered is listed,
// edited, approved and forgotten, bad input gets its sentence, and the
// settings are saved for the next start.
func TestMemoryPanelThroughHTTPAndTheWindow(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.Script(ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "c1", Name: "remember", Arguments: []byte(`{"kind":"preference","text":"Tags are lower-case."}`)}}},
		ollamatest.Turn{Content: []string{"Noted."}})
	dir := t.TempDir()
	s, err := openServices(t.Context(), configFor(dir, fake.URL()), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sess, _ := protocol.Run[protocol.Session](t.Context(), s.kernel(), "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "m"})
	if _, err := protocol.Run[protocol.SendResult](t.Context(), s.kernel(), "", protocol.SendMessage, protocol.SendMessagePayload{Session: sess.ID, Text: "I like lower-case tags"}); err != nil {
		t.Fatal(err)
	}
	waitFinishedRuns(t, s, sess.ID, 1)

	srv := httptest.NewServer(httpapi.New(httpapi.Backend{Kernel: s.kernel(), Memory: s.memoryPanel()}, fstest.MapFS{}, slog.New(slog.DiscardHandler)))
	defer srv.Close()
	call := func(method, path, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), method, srv.URL+path, strings.NewReader(body))
		req.Header.Set(httpapi.ProtocolHeader, protocol.Version)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	code, body := call("GET", "/api/memory", "")
	var list protocol.MemoryList
	if err := json.Unmarshal([]byte(body), &list); code != 200 || err != nil || len(list.Items) != 1 {
		t.Fatalf("GET /api/memory: %d %s", code, body)
	}
	it := list.Items[0]
	if it.Text != "Tags are lower-case." || it.Session != sess.ID || it.Kind != "preference" {
		t.Fatalf("item %+v", it)
	}
	for _, c := range []struct {
		method, path, body string
		code               int
		says               string
	}{
		{"PATCH", "/api/memory/" + it.ID, `{"text":"Tags are lower-case and singular."}`, 200, "singular"},
		{"PATCH", "/api/memory/" + it.ID, `{"text":"   "}`, 400, "empty"},
		{"PATCH", "/api/memory/" + it.ID, `{"text":"` + strings.Repeat("x", 501) + `"}`, 400, "501 characters"},
		{"PATCH", "/api/memory/" + it.ID, `{"txt":"typo"}`, 400, "the new text"},
		{"PATCH", "/api/memory/nope", `{"text":"x"}`, 404, "nope"},
		{"DELETE", "/api/memory/nope", "", 404, "nope"},
		{"POST", "/api/memory/" + it.ID + "/review", `{"approve":true}`, 409, "already kept"},
		{"PUT", "/api/memory/settings", `{}`, 400, "approval"},
		{"PUT", "/api/memory/settings", `{"approval":true,"learn":true}`, 200, `"approval":true`},
	} {
		code, body := call(c.method, c.path, c.body)
		if code != c.code || !strings.Contains(body, c.says) {
			t.Errorf("%s %s %s: %d %s; want %d saying %q", c.method, c.path, c.body, code, body, c.code, c.says)
		}
	}
	saved, err := config.ReadSettings(dir)
	if err != nil || !saved.MemoryApproval || !saved.MemoryLearn {
		t.Errorf("settings not saved: %+v %v", saved, err)
	}

	// The window's bound methods reach the same backend.
	a := newApp(s.kernel(), s.doctor, "", slog.New(slog.DiscardHandler))
	a.memory = s.memoryPanel()
	if _, err := a.MemoryList(); err == nil {
		t.Error("MemoryList answered before the handshake")
	}
	if _, err := a.Handshake(protocol.Version); err != nil {
		t.Fatal(err)
	}
	got, err := a.MemoryList()
	if err != nil || len(got.Items) != 1 || got.Items[0].Text != "Tags are lower-case and singular." || !got.Approval {
		t.Fatalf("MemoryList = %+v, %v", got, err)
	}
	if err := a.ForgetMemory(it.ID); err != nil {
		t.Fatal(err)
	}
	if code, body := call("GET", "/api/memory", ""); code != 200 || strings.Contains(body, it.ID) {
		t.Errorf("after forget: %d %s", code, body)
	}
	if err := a.ForgetMemory(it.ID); err == nil || !strings.Contains(err.Error(), it.ID) {
		t.Errorf("forgetting twice: %v", err)
	}
}
