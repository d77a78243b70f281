package window

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"testing/fstest"

	"quire/config"
	"quire/host/httpapi"
	"quire/kernel/protocol"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

// TestMemoryPanelThroughHTTPAndTheWindow drives the memory panel's backend
// as both hosts do — `quire serve`'s operations route and the window's Op
// — over the real services: an item the model remembered is listed,
// edited, approved and forgotten, bad input gets its sentence, and the
// settings are saved for the next start.
func TestMemoryPanelThroughHTTPAndTheWindow(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.Script(ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "c1", Name: "remember", Arguments: []byte(`{"kind":"preference","text":"Tags are lower-case."}`)}}},
		ollamatest.Turn{Content: []string{"Noted."}})
	dir := t.TempDir()
	s := openOwner(t, dir, fake.URL())
	defer s.Close()
	// remember asks by default; the user says yes.
	s.SetAsker(func(context.Context, protocol.Question) (protocol.Answer, error) {
		return protocol.Answer{Allowed: true}, nil
	})
	sess, _ := protocol.Run[protocol.Session](t.Context(), s.Kernel(), "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "m"})
	if _, err := protocol.Run[protocol.SendResult](t.Context(), s.Kernel(), "", protocol.SendMessage, protocol.SendMessagePayload{Session: sess.ID, Text: "I like lower-case tags"}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitRuns(t, s.Kernel(), sess.ID, 1)

	h := httpapi.New(httpapi.Backend{Kernel: s.Kernel(), Memory: s.Memory()}, fstest.MapFS{}, slog.New(slog.DiscardHandler))
	srv := httptest.NewServer(h)
	defer srv.Close()
	link, _ := url.Parse(h.Link(srv.URL))
	// call runs operation name over HTTP with its arguments (a JSON array).
	call := func(name, args string) (int, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), "POST", srv.URL+httpapi.OpPath+name, strings.NewReader(args))
		req.Header.Set(httpapi.ProtocolHeader, protocol.Version)
		req.Header.Set("Authorization", "Bearer "+link.Query().Get(httpapi.TokenQuery))
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	code, body := call("Memory.MemoryList", "")
	var list protocol.MemoryList
	if err := json.Unmarshal([]byte(body), &list); code != 200 || err != nil || len(list.Items) != 1 {
		t.Fatalf("Memory.MemoryList: %d %s", code, body)
	}
	it := list.Items[0]
	if it.Text != "Tags are lower-case." || it.Session != sess.ID || it.Kind != "preference" {
		t.Fatalf("item %+v", it)
	}
	for _, c := range []struct {
		op, args string
		code     int
		says     string
	}{
		{"Memory.EditMemory", `["` + it.ID + `","Tags are lower-case and singular."]`, 200, "singular"},
		{"Memory.EditMemory", `["` + it.ID + `","   "]`, 400, "empty"},
		{"Memory.EditMemory", `["` + it.ID + `","` + strings.Repeat("x", 501) + `"]`, 400, "501 characters"},
		{"Memory.EditMemory", `["` + it.ID + `"]`, 400, "takes 2"},
		{"Memory.EditMemory", `["nope","x"]`, 404, "nope"},
		{"Memory.ForgetMemory", `["nope"]`, 404, "nope"},
		{"Memory.ReviewMemory", `["` + it.ID + `",true]`, 409, "already kept"},
		{"Memory.SetMemoryApproval", `[]`, 400, "takes 1"},
		{"Memory.SetMemoryApproval", `[false]`, 204, ""},
		{"Memory.SetMemoryLearning", `[true]`, 204, ""},
		{"Memory.MemoryList", ``, 200, `"approval":false`},
	} {
		code, body := call(c.op, c.args)
		if code != c.code || !strings.Contains(body, c.says) {
			t.Errorf("%s %s: %d %s; want %d saying %q", c.op, c.args, code, body, c.code, c.says)
		}
	}
	saved, err := config.ReadSettings(dir)
	if err != nil || !saved.MemoryWithoutAsking || !saved.MemoryLearn {
		t.Errorf("settings not saved: %+v %v", saved, err)
	}

	// The window's Op reaches the same backend.
	a := newHost(s.Kernel(), s.Doctor, "", slog.New(slog.DiscardHandler))
	a.memory = s.Memory()
	if _, err := opAs[protocol.MemoryList](a, "Memory.MemoryList"); err == nil {
		t.Error("MemoryList answered before the handshake")
	}
	if _, err := a.Handshake(protocol.Version); err != nil {
		t.Fatal(err)
	}
	got, err := opAs[protocol.MemoryList](a, "Memory.MemoryList")
	if err != nil || len(got.Items) != 1 || got.Items[0].Text != "Tags are lower-case and singular." || got.Approval {
		t.Fatalf("MemoryList = %+v, %v", got, err)
	}
	if err := opErr(a, "Memory.ForgetMemory", it.ID); err != nil {
		t.Fatal(err)
	}
	if code, body := call("Memory.MemoryList", ""); code != 200 || strings.Contains(body, it.ID) {
		t.Errorf("after forget: %d %s", code, body)
	}
	if err := opErr(a, "Memory.ForgetMemory", it.ID); err == nil || !strings.Contains(err.Error(), it.ID) {
		t.Errorf("forgetting twice: %v", err)
	}
}
