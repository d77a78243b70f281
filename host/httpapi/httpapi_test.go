package httpapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"quire/doctor"
	"quire/host"
	"quire/host/httpapi"
	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/store"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

type env struct {
	srv   client
	store *store.Store
	fake  *ollamatest.Server
	k     *testkit.Kernel
}

// serve runs the HTTP host over the real kernel (testkit).
func serve(t *testing.T, probe string) env {
	t.Helper()
	k := testkit.New(t)
	assets := fstest.MapFS{"index.html": {Data: []byte("<title>Quire</title>")}}
	h := httpapi.New(httpapi.Backend{Kernel: k.Runtime, ProbePath: probe,
		Doctor: func(context.Context) doctor.Report { return doctor.Report{OK: true} }}, assets, slog.New(slog.DiscardHandler))
	return env{start(t, h), k.Store, k.Ollama, k}
}

// client calls one test server as a client that is not a browser does:
// with the server's secret as a bearer token, and JSON for any body.
type client struct{ URL, secret string }

// start serves h on a loopback port until the test ends.
func start(t *testing.T, h *httpapi.Server) client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return client{srv.URL, secretOf(t, h)}
}

// secretOf is the secret h's printed link carries.
func secretOf(t testing.TB, h *httpapi.Server) string {
	t.Helper()
	link, err := url.Parse(h.Link("http://127.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	return link.Query().Get(httpapi.TokenQuery)
}

// request is a request to path with the protocol version, the secret and,
// when it may change something, the JSON content type.
func (c client) request(t *testing.T, method, path, body string) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, c.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(httpapi.ProtocolHeader, protocol.Version)
	req.Header.Set("Authorization", "Bearer "+c.secret)
	if method != "GET" && method != "HEAD" {
		req.Header.Set("Content-Type", "application/json")
	}
	return req
}

func (c client) do(t *testing.T, method, path, body string, headers ...string) (int, string) {
	t.Helper()
	req := c.request(t, method, path, body)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func newSession(t *testing.T, e env) string {
	t.Helper()
	status, body := e.srv.do(t, "POST", "/api/sessions", `{"title":"Notes"}`)
	var s protocol.Session
	if status != 200 || json.Unmarshal([]byte(body), &s) != nil || s.ID == "" {
		t.Fatalf("create session: %d %s", status, body)
	}
	return s.ID
}

func TestRoutes(t *testing.T) {
	probe := filepath.Join(t.TempDir(), "view.json")
	e := serve(t, probe)
	id := newSession(t, e)
	cases := []struct {
		method, path, body string
		status             int
		contains           string
	}{
		{"GET", "/", "", 200, "<title>Quire</title>"},
		{"GET", "/api/doctor", "", 200, `"ok":true`},
		{"GET", "/api/sessions", "", 200, `"title":"Notes"`},
		{"POST", "/api/sessions", `{broken`, 400, "not the JSON expected"},
		{"PUT", "/api/settings", `{"notesDir":"` + strings.Repeat("x", 2<<20) + `"}`, 400, "larger than 1 MiB"},
		{"PATCH", "/api/sessions/" + id, `{"title":"Renamed"}`, 200, `"title":"Renamed"`},
		{"PATCH", "/api/sessions/zz", `{"title":"x"}`, 404, "no such session"},
		{"GET", "/api/sessions/" + id + "/events?from=1", "", 200, `"seq":1`},
		{"GET", "/api/sessions/" + id + "/events?from=-3", "", 400, "is not a seq"},
		{"GET", "/api/sessions/" + id + "/events?from=99", "", 200, "[]"},
		{"GET", "/api/sessions/zz/events", "", 404, "no such session"},
		{"POST", "/api/sessions/" + id + "/messages", `{"text":"  "}`, 400, "empty"},
		{"POST", "/api/sessions/zz/messages", `{"text":"hi"}`, 404, "no such session"},
		{"POST", "/api/commands", `{"type":"session.frobnicate","payload":{},"protocolVersion":"1.0"}`, 400, "unknown command"},
		{"POST", "/api/commands", `{"type":"session.rename","payload":{"sesion":"x"},"protocolVersion":"1.0"}`, 400, "payload"},
		{"POST", "/api/commands", `{"type":"session.rename","payload":{"session":"x"},"protocolVersion":"2.0"}`, 426, "incompatible"},
		{"POST", "/api/sessions/" + id + "/cancel", "", 204, ""},
		{"POST", "/api/sessions/" + id + "/answer", `{"callIds":["c1"],"allowed":true}`, 409, "no open question"},
		{"POST", "/api/sessions/" + id + "/messages", `{"text":"x","intent":"sideways"}`, 400, "intent"},
		{"POST", "/api/probe", `{"messages":[]}`, 204, ""},
		{"POST", "/api/probe", `not json`, 400, "not JSON"},
		{"DELETE", "/api/sessions/" + id, "", 204, ""},
		{"DELETE", "/api/sessions/" + id, "", 404, "no such session"},
	}
	for _, tc := range cases {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			status, body := e.srv.do(t, tc.method, tc.path, tc.body)
			if status != tc.status || !strings.Contains(body, tc.contains) {
				t.Fatalf("%d %q, want %d containing %q", status, body, tc.status, tc.contains)
			}
		})
	}
	if b, err := os.ReadFile(probe); err != nil || string(b) != `{"messages":[]}` {
		t.Fatalf("probe %q %v", b, err)
	}
}

