// Package httpapi serves Quire's UI and host protocol over loopback HTTP with
// Server-Sent Events (`quire serve`), so the same frontend runs in a browser —
// which is how the UI is tested in real Chromium.
//
// It speaks only kernel/protocol and the ports of package host. It must never import kernel/core,
// kernel/store, a model client, Wails, memory/, rag/ or tools/.
package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"quire/host"
	"quire/host/probe"
	"quire/kernel/protocol"
)

// Backend is what the server serves.
type Backend struct {
	Kernel    protocol.Kernel
	Doctor    host.Doctor
	Settings  host.Settings  // may be nil: settings cannot be changed
	Memory    host.Memory    // may be nil: the memory panel has nothing to show
	ProbePath string         // QUIRE_TEST_PROBE; empty outside tests
	Documents host.Documents // may be nil: no document index (documents.go)
	Models    host.Models    // may be nil: no models screen (models.go)
	Notes     host.Notes     // may be nil: no notes panel (notes.go)
	Calls     host.Calls     // may be nil: no inspector (calls.go)
	// Conversations searches every conversation (conversations.go); nil:
	// the search says it is not available.
	Conversations host.Conversations
	Batches       host.Batches  // may be nil: no task queue (batches.go)
	Standing      host.Standing // may be nil: no standing tasks (standing.go)
	MCP           host.MCP      // may be nil: no MCP servers (mcp.go)
	// Evolution is the Evolution panel's back end (evolution.go); nil:
	// its routes say it is not available.
	Evolution host.Evolution
	Skills    host.Skills // may be nil: no skills (skills.go)
	// Show brings the window to the front (socket.go); nil for `quire serve`.
	Show func(ctx context.Context) error
	// Health watches the checks on its own (health.go); nil: the page asks
	// the doctor itself and is sent no change.
	Health *host.Health
	// Claims route a conversation's questions to the terminal that drives
	// it (socket.go's claim); nil: no terminal can claim one.
	Claims *host.Claims
}

// Server is the HTTP host.
type Server struct {
	b           Backend
	log         *slog.Logger
	secret      string // this start's secret (guard.go); never logged
	limits      limits
	handler     http.Handler
	streamWrite time.Duration // each write of an event stream (serveSSE)
	// questions are the permission questions Ask holds open for the page
	// (questions.go).
	questions host.Questions
	// wire dispatches the ports' operations (ops.go).
	wire *host.Wire
}

// limits bounds how long a connection may hold the server (timeouts.go).
type limits struct {
	readHeader, read, write, idle time.Duration
	// connState, when set, is told of every connection's state (tests
	// wait on it instead of a timer).
	connState func(net.Conn, http.ConnState)
}

// ErrNotLoopback: Quire serves only this machine.
var ErrNotLoopback = errors.New("quire serve listens on loopback addresses only (127.0.0.0/8, ::1 or localhost)")

// New builds the server with a fresh secret; assets is the built frontend.
// Everything it serves is behind the browser guard (guard.go): only the
// page opened through Link, or a client holding the secret, reaches /api.
func New(b Backend, assets fs.FS, log *slog.Logger) *Server {
	s := newServer(b, log)
	s.secret = newSecret()
	s.handler = guard(s.secret, log, s.routes(), deadlines(&s.limits, http.FileServerFS(assets)))
	return s
}

// newServer is what both listeners build on: the backend and log of the
// routes, the timeouts every connection meets (timeouts.go) and each
// stream write's deadline. New puts the browser guard in front of it and
// ServeSocket the window's Show beside it; neither sets these parts
// itself, because the local channel once built its own and missed one (a
// stream write deadline of zero failed every stream on the socket).
func newServer(b Backend, log *slog.Logger) *Server {
	return &Server{b: b, log: log, limits: defaultLimits, streamWrite: StreamWriteTimeout, wire: host.NewWire()}
}

