package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"quire/kernel/protocol"
	"quire/test/mcptest"
)

// savedFile is mcp.json's servers as written.
func savedFile(t *testing.T, dir string) map[string]struct {
	Env     map[string]string `json:"env"`
	Headers map[string]string `json:"headers"`
} {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		MCPServers map[string]struct {
			Env     map[string]string `json:"env"`
			Headers map[string]string `json:"headers"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f.MCPServers
}

// Env and header values are tokens: every status that leaves the client
// (Put's answer, Servers, Watch) names them with the value masked, while
// mcp.json keeps the real ones. A config put back with a value still
// masked (a round trip through Settings, or a pasted status) keeps the
// stored secret and the server still runs with it; a mask under a name
// nothing is stored under is refused, and a value typed anew replaces it.
func TestSecretsAreMaskedInEveryStatusAndKeptOnARoundTrip(t *testing.T) {
	m, _, dir := open(t)
	record := filepath.Join(dir, "record")
	stdio := mcptest.Stdio(t, "garden", record)
	stdio.Env["API_TOKEN"] = "sk-garden-secret"
	web := protocol.MCPServerConfig{Name: "web", URL: "http://127.0.0.1:9/mcp", Headers: map[string]string{"Authorization": "Bearer web-secret"}}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	watched := m.Watch(ctx)
	put, err := m.Put(t.Context(), stdio)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Put(t.Context(), web); err != nil {
		t.Fatal(err)
	}
	running := mcptest.WaitState(t, m, "garden", protocol.MCPRunning)
	list, err := m.Servers(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	shown := []protocol.MCPServer{put, running}
	shown = append(shown, list.Servers...)
	for len(watched) > 0 {
		shown = append(shown, <-watched)
	}
	for _, s := range shown {
		b, _ := json.Marshal(s)
		if strings.Contains(string(b), "secret") || strings.Contains(string(b), record) {
			t.Fatalf("a status carries a value: %s", b)
		}
		values := s.Config.Env
		if s.Config.Name == "web" {
			values = s.Config.Headers
		}
		if len(values) == 0 {
			t.Fatalf("a status lost the names: %+v", s.Config)
		}
		for k, v := range values {
			if v != protocol.MCPMasked {
				t.Errorf("%s's %s is %q, not masked", s.Config.Name, k, v)
			}
		}
	}
	if f := savedFile(t, dir); f["garden"].Env["API_TOKEN"] != "sk-garden-secret" || f["garden"].Env[mcptest.Env] != record ||
		f["web"].Headers["Authorization"] != "Bearer web-secret" {
		t.Fatalf("mcp.json lost a value: %+v", f)
	}

	// The round trip: what Servers showed, put back as it is.
	for _, s := range list.Servers {
		if _, err := m.Put(t.Context(), s.Config); err != nil {
			t.Fatalf("putting back %s: %v", s.Config.Name, err)
		}
	}
	if f := savedFile(t, dir); f["garden"].Env["API_TOKEN"] != "sk-garden-secret" || f["garden"].Env[mcptest.Env] != record ||
		f["web"].Headers["Authorization"] != "Bearer web-secret" {
		t.Fatalf("a round trip replaced a secret with the mask: %+v", f)
	}
	// The restarted child got the real record path: its write lands there.
	mcptest.WaitState(t, m, "garden", protocol.MCPRunning)
	call(t, toolNamed(t, m.Tools(), "garden__"+mcptest.Record), `{"text":"kept"}`)
	if b, err := os.ReadFile(record); err != nil || !strings.Contains(string(b), "kept") {
		t.Fatalf("the restarted server did not get its stored env: %q, %v", b, err)
	}

	tests := []struct {
		name    string
		cfg     protocol.MCPServerConfig
		refused string
		saved   string
	}{
		{"a mask under a new name", protocol.MCPServerConfig{Name: "web", URL: web.URL, Headers: map[string]string{"X-Key": protocol.MCPMasked}}, `no stored value for "X-Key"`, ""},
		{"a mask on a new server", protocol.MCPServerConfig{Name: "fresh", URL: web.URL, Headers: map[string]string{"Authorization": protocol.MCPMasked}}, `no stored value for "Authorization"`, ""},
		{"a value typed anew", protocol.MCPServerConfig{Name: "web", URL: web.URL, Headers: map[string]string{"Authorization": "Bearer new"}}, "", "Bearer new"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := m.Put(t.Context(), tc.cfg)
			if tc.refused != "" {
				if !errors.Is(err, protocol.ErrBadPayload) || !strings.Contains(err.Error(), tc.refused) {
					t.Fatalf("want refused with %q: %v", tc.refused, err)
				}
				if f := savedFile(t, dir); f["web"].Headers["Authorization"] == protocol.MCPMasked || f["fresh"].Headers != nil {
					t.Fatalf("a refused put changed mcp.json: %+v", f)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := savedFile(t, dir)["web"].Headers["Authorization"]; got != tc.saved {
				t.Fatalf("saved %q, want %q", got, tc.saved)
			}
		})
	}

	// An import of a pasted status keeps the stored values too.
	res, err := m.Import(t.Context(), `{"mcpServers": {"web": {"url": "`+web.URL+`", "headers": {"Authorization": "`+protocol.MCPMasked+`"}}}}`)
	if err != nil || len(res.Added) != 1 || len(res.Refused) != 0 {
		t.Fatalf("import: %+v, %v", res, err)
	}
	if got := savedFile(t, dir)["web"].Headers["Authorization"]; got != "Bearer new" {
		t.Fatalf("an import replaced the secret with %q", got)
	}
}
