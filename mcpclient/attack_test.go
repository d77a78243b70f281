package mcpclient_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"quire/internal/mcptest"
	"quire/kernel/protocol"
	"quire/mcpclient"
)

// settled waits until the server named name is running or failed.
func settled(t *testing.T, m *mcpclient.Manager, name string) protocol.MCPServer {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), mcptest.Patience)
	defer cancel()
	changes := m.Watch(ctx)
	list, err := m.Servers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list.Servers {
		if s.Config.Name == name && (s.State == protocol.MCPRunning || s.State == protocol.MCPFailed) {
			return s
		}
	}
	for s := range changes {
		if s.Config.Name == name && (s.State == protocol.MCPRunning || s.State == protocol.MCPFailed) {
			return s
		}
	}
	t.Fatalf("the server %s neither ran nor failed within the patience", name)
	return protocol.MCPServer{}
}

// An HTTP server's configured headers (a token, often) go to its own
// address only: a server that redirects to another origin does not get
// them sent there; the start fails saying where it was sent.
func TestRedirectToAnotherOriginGetsNoHeaders(t *testing.T) {
	var leaked atomic.Value
	leaked.Store("")
	s := mcptest.NewServer(mcptest.Options{})
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Get("Authorization"); v != "" {
			leaked.Store(v)
		}
		mcpHandler.ServeHTTP(w, r)
	}))
	defer elsewhere.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()
	m, _, _ := open(t)
	if _, err := m.Put(t.Context(), protocol.MCPServerConfig{Name: "moved", URL: redirector.URL + "/mcp",
		Headers: map[string]string{"Authorization": "Bearer secret"}, Enabled: true}); err != nil {
		t.Fatal(err)
	}
	st := settled(t, m, "moved")
	if v := leaked.Load().(string); v != "" {
		t.Errorf("the other origin got the header %q", v)
	}
	if st.State != protocol.MCPFailed || !strings.Contains(st.Reason, elsewhere.URL) {
		t.Errorf("state %s, reason %q: want failed, naming where it was sent", st.State, st.Reason)
	}
}