// routes are every /api route with the handshake and no browser guard:
// the TCP server puts guard before them (New); the local channel
// (socket.go) serves them behind its own check of who is calling.
func (s *Server) routes() http.Handler {
	api := http.NewServeMux()
	api.HandleFunc("GET /api/doctor", s.doctor)
	api.HandleFunc("GET /api/health/stream", s.healthStream)
	api.HandleFunc("GET /api/sessions", s.sessions)
	api.HandleFunc("POST /api/sessions", s.newSession)
	api.HandleFunc("PATCH /api/sessions/{id}", s.rename)
	api.HandleFunc("DELETE /api/sessions/{id}", s.delete)
	api.HandleFunc("GET /api/sessions/{id}/events", s.events)
	api.HandleFunc("POST /api/sessions/{id}/messages", s.send)
	api.HandleFunc("POST /api/sessions/{id}/cancel", s.cancel)
	api.HandleFunc("POST /api/sessions/{id}/answer", s.answer)
	api.HandleFunc("POST /api/sessions/{id}/edit", s.edit)
	api.HandleFunc("POST /api/sessions/{id}/regenerate", s.regenerate)
	api.HandleFunc("POST /api/sessions/{id}/continue", s.continueRun)
	api.HandleFunc("GET /api/questions", s.openQuestions)
	api.HandleFunc("GET /api/questions/stream", s.questionStream)
	api.HandleFunc("POST /api/commands", s.command)
	api.HandleFunc("PUT /api/settings", s.putSettings)
	api.HandleFunc("POST /api/probe", s.probe)
	s.conversationRoutes(api)
	api.HandleFunc("GET /api/stream", s.stream)
	s.streamRoutes(api)
	s.opRoutes(api)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/handshake", s.handshake)
	mux.Handle("/api/", requireHandshake(api))
	return deadlines(&s.limits, mux)
}

// ProtocolHeader carries the client's protocol version on every API request
// (or the "protocol" query parameter, for EventSource, which cannot set
// headers). It is the handshake made stateless: a request from an
// incompatible client is refused before it does anything.
const ProtocolHeader = "Quire-Protocol"

// requireHandshake refuses a request without a compatible version. The
// query fallback is for EventSource, which only ever GETs: a request that
// changes something must send the header, which a plain HTML form or an
// <img> cannot, so a URL alone can never change anything.
func requireHandshake(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := r.Header.Get(ProtocolHeader)
		if v == "" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			v = r.URL.Query().Get("protocol")
		}
		if err := protocol.Compatible(v); err != nil {
			writeJSON(w, http.StatusUpgradeRequired, map[string]string{"error": err.Error()})
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) handshake(w http.ResponseWriter, r *http.Request) {
	if err := protocol.Compatible(r.URL.Query().Get("version")); err != nil {
		s.fail(w, http.StatusUpgradeRequired, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"version": protocol.Version})
}

// ServeHTTP serves the page and the API behind the browser guard.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Link is the address to open for the server at origin ("http://host:port"):
// it carries this start's secret, which the page exchanges for a cookie.
func (s *Server) Link(origin string) string {
	return strings.TrimRight(origin, "/") + "/?" + TokenQuery + "=" + s.secret
}

// ListenAndServe serves on addr (loopback only) until ctx ends; ready gets
// the link that carries the secret (Link), the one address a browser can use.
func (s *Server) ListenAndServe(ctx context.Context, addr string, ready func(link string)) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if !Loopback(host) {
		return ErrNotLoopback
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	ready(s.Link("http://" + ln.Addr().String()))
	return serve(ctx, s.limits.server(ctx, s), ln)
}

// serve runs srv on ln until ctx ends, then shuts it down: a request in
// flight has 3 s to finish, and a stream still open after that (a page
// that stays) is cut, so serve returns once every connection is gone.
func serve(ctx context.Context, srv *http.Server, ln net.Listener) error {
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Second)
		defer cancel()
		if srv.Shutdown(shutdown) != nil {
			srv.Close()
		}
	}()
	err := srv.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) || ctx.Err() != nil {
		<-stopped
		return nil
	}
	return err
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (s *Server) fail(w http.ResponseWriter, status int, err error) {
	writeJSON(w, status, map[string]string{"error": words(err)})
}

// words is the sentence a page shows for err: the kernel's error classes
// that need words get the page's (host.Spoken, the window's too), the rest
// already say what happened.
func words(err error) string { return host.Spoken(err).Error() }

func readJSON(r *http.Request, v any) error { return readBody(r, v, false) }

