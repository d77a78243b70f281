package httpapi_test

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"

	"quire/host/httpapi"
)

// TestMemoryRoutesWithoutMemory: a Quire whose memory could not be opened
// answers the panel's routes with a sentence (409), never a crash; and the
// routes still insist on the handshake.
func TestMemoryRoutesWithoutMemory(t *testing.T) {
	srv := start(t, httpapi.New(httpapi.Backend{}, fstest.MapFS{}, slog.New(slog.DiscardHandler)))
	for _, c := range []struct {
		method, path, body string
		header             bool
		code               int
		says               string
	}{
		{"GET", "/api/memory", "", true, http.StatusConflict, "memory is not available"},
		{"PATCH", "/api/memory/x", `{"text":"t"}`, true, http.StatusConflict, "memory is not available"},
		{"DELETE", "/api/memory/x", "", true, http.StatusConflict, "memory is not available"},
		{"POST", "/api/memory/x/review", `{"approve":true}`, true, http.StatusConflict, "memory is not available"},
		{"PUT", "/api/memory/settings", `{"approval":true}`, true, http.StatusConflict, "memory is not available"},
		{"GET", "/api/memory", "", false, http.StatusUpgradeRequired, "protocol"},
	} {
		req := srv.request(t, c.method, c.path, c.body)
		if !c.header {
			req.Header.Del(httpapi.ProtocolHeader)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != c.code || !strings.Contains(string(b), c.says) {
			t.Errorf("%s %s: %d %s; want %d saying %q", c.method, c.path, res.StatusCode, b, c.code, c.says)
		}
	}
}
