package assembly

import (
	"errors"
	"net/http"
	"strings"
	"unicode"

	"quire/kernel/provider/ollama"
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
	// errProbeRedirected: the typed address answered with a redirect, which
	// a probe never follows (only the address typed is asked).
	errProbeRedirected = errors.New("the address redirects elsewhere")
)

// probeClient is the HTTP client for asking an address the user typed:
// Timeout covers the body as well as the headers, no redirect is followed,
// and each response body fails past maxProbeBody (ollama.ErrAnswerTooLarge).
func probeClient() *http.Client {
	return &http.Client{
		Timeout:       probeWait,
		Transport:     ollama.BoundedBodies(http.DefaultTransport, maxProbeBody),
		CheckRedirect: func(*http.Request, []*http.Request) error { return errProbeRedirected },
	}
}

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