// readBody decodes a request's JSON body into v; strict refuses a key v does
// not have.
// maxBody bounds a request's JSON body: the largest Quire sends is a
// message or a settings screen, a few KB.
const maxBody = 1 << 20

var errBodyTooLarge = errors.New("the request body is larger than 1 MiB: send less")

var errBadJSON = errors.New("the request body is not the JSON expected")

func readBody(r *http.Request, v any, strict bool) error {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return err
	}
	if len(body) > maxBody {
		return errBodyTooLarge
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %w", errBadJSON, err)
	}
	if len(bytes.TrimSpace(body[dec.InputOffset():])) > 0 {
		return fmt.Errorf("%w: something follows the value", errBadJSON)
	}
	return nil
}

func (s *Server) sessions(w http.ResponseWriter, r *http.Request) {
	list, err := s.b.Kernel.Sessions(r.Context())
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err)
		return
	}
	if list == nil {
		list = []protocol.Session{}
	}
	writeJSON(w, http.StatusOK, list)
}

// run executes a command and writes its result, mapping errors to statuses.
func (s *Server) run(w http.ResponseWriter, r *http.Request, typ string, payload any, ok int) {
	cmd, err := protocol.NewCommand("", r.Header.Get("Idempotency-Key"), typ, payload)
	if err != nil {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	s.execute(w, r, cmd, ok)
}

func (s *Server) execute(w http.ResponseWriter, r *http.Request, cmd protocol.Command, ok int) {
	res, err := s.b.Kernel.Execute(r.Context(), cmd)
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	if ok == http.StatusNoContent {
		w.WriteHeader(ok)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(ok)
	w.Write(res)
}

// statusKinds are the HTTP statuses of the protocol's error classes, one
// table for both ways: statusOf (the server's answer) and kindOf (a client
// of the local channel reading it back); the first of a status is what it
// reads as.
var statusKinds = []struct {
	status int
	kind   error
}{
	{http.StatusUnprocessableEntity, protocol.ErrIdempotencyConflict},
	{http.StatusUpgradeRequired, protocol.ErrIncompatible},
	{http.StatusBadRequest, protocol.ErrBadPayload},
	{http.StatusBadRequest, protocol.ErrUnknownCommand},
	{http.StatusNotFound, protocol.ErrNotFound},
	{http.StatusConflict, protocol.ErrConflict},
	{http.StatusConflict, protocol.ErrDamaged},
	{http.StatusInsufficientStorage, protocol.ErrNoSpace},
}

func statusOf(err error) int {
	for _, sk := range statusKinds {
		if errors.Is(err, sk.kind) {
			return sk.status
		}
	}
	return http.StatusInternalServerError
}

// kindOf is the protocol's error class of an answer's status (nil for
// none), so a host driving the owner tells a busy conversation from a
// missing one as it would in process.
func kindOf(status int) error {
	for _, sk := range statusKinds {
		if sk.status == status {
			return sk.kind
		}
	}
	return nil
}

type titleBody struct {
	Title string `json:"title"`
}

func (s *Server) newSession(w http.ResponseWriter, r *http.Request) {
	var b protocol.CreateSessionPayload
	if err := readJSON(r, &b); err != nil {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	s.run(w, r, protocol.CreateSession, b, http.StatusOK)
}

func (s *Server) rename(w http.ResponseWriter, r *http.Request) {
	var b titleBody
	if err := readJSON(r, &b); err != nil {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	s.run(w, r, protocol.RenameSession, protocol.RenameSessionPayload{Session: r.PathValue("id"), Title: b.Title}, http.StatusOK)
}

func (s *Server) delete(w http.ResponseWriter, r *http.Request) {
	s.run(w, r, protocol.DeleteSession, protocol.SessionRef{Session: r.PathValue("id")}, http.StatusNoContent)
}

// audienceOf reads which events the client asked to see; sensitive events
// are sent only when asked for by name.
func audienceOf(r *http.Request) protocol.Audience {
	q := r.URL.Query()
	return protocol.Audience{Internal: q.Get("internal") == "1", Sensitive: q.Get("sensitive") == "1"}
}

func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	from := int64(0)
	if v := r.URL.Query().Get("from"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			s.fail(w, http.StatusBadRequest, fmt.Errorf("from=%q is not a seq", v))
			return
		}
		from = n
	}
	evs, err := s.b.Kernel.Events(r.Context(), r.PathValue("id"), from)
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusOK, protocol.Filter(evs, audienceOf(r)))
}

func (s *Server) send(w http.ResponseWriter, r *http.Request) {
	var b struct {
		Text   string `json:"text"`
		Intent string `json:"intent"`
	}
	if err := readJSON(r, &b); err != nil {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	s.run(w, r, protocol.SendMessage, protocol.SendMessagePayload{Session: r.PathValue("id"), Text: b.Text, Intent: b.Intent}, http.StatusAccepted)
}

// answer is the in-page answer to a permission question (the window uses a
// native dialog instead); the page reads the question whole from
// /api/questions first (questions.go).
func (s *Server) answer(w http.ResponseWriter, r *http.Request) {
	var b protocol.AnswerPayload
	if err := readJSON(r, &b); err != nil {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	b.Session = r.PathValue("id")
	s.run(w, r, protocol.AnswerAsk, b, http.StatusNoContent)
}

// edit resends the user message at seq with other words, as a new branch
// (protocol.EditMessage): 201 with the branch and its run.
func (s *Server) edit(w http.ResponseWriter, r *http.Request) {
	var b struct {
		Seq  int64  `json:"seq"`
		Text string `json:"text"`
	}
	if err := readBody(r, &b, true); err != nil {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	s.run(w, r, protocol.EditMessage, protocol.EditMessagePayload{Session: r.PathValue("id"), Seq: b.Seq, Text: b.Text}, http.StatusCreated)
}

// regenerate asks again for the reply at seq, as a new branch
// (protocol.Regenerate): 201 with the branch and its run.
func (s *Server) regenerate(w http.ResponseWriter, r *http.Request) {
	var b struct {
		Seq int64 `json:"seq"`
	}
	if err := readBody(r, &b, true); err != nil {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	s.run(w, r, protocol.Regenerate, protocol.RegeneratePayload{Session: r.PathValue("id"), Seq: b.Seq}, http.StatusCreated)
}

// continueRun asks the model to continue the reply that was cut off
// (protocol.ContinueRun): 202 with the run.
func (s *Server) continueRun(w http.ResponseWriter, r *http.Request) {
	s.run(w, r, protocol.ContinueRun, protocol.SessionRef{Session: r.PathValue("id")}, http.StatusAccepted)
}

func (s *Server) cancel(w http.ResponseWriter, r *http.Request) {
	s.run(w, r, protocol.CancelRun, protocol.SessionRef{Session: r.PathValue("id")}, http.StatusNoContent)
}

type settingsBody struct {
	NotesDir string `json:"notesDir"`
}

// errNoSettings: this Quire has no settings to change (a host without the port).
var errNoSettings = errors.New("settings cannot be changed here")

// errNoNotesDir: a settings change that does not name the folder. A body
// without it (`{}`, `null`, a misspelt key) once cleared the notes folder,
// turning the note tools off by accident; clearing it takes an explicit
// `"notesDir": ""` (the page never sends it; the browser tests' setup does).
var errNoNotesDir = errors.New(`the settings change names no notes folder: send {"notesDir": "/absolute/path"} (or "" to turn the note tools off)`)

func (s *Server) putSettings(w http.ResponseWriter, r *http.Request) {
	var b struct {
		NotesDir *string `json:"notesDir"`
	}
	// A misspelt key is a mistake to say, not a change to make.
	err := readBody(r, &b, true)
	if err == nil && b.NotesDir == nil {
		err = errNoNotesDir
	}
	if err != nil {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	if s.b.Settings == nil {
		s.fail(w, http.StatusConflict, errNoSettings)
		return
	}
	if err := s.b.Settings.SetNotesDir(*b.NotesDir); err != nil {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	writeJSON(w, http.StatusOK, settingsBody{NotesDir: s.b.Settings.NotesDir()})
}

// command accepts a whole command envelope (docs/PROTOCOL.md).
func (s *Server) command(w http.ResponseWriter, r *http.Request) {
	var cmd protocol.Command
	if err := readJSON(r, &cmd); err != nil {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	s.execute(w, r, cmd, http.StatusOK)
}

// probe writes the page's snapshot for a test: 204. With no probe set it
// answers {"probing":false}, so the page stops building snapshots nobody
// reads.
func (s *Server) probe(w http.ResponseWriter, r *http.Request) {
	if s.b.ProbePath == "" {
		writeJSON(w, http.StatusOK, map[string]bool{"probing": false})
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	if err == nil {
		err = probe.Write(s.b.ProbePath, body)
	}
	if err != nil {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// stream sends every update as SSE until the client goes away. A client that
// reconnects reloads events from its last seq with /events?from=, so nothing
// is lost between streams. A client that falls behind the kernel's bound is
// sent a "lagging" event and the stream closes: it reconnects and reloads.
func (s *Server) stream(w http.ResponseWriter, r *http.Request) {
	aud := audienceOf(r)
	updates, cause := s.b.Kernel.Watch(r.Context())
	serveSSE(s, w, r, updates, cause, func(w io.Writer, u protocol.Update) error {
		if evs := protocol.Filter(u.Events, aud); len(evs) > 0 {
			if err := writeSSE(w, "events", evs); err != nil {
				return err
			}
		}
		if u.Sessions != nil {
			return writeSSE(w, "sessions", u.Sessions)
		}
		return nil
	})
}

// StreamWriteTimeout bounds each write of an event stream. A client that
// reads takes an event at once; one that stopped reading fills the socket's
// buffers and then blocks the write, and after this long it is cut off, so
// it holds a goroutine and buffers no longer.
const StreamWriteTimeout = 10 * time.Second

// laggingSentence is the data of the "lagging" event a stream ends with when
// its client fell behind; the page reloads what it missed.
const laggingSentence = "Quire's live updates fell behind this page and were restarted; the page reloads what it missed."

// serveSSE answers with an event stream and writes each value from
// updates with write, flushing after each, with a keep-alive comment every
// 15 s, until updates closes, a write fails or the client goes away. Every
// write has its own deadline (the server's streamWrite), so a client that
// stops reading is cut off after it rather than held forever. When updates
// closes because its reader lagged (cause says protocol.ErrLagging), the
// client is told so with a "lagging" event before the stream ends. cause
// may be nil (a stream that never lags).
func serveSSE[T any](s *Server, w http.ResponseWriter, r *http.Request, updates <-chan T, cause func() error, write func(io.Writer, T) error) {
	if _, ok := w.(http.Flusher); !ok {
		s.fail(w, http.StatusInternalServerError, errors.New("streaming is not supported"))
		return
	}
	rc := http.NewResponseController(w)
	// A stream lives longer than any read timeout of the server: without
	// this, the expired read deadline would end the request's context.
	rc.SetReadDeadline(time.Time{})
	send := func(f func() error) error {
		if err := rc.SetWriteDeadline(time.Now().Add(s.streamWrite)); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return err
		}
		if err := f(); err != nil {
			return err
		}
		return rc.Flush()
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	closed := func(reason string, err error) {
		s.log.Info(streamClosed, "path", r.URL.Path, "reason", reason, "err", err)
	}
	if err := send(func() error { _, err := fmt.Fprint(w, ": connected\n\n"); return err }); err != nil {
		closed("write failed", err)
		return
	}
	keepAlive := time.NewTicker(15 * time.Second)
	defer keepAlive.Stop()
	for {
		var err error
		select {
		case u, ok := <-updates:
			if !ok {
				if cause == nil || !errors.Is(cause(), protocol.ErrLagging) {
					return
				}
				closed("lagging", cause())
				// Best effort: a client that still does not read misses it,
				// and finds the stream closed all the same.
				send(func() error {
					_, err := fmt.Fprint(w, "retry: 1000\n")
					if err == nil {
						err = writeSSE(w, "lagging", map[string]string{"error": laggingSentence})
					}
					return err
				})
				return
			}
			err = send(func() error { return write(w, u) })
		case <-keepAlive.C:
			err = send(func() error { _, err := fmt.Fprint(w, ": keep-alive\n\n"); return err })
		case <-r.Context().Done():
			return
		}
		if err != nil {
			closed("write failed", err)
			return
		}
	}
}

// streamClosed is the log message of a stream the server ended (a lagging
// client, a write that failed or passed its deadline).
const streamClosed = "event stream closed"

func writeSSE(w io.Writer, name string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	return err
}
