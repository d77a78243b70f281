package ollama

import (
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
)

// hostRef is the address requests go to now. It prints as the URL, so the
// adapter's messages name the server a request actually reached.
type hostRef struct{ u atomic.Pointer[url.URL] }

func (h *hostRef) String() string { return h.u.Load().String() }

// redirected is httpClient with a transport that sends each request to the
// current host. Ollama's client keeps the address it was made with (its
// base); the transport swaps that base for ref's, path prefix included, so
// one api.Client serves whatever address the settings name.
func redirected(httpClient *http.Client, base *url.URL, ref *hostRef) *http.Client {
	c := *httpClient
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = rebase{next: next, base: base, ref: ref}
	return &c
}

type rebase struct {
	next http.RoundTripper
	base *url.URL
	ref  *hostRef
}

func (r rebase) RoundTrip(req *http.Request) (*http.Response, error) {
	to := r.ref.u.Load()
	if to == r.base {
		return r.next.RoundTrip(req)
	}
	// A RoundTripper must not change the request it was given.
	out := req.Clone(req.Context())
	u := *req.URL
	u.Scheme, u.Host = to.Scheme, to.Host
	rest := strings.TrimPrefix(u.Path, strings.TrimSuffix(r.base.Path, "/"))
	u.Path = strings.TrimSuffix(to.Path, "/") + rest
	u.RawPath = ""
	out.URL, out.Host = &u, to.Host
	return r.next.RoundTrip(out)
}