// TestProbeSaysWhenNoneIsSet: without a test's probe the snapshot is not
// written and the page is told so, to stop building them.
func TestProbeSaysWhenNoneIsSet(t *testing.T) {
	e := serve(t, "")
	status, body := e.srv.do(t, "POST", "/api/probe", `{"messages":[]}`)
	if status != 200 || !strings.Contains(body, `"probing":false`) {
		t.Fatalf("%d %q, want 200 saying probing false", status, body)
	}
}

func TestHandshakeComesFirst(t *testing.T) {
	e := serve(t, "")
	cases := []struct {
		name    string
		version string
		status  int
	}{
		{"missing", "", 426},
		{"other major", "2.0", 426},
		{"garbage", "banana", 426},
		{"same major, newer minor", "1.7", 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := e.srv.request(t, "POST", "/api/sessions", `{"title":"x"}`)
			req.Header.Del(httpapi.ProtocolHeader)
			if tc.version != "" {
				req.Header.Set(httpapi.ProtocolHeader, tc.version)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
		})
	}
	list, _ := e.store.Sessions(t.Context())
	if len(list) != 1 {
		t.Fatalf("refused requests had an effect: %d sessions", len(list))
	}
	if status, body := e.srv.do(t, "GET", "/api/handshake?version=1.0", ""); status != 200 || !strings.Contains(body, protocol.Version) {
		t.Fatalf("handshake: %d %s", status, body)
	}
	if status, _ := e.srv.do(t, "GET", "/api/handshake?version=0.9", ""); status != 426 {
		t.Fatalf("old handshake: %d", status)
	}
}

func TestIdempotencyKeyHeader(t *testing.T) {
	e := serve(t, "")
	id := newSession(t, e)
	url := "/api/sessions/" + id + "/messages"
	s1, b1 := e.srv.do(t, "POST", url, `{"text":"hi"}`, "Idempotency-Key", "k-1")
	waitIdle(t, e, id)
	s2, b2 := e.srv.do(t, "POST", url, `{"text":"hi"}`, "Idempotency-Key", "k-1")
	if s1 != 202 || s2 != 202 || b1 != b2 {
		t.Fatalf("repeat: %d %s / %d %s", s1, b1, s2, b2)
	}
	s3, b3 := e.srv.do(t, "POST", url, `{"text":"something else"}`, "Idempotency-Key", "k-1")
	if s3 != 422 || !strings.Contains(b3, "idempotency key") {
		t.Fatalf("reused key: %d %s", s3, b3)
	}
	if n := len(e.fake.Requests()); n != 1 {
		t.Fatalf("the model was asked %d times for one message", n)
	}
}

// waitIdle waits on the session's log (testkit's Kernel.Wait, woken by
// each append) for the run to finish, then checks the HTTP host reports it.
func waitIdle(t *testing.T, e env, id string) {
	t.Helper()
	e.k.Wait(t, id, "run.finished", func(evs []event.Event) bool { return testkit.Count(evs, event.RunFinished) > 0 })
	if _, body := e.srv.do(t, "GET", "/api/sessions/"+id+"/events", ""); !strings.Contains(body, `"run.finished"`) {
		t.Fatalf("the log holds run.finished but the host's events do not: %s", body)
	}
}

func TestSensitiveEventsOnlyWhenAskedFor(t *testing.T) {
	e := serve(t, "")
	id := newSession(t, e)
	// A log holding one event of each visibility, as a later Quire writes them.
	for seq, vis := range map[int]string{1: "internal", 2: "sensitive"} {
		if _, err := e.store.DB().Exec(`INSERT INTO events (session, seq, type, time_ns, ignorable, visibility, payload)
			VALUES (?, ?, 'session.renamed', 0, 0, ?, '{"title":"`+vis+`"}')`, id, seq, vis); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		query string
		want  []string
		not   []string
	}{
		{"", nil, []string{"internal", "sensitive"}},
		{"?internal=1", []string{"internal"}, []string{`"sensitive"`}},
		{"?internal=1&sensitive=1", []string{"internal", "sensitive"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			_, body := e.srv.do(t, "GET", "/api/sessions/"+id+"/events"+tc.query, "")
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("missing %s: %s", w, body)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(body, n) {
					t.Errorf("leaked %s: %s", n, body)
				}
			}
		})
	}
}

