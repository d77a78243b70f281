package ollama

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
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
	resp, err := r.send(req)
	if err == nil {
		bound(resp)
	}
	return resp, err
}

func (r rebase) send(req *http.Request) (*http.Response, error) {
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

// MaxAnswerBytes bounds Ollama's answers that are read whole — the version,
// the model list, a model's details, the loaded models: Ollama's client
// reads them into memory, so a server (or something else at the address)
// that sends without end would take all of it. A real 0.17.4 answers
// /api/show in under 100 KB and /api/tags in about 500 bytes a model.
// Streams (chat, pull) and embeddings are not bounded here: their size
// follows from what Quire asked.
const MaxAnswerBytes = 8 << 20

// ErrAnswerTooLarge: an answer read whole was larger than MaxAnswerBytes.
var ErrAnswerTooLarge = errors.New("the server's answer is larger than any Ollama sends")

// wholeAnswers are the paths whose answers are read whole.
var wholeAnswers = map[string]bool{"/api/version": true, "/api/tags": true, "/api/show": true, "/api/ps": true}

// bound limits the body of an answer read whole.
func bound(resp *http.Response) {
	if resp.Request == nil || resp.Request.URL == nil {
		return
	}
	// The last two parts of the path: an address may carry a prefix
	// (http://host/ollama/api/tags).
	p := resp.Request.URL.Path
	if !wholeAnswers["/"+path.Base(path.Dir(p))+"/"+path.Base(p)] {
		return
	}
	resp.Body = &limitedBody{r: resp.Body, left: MaxAnswerBytes, max: MaxAnswerBytes}
}

// BoundedBodies is next with every response body limited to max bytes: a
// read past it fails with ErrAnswerTooLarge. For asking an address the user
// typed, where any answer is suspect (the settings' address check).
func BoundedBodies(next http.RoundTripper, max int64) http.RoundTripper {
	return boundedBodies{next: next, max: max}
}

type boundedBodies struct {
	next http.RoundTripper
	max  int64
}

func (b boundedBodies) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := b.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &limitedBody{r: resp.Body, left: b.max, max: b.max}
	return resp, nil
}

// limitedBody fails a read past its bound instead of ending quietly, so a
// cut answer is never taken for a whole one.
type limitedBody struct {
	r         io.ReadCloser
	left, max int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// At the bound: only the end of the answer may follow.
		var one [1]byte
		for {
			n, err := b.r.Read(one[:])
			if n == 0 && err == nil {
				continue
			}
			if n == 0 && err == io.EOF {
				return 0, io.EOF
			}
			break
		}
		return 0, fmt.Errorf("%w (more than %d KiB)", ErrAnswerTooLarge, b.max>>10)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.r.Close() }
