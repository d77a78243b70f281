package httpapi_test

import (
	"log/slog"
	"net/http"
	"os"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"quire/host/httpapi"
)

// metaPolicy is the Content-Security-Policy frontend/index.html carries,
// the one the window (which gets no headers from quire serve) lives under.
func metaPolicy(t *testing.T) string {
	t.Helper()
	f, err := os.Open("../../frontend/index.html")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := html.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode || n.Data != "meta" {
			continue
		}
		var equiv, content string
		for _, a := range n.Attr {
			switch a.Key {
			case "http-equiv":
				equiv = a.Val
			case "content":
				content = a.Val
			}
		}
		if strings.EqualFold(equiv, "Content-Security-Policy") {
			return content
		}
	}
	t.Fatal("frontend/index.html has no Content-Security-Policy meta")
	return ""
}

// TestPageHeadersCarryThePagesPolicy: every answer quire serve gives — the
// page, an asset, the API, a refusal — carries the page's own policy (the
// one index.html's meta gives the window), plus frame-ancestors, which only
// a header can carry, and the headers that keep addresses and hosts to
// themselves. The policy lets nothing load from another origin.
func TestPageHeadersCarryThePagesPolicy(t *testing.T) {
	meta := metaPolicy(t)
	for _, directive := range []string{"default-src 'self'", "img-src 'self'", "connect-src 'self'", "media-src 'none'",
		"object-src 'none'", "frame-src 'none'", "form-action 'none'", "base-uri 'none'"} {
		if !strings.Contains(meta, directive) {
			t.Errorf("the page's policy %q lacks %q", meta, directive)
		}
	}
	for _, loose := range []string{"*", "http:", "https:", "unsafe-inline", "unsafe-eval"} {
		if strings.Contains(meta, loose) {
			t.Errorf("the page's policy %q lets in %q", meta, loose)
		}
	}

	assets := os.DirFS("../../frontend")
	h := httpapi.New(httpapi.Backend{}, assets, slog.New(slog.DiscardHandler))
	c := start(t, h)
	foreign := c.request(t, "GET", "/api/sessions", "")
	foreign.Host = "evil.example"
	for name, req := range map[string]*http.Request{
		"the page":       c.request(t, "GET", "/", ""),
		"an asset":       c.request(t, "GET", "/vite.config.ts", ""),
		"the link":       c.request(t, "GET", "/?token="+c.secret, ""),
		"an API answer":  c.request(t, "GET", "/api/handshake", ""),
		"a refusal":      foreign,
		"a missing file": c.request(t, "GET", "/nope.js", ""),
	} {
		resp, _ := send(t, req)
		want := map[string]string{
			"Content-Security-Policy": meta + "; frame-ancestors 'none'",
			"Referrer-Policy":         "no-referrer",
			"X-Content-Type-Options":  "nosniff",
			"X-DNS-Prefetch-Control":  "off",
		}
		for k, v := range want {
			if got := resp.Header.Get(k); got != v {
				t.Errorf("%s (%d): %s is %q, want %q", name, resp.StatusCode, k, got, v)
			}
		}
	}
}
