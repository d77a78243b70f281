package ollama

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
)

// hostRef is the address requests go to now. It prints as the URL, so the
// adapter's messages name the server a request actually reached.
type hostRef struct{ u atomic.Pointer[url.URL] }

func (h *hostRef) String() string { return h.u.Load().String() }

// pinnedKey carries the address one request must reach whatever the
// current host is (provider.Request.Host: a run's frozen address).
type pinnedKey struct{}

// pinned is ctx whose requests go to host.
func pinned(ctx context.Context, host *url.URL) context.Context {
	return context.WithValue(ctx, pinnedKey{}, host)
}

// at is the address a request made with ctx goes to, for messages.
func (p *Provider) at(ctx context.Context) fmt.Stringer {
	if u, ok := ctx.Value(pinnedKey{}).(*url.URL); ok {
		return u
	}
	return p.host
}

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
	if u, ok := req.Context().Value(pinnedKey{}).(*url.URL); ok {
		to = u
	}
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