func TestStreamDeliversUpdatesAsSSE(t *testing.T) {
	e := serve(t, "")
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req := e.srv.request(t, "GET", "/api/stream?protocol="+protocol.Version, "").WithContext(ctx)
	req.Header.Del(httpapi.ProtocolHeader)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Scan() // ": connected"
	newSession(t, e)
	var lines []string
	for sc.Scan() {
		if l := sc.Text(); l != "" && !strings.HasPrefix(l, ":") {
			lines = append(lines, l)
		}
		if len(lines) == 4 {
			break
		}
	}
	want := []string{"event: events", `data: [{"session":"`, "event: sessions", `data: [{"id":"`}
	for i, w := range want {
		if i >= len(lines) || !strings.HasPrefix(lines[i], w) {
			t.Fatalf("SSE lines %q, want prefixes %q", lines, want)
		}
	}
	if !strings.Contains(lines[1], `"type":"session.created"`) {
		t.Fatalf("first event %s", lines[1])
	}
}

func TestRefusesNonLoopback(t *testing.T) {
	s := httpapi.New(httpapi.Backend{}, fstest.MapFS{}, slog.New(slog.DiscardHandler))
	err := s.ListenAndServe(t.Context(), "0.0.0.0:0", func(string) {})
	if !errors.Is(err, httpapi.ErrNotLoopback) {
		t.Fatalf("listening on all interfaces: %v", err)
	}
}

// settings is a host.Settings for the routes: the notes folder, and a
// screen whose Update refuses a temperature over 2 as the real one does
// and records what it saved.
type settings struct {
	host.Settings // what a test does not use: a call panics
	dir           string
	mu            sync.Mutex
	saved         []protocol.UserSettings
	checked       []string
}

func (s *settings) Screen(context.Context) (protocol.SettingsScreen, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := protocol.SettingsScreen{NotesDir: s.dir, Settings: protocol.UserSettings{Model: "qwen3:4b", Theme: "system"}}
	if n := len(s.saved); n > 0 {
		sc.Settings = s.saved[n-1]
	}
	return sc, nil
}

func (s *settings) Update(ctx context.Context, u protocol.UserSettings) (protocol.SettingsScreen, error) {
	if u.Temperature != nil && *u.Temperature > 2 {
		return protocol.SettingsScreen{}, &protocol.SettingError{Field: "temperature", Message: "The temperature must be between 0 and 2."}
	}
	s.mu.Lock()
	s.saved = append(s.saved, u)
	s.mu.Unlock()
	return s.Screen(ctx)
}

func (s *settings) CheckOllama(_ context.Context, address string) protocol.OllamaCheck {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.checked = append(s.checked, address)
	return protocol.OllamaCheck{Address: address, Message: "Nothing answers at " + address + ": is Ollama running?", Models: []string{}}
}

func (s *settings) NotesDir() string { return s.dir }
func (s *settings) SetNotesDir(dir string) error {
	if dir == "/nope" {
		return errors.New("the notes folder /nope cannot be used")
	}
	s.dir = dir
	return nil
}

func TestSettingsRoutes(t *testing.T) {
	k := testkit.New(t)
	st := &settings{}
	h := httpapi.New(httpapi.Backend{Kernel: k.Runtime, Settings: st, Doctor: func(context.Context) doctor.Report { return doctor.Report{} }},
		fstest.MapFS{}, slog.New(slog.DiscardHandler))
	srv := start(t, h)
	if status, body := srv.do(t, "PUT", "/api/settings", `{"notesDir":"/home/ada/Notes"}`); status != 200 || !strings.Contains(body, "/home/ada/Notes") {
		t.Fatalf("put: %d %s", status, body)
	}
	if status, body := srv.do(t, "POST", httpapi.OpPath+"Settings.Screen", ""); status != 200 || !strings.Contains(body, `"notesDir":"/home/ada/Notes"`) {
		t.Fatalf("get: %d %s", status, body)
	}
	if status, body := srv.do(t, "PUT", "/api/settings", `{"notesDir":"/nope"}`); status != 400 || !strings.Contains(body, "cannot be used") {
		t.Fatalf("bad folder: %d %s", status, body)
	}
	// A body that does not name the folder changes nothing: it once
	// cleared it, and the note tools went off with it.
	for _, body := range []string{`{}`, `null`, `{"notesFolder":"/tmp"}`, `{"notesDir":"/tmp","extra":1}`, `{"notesDir":null}`, `{"notesDir":"/tmp"} {}`} {
		status, got := srv.do(t, "PUT", "/api/settings", body)
		if status != 400 || !strings.Contains(got, "notesDir") && !strings.Contains(got, "not the JSON expected") {
			t.Errorf("PUT %s: %d %s, want 400 with a sentence", body, status, got)
		}
		if st.dir != "/home/ada/Notes" {
			t.Fatalf("PUT %s changed the notes folder to %q", body, st.dir)
		}
	}
	// Turning the note tools off is said in so many words.
	if status, body := srv.do(t, "PUT", "/api/settings", `{"notesDir":""}`); status != 200 || st.dir != "" {
		t.Fatalf("an explicit empty folder: %d %s, folder %q", status, body, st.dir)
	}
}
