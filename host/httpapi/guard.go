package httpapi

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"strings"
)

// The browser guard. quire serve listens on loopback, but every web page
// the user opens runs on this machine too: without the guard any page
// could post to the API (a cross-origin text/plain POST needs no
// preflight), and a page reached through DNS rebinding (a name of the
// attacker's that now resolves to 127.0.0.1) could also read the answers.
// So, in order:
//
//  1. the Host header must name a loopback address (Loopback: the rule
//     the bind check uses too) with this listener's port — a rebound name
//     is refused (421);
//  2. a request that names an Origin must name this one (403); no origin
//     is fine (a client that is not a browser);
//  3. under /api: a request the browser marks as coming from another site
//     (Sec-Fetch-Site) is refused (403); the request must carry this
//     start's secret, in the cookie the link gave or as
//     `Authorization: Bearer SECRET` (401); and anything but GET/HEAD must
//     be sent as application/json (415), which no form or simple request
//     can send without a preflight — and no preflight is ever answered:
//     there are no CORS headers anywhere.
//
// The page itself loads without the secret (it says what to open when the
// API answers 401); the link quire serve prints, /?token=SECRET, swaps the
// secret for an HttpOnly, SameSite=Strict cookie and redirects to the bare
// address, so the secret leaves the address bar and the history.

// TokenQuery is the query parameter of the link quire serve prints.
const TokenQuery = "token"

// cookiePrefix + the port is the cookie's name. Cookies ignore ports, so
// two quire serves on one machine (two data folders) would otherwise
// overwrite each other's cookie.
const cookiePrefix = "quire-"

func cookieName(port string) string { return cookiePrefix + port }

// newSecret is 32 random bytes, base64url: one per start, never stored.
func newSecret() string {
	b := make([]byte, 32)
	// Since Go 1.24 crypto/rand.Read never returns an error: it crashes
	// the program rather than hand out predictable bytes.
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Why a request was refused (logged; the answer carries a sentence).
var (
	errForeignHost   = errors.New("the request is addressed to another host")
	errForeignOrigin = errors.New("the request comes from another web page")
	errForeignSite   = errors.New("the browser says the request comes from another site")
	errNoSecret      = errors.New("the request does not carry this start's secret")
	errStaleLink     = errors.New("the link does not carry this start's secret")
	errNotJSON       = errors.New("a request that changes something is not sent as application/json")
)

type gate struct {
	secret []byte
	log    *slog.Logger
}

// guard puts the browser checks in front of the API (api, the routes) and
// the page (everything else). The split is the mux's, after its own path
// cleaning, so the guard and the routes never disagree on what is /api.
func guard(secret string, log *slog.Logger, api, page http.Handler) http.Handler {
	g := gate{secret: []byte(secret), log: log}
	mux := http.NewServeMux()
	mux.Handle("/api/", g.api(api))
	mux.Handle("/", g.page(page))
	return pageHeaders(g.sameHost(mux))
}

// sameHost is checks 1 and 2, for every request.
func (g gate) sameHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !ownHost(r, r.Host) {
			g.refuse(w, r, http.StatusMisdirectedRequest, errForeignHost,
				fmt.Sprintf("quire serve answers only requests addressed to its own loopback address (127.0.0.1:%s, localhost:%s or another loopback address with that port): open the link quire serve printed.", localPort(r), localPort(r)))
			return
		}
		if o, ok := strings.CutPrefix(strings.ToLower(r.Header.Get("Origin")), "http://"); r.Header.Get("Origin") != "" && (!ok || !ownHost(r, o)) {
			g.refuse(w, r, http.StatusForbidden, errForeignOrigin,
				"quire serve answers only its own page: a request from another web page was refused.")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// api is check 3.
func (g gate) api(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
			g.refuse(w, r, http.StatusForbidden, errForeignSite,
				"quire serve answers only its own page: a request from another web page was refused.")
			return
		}
		if !g.carriesSecret(r) {
			g.refuse(w, r, http.StatusUnauthorized, errNoSecret, noSecretSentence)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			if t, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || t != "application/json" {
				g.refuse(w, r, http.StatusUnsupportedMediaType, errNotJSON,
					"Send requests that change something as JSON, with the header Content-Type: application/json.")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// noSecretSentence is the 401's sentence; the page shows its own (transport/http.ts).
const noSecretSentence = "This page has not been given quire serve's secret (it makes a new one each time it starts): open the link quire serve printed."

// page serves the page, and swaps a link's secret for the cookie.
func (g gate) page(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !r.URL.Query().Has(TokenQuery) {
			next.ServeHTTP(w, r)
			return
		}
		if !g.same(r.URL.Query().Get(TokenQuery)) {
			g.refuse(w, r, http.StatusUnauthorized, errStaleLink,
				"This link is not from this start of quire serve (it makes a new one each time it starts): open the link it printed last.")
			return
		}
		http.SetCookie(w, &http.Cookie{Name: cookieName(localPort(r)), Value: string(g.secret), Path: "/",
			HttpOnly: true, SameSite: http.SameSiteStrictMode})
		// The answer must not be kept (pageHeaders says not to send its address on).
		w.Header().Set("Cache-Control", "no-store")
		http.Redirect(w, r, r.URL.Path, http.StatusSeeOther)
	})
}

func (g gate) carriesSecret(r *http.Request) bool {
	// Every cookie of that name: another page on this host (any port) can
	// set one beside ours, and must not be able to hide it.
	for _, c := range r.CookiesNamed(cookieName(localPort(r))) {
		if g.same(c.Value) {
			return true
		}
	}
	auth, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && g.same(auth)
}

func (g gate) same(v string) bool { return subtle.ConstantTimeCompare([]byte(v), g.secret) == 1 }

func (g gate) refuse(w http.ResponseWriter, r *http.Request, status int, reason error, sentence string) {
	// Never the query: on the page it holds the secret.
	g.log.Warn("quire serve refused a request", "status", status, "reason", reason.Error(), "method", r.Method,
		"path", r.URL.Path, "host", r.Host, "origin", r.Header.Get("Origin"), "remote", r.RemoteAddr)
	writeJSON(w, status, map[string]string{"error": sentence})
}

// localPort is the port of the address the request's connection was
// accepted on, "" when there is none.
func localPort(r *http.Request) string {
	a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return ""
	}
	_, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return ""
	}
	return port
}

// ownHost says whether hostport (a Host header, or an Origin without its
// scheme) names this listener: a loopback name (Loopback, the same rule
// the bind check applies) with the port the request was accepted on, or
// with no port on port 80, where browsers leave it out. A name that is
// not an IP literal or "localhost" (a rebound one) never passes; nothing
// passes when the port is unknown.
func ownHost(r *http.Request, hostport string) bool {
	port := localPort(r)
	if port == "" {
		return false
	}
	host, p, err := net.SplitHostPort(hostport)
	if err != nil {
		// No port: only port 80's bare name (brackets kept for [::1]).
		host, p = strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]"), "80"
	}
	return p == port && Loopback(host)
}

// Loopback is the one rule for loopback, for the address quire serve binds
// to and for the names its guard answers: "localhost", or an IP address in
// 127.0.0.0/8 or ::1. Two rules would let the bind check accept an address
// (127.0.0.2) whose every request the guard then refuses.
func Loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
