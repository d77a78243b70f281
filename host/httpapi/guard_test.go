package httpapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"quire/host/httpapi"
)

// send is one raw request: nothing is added but what the case sets.
func send(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	// The guard's redirect is what a case looks at: never follow it.
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func port(t *testing.T, c client) string {
	t.Helper()
	u, err := url.Parse(c.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

// TestTheLinkGivesTheCookie: the printed link swaps its secret for an
// HttpOnly, SameSite=Strict cookie named for the port, and sends the
// browser to the bare address; the cookie then opens the API. A link with
// another secret gets no cookie.
func TestTheLinkGivesTheCookie(t *testing.T) {
	e := serve(t, "")
	p := port(t, e.srv)
	link, _ := http.NewRequestWithContext(t.Context(), "GET", e.srv.URL+"/?token="+e.srv.secret, nil)
	resp, _ := send(t, link)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("the link: %d to %q, want 303 to /", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp.Header.Get("Referrer-Policy") != "no-referrer" || resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("the link's answer may be kept or referred to: %v", resp.Header)
	}
	cookies := resp.Cookies()
	if len(cookies) != 1 {
		t.Fatalf("cookies %v", cookies)
	}
	c := cookies[0]
	if c.Name != "quire-"+p || c.Value != e.srv.secret || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" {
		t.Fatalf("cookie %+v: want quire-%s=secret, HttpOnly, SameSite=Strict, Path=/", c, p)
	}

	api := func(cookie string) int {
		req, _ := http.NewRequestWithContext(t.Context(), "GET", e.srv.URL+"/api/sessions", nil)
		req.Header.Set(httpapi.ProtocolHeader, "1.0")
		req.Header.Set("Cookie", cookie)
		resp, _ := send(t, req)
		return resp.StatusCode
	}
	for _, tc := range []struct {
		name, cookie string
		status       int
	}{
		{"the cookie", c.Name + "=" + c.Value, 200},
		{"the cookie beside one another page set", c.Name + "=junk; " + c.Name + "=" + c.Value, 200},
		{"the secret under another port's name", "quire-1=" + c.Value, 401},
		{"the right name, another value", c.Name + "=" + strings.Repeat("A", len(c.Value)), 401},
	} {
		if got := api(tc.cookie); got != tc.status {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.status)
		}
	}

	stale, _ := http.NewRequestWithContext(t.Context(), "GET", e.srv.URL+"/?token=not-this-one", nil)
	resp, body := send(t, stale)
	if resp.StatusCode != http.StatusUnauthorized || len(resp.Cookies()) != 0 || !strings.Contains(body, "open the link it printed") {
		t.Fatalf("a stale link: %d %v %s", resp.StatusCode, resp.Cookies(), body)
	}
}

// TestTheGuardLetsTheOwnPageThrough: what the user's own page and a
// client holding the secret send is answered — every name of the loopback
// address, the page's own Origin, a charset on the JSON type, and the page
// itself without any secret.
func TestTheGuardLetsTheOwnPageThrough(t *testing.T) {
	e := serve(t, "")
	p := port(t, e.srv)
	for _, tc := range []struct {
		name, method, path, body string
		headers                  map[string]string
		status                   int
	}{
		{"the page needs no secret", "GET", "/", "", map[string]string{"Authorization": ""}, 200},
		{"localhost", "GET", "/api/sessions", "", map[string]string{"Host": "localhost:" + p}, 200},
		{"LOCALHOST", "GET", "/api/sessions", "", map[string]string{"Host": "LOCALHOST:" + p}, 200},
		{"[::1]", "GET", "/api/sessions", "", map[string]string{"Host": "[::1]:" + p}, 200},
		{"its own origin", "POST", "/api/sessions", `{"title":"own"}`, map[string]string{"Origin": "http://127.0.0.1:" + p, "Sec-Fetch-Site": "same-origin"}, 200},
		{"JSON with a charset", "POST", "/api/sessions", `{"title":"charset"}`, map[string]string{"Content-Type": "application/json; charset=utf-8"}, 200},
		{"a body-less change sent as JSON", "POST", httpapi.OpPath + "Documents.Cancel", "", nil, 503},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := e.srv.request(t, tc.method, tc.path, tc.body)
			for k, v := range tc.headers {
				if k == "Host" {
					req.Host = v
				} else {
					req.Header.Set(k, v)
				}
			}
			if resp, body := send(t, req); resp.StatusCode != tc.status {
				t.Fatalf("%d %s, want %d", resp.StatusCode, body, tc.status)
			}
		})
	}
}

