package app

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode"
)

// What a probe of a typed address may take from whatever answers there: the
// address is anybody's, so the answer is bounded in time (probeWait, body
// included), in bytes and in what the screen shows of it.
const (
	maxProbeBody    = 1 << 20 // bytes of one response body
	maxProbeModels  = 200     // model names listed
	maxProbeName    = 256     // characters of one model name
	maxProbeVersion = 32      // characters of a version string
)

var (
	// errProbeTooLarge: a response body at a typed address passed maxProbeBody.
	errProbeTooLarge = errors.New("the answer is larger than Ollama's ever are")
	// errProbeRedirected: the typed address answered with a redirect, which
	// a probe never follows (only the address typed is asked).
	errProbeRedirected = errors.New("the address redirects elsewhere")
)

// probeClient is the HTTP client for asking an address the user typed:
// Timeout covers the body as well as the headers, no redirect is followed,
// and each response body fails past maxProbeBody.
func probeClient() *http.Client {
	return &http.Client{
		Timeout:       probeWait,
		Transport:     boundedBodies{next: http.DefaultTransport, max: maxProbeBody},
		CheckRedirect: func(*http.Request, []*http.Request) error { return errProbeRedirected },
	}
}

// boundedBodies limits every response body it hands on to max bytes.
type boundedBodies struct {
	next http.RoundTripper
	max  int64
}

func (b boundedBodies) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := b.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &boundedBody{rc: resp.Body, left: b.max}
	return resp, nil
}

// boundedBody reads at most left bytes of rc, then fails with
// errProbeTooLarge if rc has more.
type boundedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly the limit from a longer one.
		var one [1]byte
		if n, err := b.rc.Read(one[:]); n > 0 {
			return 0, fmt.Errorf("reading the answer: %w", errProbeTooLarge)
		} else if err != nil {
			return 0, err
		}
		return 0, nil
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *boundedBody) Close() error { return b.rc.Close() }

// printable reports whether s is at most max characters, none of them a
// control character or other unprintable rune.
func printable(s string, max int) bool {
	if s == "" || len([]rune(s)) > max {
		return false
	}
	return strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) < 0
}

// looksLikeVersion reports whether v can be shown as Ollama's version
// ("0.17.4", "0.6.8-rc0"): short, and only digits, letters, '.', '-', '+'.
func looksLikeVersion(v string) bool {
	if v == "" || len(v) > maxProbeVersion || v[0] < '0' || v[0] > '9' {
		return false
	}
	return strings.IndexFunc(v, func(r rune) bool {
		return !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '.' || r == '-' || r == '+')
	}) < 0
}

// shownModels are the names of models that can be shown: printable, of
// bounded length, at most maxProbeModels of them.
func shownModels(names []string) []string {
	out := []string{}
	for _, n := range names {
		if len(out) == maxProbeModels {
			break
		}
		if printable(n, maxProbeName) {
			out = append(out, n)
		}
	}
	return out
}
