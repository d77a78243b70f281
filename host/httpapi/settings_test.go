package httpapi_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"testing/fstest"

	"quire/doctor"
	"quire/host/httpapi"
	"quire/kernel/protocol"
	"quire/test/testkit"
)

// TestSettingsScreenRoutes: Settings.Screen is the screen, Settings.Update saves
// every field, a refused setting is 400 naming its field, a misspelt key
// is refused rather than ignored, the check route asks without saving,
// and a POST from another web page is refused by the guard before any of
// it.
func TestSettingsScreenRoutes(t *testing.T) {
	k := testkit.New(t)
	st := &settings{dir: "/home/ada/Notes"}
	h := httpapi.New(httpapi.Backend{Kernel: k.Runtime, Settings: st, Doctor: func(context.Context) doctor.Report { return doctor.Report{} }},
		fstest.MapFS{}, slog.New(slog.DiscardHandler))
	srv := start(t, h)

	status, body := srv.do(t, "POST", httpapi.OpPath+"Settings.Screen", "")
	var sc protocol.SettingsScreen
	if err := json.Unmarshal([]byte(body), &sc); status != 200 || err != nil || sc.NotesDir != "/home/ada/Notes" || sc.Settings.Model != "qwen3:4b" {
		t.Fatalf("GET: %d %s", status, body)
	}

	good := `{"ollamaHost":"http://127.0.0.1:11434","model":"qwen3:4b","embedModel":"nomic-embed-text","numCtx":8192,` +
		`"temperature":0.7,"think":false,"aboutYou":"Call me Ada.","profile":"ask","theme":"dark"}`
	status, body = srv.do(t, "POST", httpapi.OpPath+"Settings.Update", "["+good+"]")
	if err := json.Unmarshal([]byte(body), &sc); status != 200 || err != nil || sc.Settings.Theme != "dark" ||
		sc.Settings.Temperature == nil || *sc.Settings.Temperature != 0.7 || sc.Settings.Think == nil || *sc.Settings.Think {
		t.Fatalf("POST: %d %s", status, body)
	}

	for _, c := range []struct {
		name, body   string
		status       int
		field, words string
	}{
		{"a setting out of bounds", strings.Replace(good, `"temperature":0.7`, `"temperature":3`, 1), 400, "temperature", "between 0 and 2"},
		{"a misspelt key", strings.Replace(good, `"temperature"`, `"temprature"`, 1), 400, "", "temprature"},
		{"not JSON", `{"theme":`, 400, "", ""},
		{"not an array", good, 400, "", ""},
	} {
		body := c.body
		if strings.HasPrefix(c.name, "a ") {
			body = "[" + body + "]"
		}
		status, body := srv.do(t, "POST", httpapi.OpPath+"Settings.Update", body)
		var refusal struct{ Error, Field string }
		if err := json.Unmarshal([]byte(body), &refusal); status != c.status || err != nil || refusal.Field != c.field || !strings.Contains(refusal.Error, c.words) {
			t.Errorf("%s: %d %s, want %d naming %q and saying %q", c.name, status, body, c.status, c.field, c.words)
		}
	}

	status, body = srv.do(t, "POST", httpapi.OpPath+"Settings.CheckOllama", `["http://127.0.0.1:1"]`)
	var check protocol.OllamaCheck
	if err := json.Unmarshal([]byte(body), &check); status != 200 || err != nil || check.OK || !strings.Contains(check.Message, "is Ollama running?") {
		t.Fatalf("check: %d %s", status, body)
	}
	if status, _ := srv.do(t, "POST", httpapi.OpPath+"Settings.CheckOllama", `[]`); status != 400 {
		t.Errorf("a check without an address: %d, want 400", status)
	}

	// Another web page cannot change the settings, nor use Quire to probe
	// addresses on the user's network.
	for _, path := range []string{httpapi.OpPath + "Settings.Update", httpapi.OpPath + "Settings.CheckOllama"} {
		status, body := srv.do(t, "POST", path, good, "Origin", "http://evil.example", "Sec-Fetch-Site", "cross-site")
		if status != 403 || !strings.Contains(body, "another web page") {
			t.Errorf("a cross-origin POST %s: %d %s, want 403", path, status, body)
		}
		status, _ = srv.do(t, "POST", path, good, "Content-Type", "text/plain")
		if status != 415 {
			t.Errorf("a text/plain POST %s: %d, want 415", path, status)
		}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.saved) != 1 || len(st.checked) != 1 {
		t.Errorf("saved %d times and checked %d times, want once each", len(st.saved), len(st.checked))
	}
}