// TestRefusalsSayWhatToDo: each refusal is JSON with a sentence, carries
// no CORS header, and a preflight from another origin gets nothing that
// would let the browser send the real request.
func TestRefusalsSayWhatToDo(t *testing.T) {
	e := serve(t, "")
	p := port(t, e.srv)
	for _, tc := range []struct {
		name, method string
		set          func(*http.Request)
		status       int
		says         string
	}{
		{"rebound host", "GET", func(r *http.Request) { r.Host = "evil.example:" + p }, 421, "open the link quire serve printed"},
		{"foreign origin", "POST", func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") }, 403, "another web page"},
		{"another site, says the browser", "GET", func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "same-site") }, 403, "another web page"},
		{"no secret", "GET", func(r *http.Request) { r.Header.Del("Authorization") }, 401, "open the link quire serve printed"},
		{"text/plain", "POST", func(r *http.Request) { r.Header.Set("Content-Type", "text/plain") }, 415, "Content-Type: application/json"},
		{"no content type", "DELETE", func(r *http.Request) { r.Header.Del("Content-Type") }, 415, "as JSON"},
		{"a preflight", "OPTIONS", func(r *http.Request) {
			r.Header.Set("Origin", "http://evil.example")
			r.Header.Set("Access-Control-Request-Method", "POST")
		}, 403, "another web page"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := e.srv.request(t, tc.method, "/api/sessions", `{"title":"x"}`)
			tc.set(req)
			resp, body := send(t, req)
			var refusal struct{ Error string }
			if err := json.Unmarshal([]byte(body), &refusal); err != nil || resp.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("not JSON: %q %v", body, err)
			}
			if resp.StatusCode != tc.status || !strings.Contains(refusal.Error, tc.says) {
				t.Fatalf("%d %q, want %d saying %q", resp.StatusCode, refusal.Error, tc.status, tc.says)
			}
			for k := range resp.Header {
				if strings.HasPrefix(k, "Access-Control-") {
					t.Errorf("a CORS header: %s: %s", k, resp.Header.Get(k))
				}
			}
		})
	}
	if list, _ := e.store.Sessions(t.Context()); len(list) != 0 {
		t.Fatalf("refused requests made %d sessions", len(list))
	}
}

// lockedBuffer is a log the server's goroutines write while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestRefusalsAreLoggedWithoutTheSecret: every refusal leaves a log
// record saying why, and none of them holds a secret — not even a link's,
// which is in the query.
func TestRefusalsAreLoggedWithoutTheSecret(t *testing.T) {
	var log lockedBuffer
	h := httpapi.New(httpapi.Backend{}, fstest.MapFS{}, slog.New(slog.NewTextHandler(&log, nil)))
	c := start(t, h)
	stale := strings.Repeat("s", len(c.secret))
	for _, path := range []string{"/?token=" + stale, "/api/sessions"} {
		req, _ := http.NewRequestWithContext(t.Context(), "GET", c.URL+path, nil)
		if resp, _ := send(t, req); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("%s: %d, want 401", path, resp.StatusCode)
		}
	}
	req := c.request(t, "GET", "/api/sessions", "")
	req.Host = "evil.example"
	send(t, req)
	got := log.String()
	for _, want := range []string{"status=401 reason=\"the link does not carry this start's secret\"",
		"status=401 reason=\"the request does not carry this start's secret\"", "status=421 reason=\"the request is addressed to another host\""} {
		if !strings.Contains(got, want) {
			t.Errorf("no record with %s in:\n%s", want, got)
		}
	}
	if strings.Contains(got, stale) || strings.Contains(got, c.secret) {
		t.Fatalf("a secret is in the log:\n%s", got)
	}
}

// TestBindAndHostShareOneLoopbackRule: an address the bind check accepts
// (any of 127.0.0.0/8) is one the Host guard answers at, through the real
// listener; a name that is not loopback, or another port, is still refused.
func TestBindAndHostShareOneLoopbackRule(t *testing.T) {
	assets := fstest.MapFS{"index.html": {Data: []byte("<title>Quire</title>")}}
	s := httpapi.New(httpapi.Backend{}, assets, slog.New(slog.DiscardHandler))
	links := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- s.ListenAndServe(t.Context(), "127.0.0.2:0", func(l string) { links <- l }) }()
	var link *url.URL
	select {
	case l := <-links:
		u, err := url.Parse(l)
		if err != nil {
			t.Fatal(err)
		}
		link = u
	case err := <-done:
		t.Fatalf("the bind check refused 127.0.0.2: %v", err)
	}
	p := link.Port()
	for _, c := range []struct {
		name, host string
		want       int
	}{
		{"the address it listens at", "127.0.0.2:" + p, 200},
		{"localhost", "localhost:" + p, 200},
		{"another loopback address, same port", "127.0.0.1:" + p, 200},
		{"a rebound name", "evil.example:" + p, http.StatusMisdirectedRequest},
		{"another port", "127.0.0.2:1", http.StatusMisdirectedRequest},
		{"no port, not 80", "127.0.0.2", http.StatusMisdirectedRequest},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), "GET", "http://"+link.Host+"/", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Host = c.host
			if resp, body := send(t, req); resp.StatusCode != c.want {
				t.Fatalf("Host %s: %d %s, want %d", c.host, resp.StatusCode, body, c.want)
			}
		})
	}
}
