// Package ollamatest is a fake Ollama server for tests: it speaks Ollama's
// HTTP wire protocol (as of Ollama v0.17.4) for the endpoints Quire uses —
// /api/chat, /api/tags, /api/show, /api/embed, /api/pull, /api/ps,
// /api/delete, /api/version and
// "/" — and the OpenAI-compatible API (/v1/chat/completions, /v1/models,
// /v1/embeddings; openai.go) — and replies to /api/chat with scripted turns, so a test can drive the
// real Ollama client through success, failure and cancellation.
//
// It owns only the imitation of the server. It must never import Quire
// packages (kernel/provider, the ollama adapter or anything else): it is the
// other side of the wire, and tests of every layer must be able to use it.
//
// Ordering: scripted turns are consumed first in, first out, one per
// /api/chat request that gets past validation (an unknown model or a
// malformed request does not use one up). Requests are recorded in the order
// their bodies were read. All methods are safe for concurrent use.
package ollamatest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// Version is what GET /api/version reports unless WithVersion says otherwise.
const Version = "0.17.4"

// Request is one /api/chat request as the fake server received it.
type Request struct {
	// Chat is the decoded request; zero if the body did not decode.
	Chat api.ChatRequest
	// Body is the raw request body, for assertions on exact JSON keys.
	Body []byte
	// OpenAI: it came to /v1/chat/completions; Chat is what it means.
	OpenAI bool
}

// Server is a running fake Ollama server.
type Server struct {
	log     *slog.Logger
	version string
	delay   time.Duration
	after   func(d time.Duration) <-chan time.Time // what a delay waits on (WithTimer)
	now     func() time.Time                       // when keep-alives end (WithClock)

	http    *httptest.Server
	closing chan struct{} // closed by Close, to release hanging replies
	once    sync.Once

	// reply chooses a turn from the last user message when no turn is
	// scripted (WithReplies); nil means the echo.
	reply func(lastUser string) (Turn, bool)
	// respond is like reply but sees the whole request (WithResponder).
	respond func(req api.ChatRequest) (Turn, bool)
	// aside answers requests that are not part of the scripted conversation,
	// before the script (WithAside).
	aside func(req api.ChatRequest) (Turn, bool)

	mu       sync.Mutex
	models   []installed
	pullable []installed
	added    int        // models added so far, to give each a distinct modified_at
	ids      *rand.Rand // draws tool-call ids (WithCallIDSeed)
	offline  bool       // pulls fail as without a network (WithRegistryUnreachable)
	script   []Turn
	requests []Request
	store    store // loaded models and partial downloads (ps.go)

	loadedCtx int     // the context of /v1 requests (WithLoadedContext); 0: the model's
	flavour   Flavour // which runner's extra endpoints it serves (WithFlavour)
}

// Option configures a Server.
type Option func(*Server)

// WithDelay sets the pause before each streamed chunk (chat and pull) for
// replies whose Turn has no Delay of its own. Default: none.
func WithDelay(d time.Duration) Option { return func(s *Server) { s.delay = d } }

// WithTimer sets what a delay waits on: after(d) delivers once d has
// passed. Default: time.After. A test of the delays themselves passes its
// own, sees each delay asked for, and lets it pass when it chooses.
func WithTimer(after func(d time.Duration) <-chan time.Time) Option {
	return func(s *Server) { s.after = after }
}

// WithReplies sets how the server answers when no turn is scripted: reply
// gets the last user message and returns the turn, or false for the echo.
// Tests whose requests arrive in no fixed order (a browser clicking around)
// pick failures and delays by what was typed.
func WithReplies(reply func(lastUser string) (Turn, bool)) Option {
	return func(s *Server) { s.reply = reply }
}

// WithResponder sets how the server answers when no turn is scripted,
// from the whole request: a test's stand-in for a model that reads what it
// is sent (a summariser, a model that reads notes one by one). It is asked
// before WithReplies; false falls through to it.
func WithResponder(respond func(req api.ChatRequest) (Turn, bool)) Option {
	return func(s *Server) { s.respond = respond }
}

// WithAside answers the requests it claims before any scripted turn: a
// side conversation the script does not know about, such as the compactor's
// own summarising request in the middle of a scripted run. Its claims do not
// use up a scripted turn; false leaves the request to the script.
func WithAside(answer func(req api.ChatRequest) (Turn, bool)) Option {
	return func(s *Server) { s.aside = answer }
}

// WithCallIDSeed makes the tool-call ids the server generates repeatable:
// the same seed gives the same sequence of ids. Default: random ids, as
// the real server's.
func WithCallIDSeed(seed uint64) Option {
	return func(s *Server) { s.ids = rand.New(rand.NewPCG(seed, seed)) }
}

// WithVersion sets what /api/version reports. Default: Version.
func WithVersion(v string) Option { return func(s *Server) { s.version = v } }

// WithLogger logs each request at debug level. Default: no logging.
func WithLogger(l *slog.Logger) Option { return func(s *Server) { s.log = l } }

// New starts a fake server on a free loopback port and closes it when the
// test ends. It has no models until AddModel.
func New(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s := newServer(opts)
	s.http = httptest.NewServer(s.routes())
	tb.Cleanup(s.Close)
	return s
}

// Listen starts a fake server on addr ("127.0.0.1:0" picks a free port), for
// programs such as the fakeollama command. The caller must Close it.
func Listen(addr string, opts ...Option) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := newServer(opts)
	s.http = httptest.NewUnstartedServer(s.routes())
	s.http.Listener.Close()
	s.http.Listener = ln
	s.http.Start()
	return s, nil
}

func newServer(opts []Option) *Server {
	s := &Server{
		log:     slog.New(slog.DiscardHandler),
		version: Version,
		closing: make(chan struct{}),
		after:   time.After,
		now:     time.Now,
		ids:     rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())),
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	// A GET pattern also answers HEAD, as Ollama's router does for these.
	mux.HandleFunc("GET /{$}", s.handleRoot)
	mux.HandleFunc("GET /api/version", s.handleVersion)
	mux.HandleFunc("GET /api/tags", s.handleTags)
	mux.HandleFunc("POST /api/show", s.handleShow)
	mux.HandleFunc("POST /api/chat", s.handleChat)
	mux.HandleFunc("POST /api/embed", s.handleEmbed)
	mux.HandleFunc("POST /api/pull", s.handlePull)
	mux.HandleFunc("GET /api/ps", s.handlePs)
	mux.HandleFunc("DELETE /api/delete", s.handleDelete)
	mux.HandleFunc("POST /v1/chat/completions", s.handleOpenAIChat)
	mux.HandleFunc("GET /v1/models", s.handleOpenAIModels)
	mux.HandleFunc("POST /v1/embeddings", s.handleOpenAIEmbeddings)
	mux.HandleFunc("GET /props", s.handleProps)
	mux.HandleFunc("GET /api/v0/models", s.handleLMStudioModels)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.log.Debug("fake ollama request", "method", r.Method, "path", r.URL.Path)
		mux.ServeHTTP(w, r)
	})
}

// URL is the server's base URL, such as "http://127.0.0.1:34567".
func (s *Server) URL() string { return s.http.URL }

// Close stops the server. Replies that hang are released first, because
// closing waits for every request in flight.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.closing)
		s.http.Close()
	})
}

// AddModel installs a model: it is listed, shown, and answers chat and embed.
// Adding a name again replaces the earlier model.
func (s *Server) AddModel(m Model) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = s.put(s.models, m)
}

// AddPullable makes a model available for /api/pull; a successful pull
// installs it. Pulling any other name that is not installed fails as a pull
// from the registry fails for an unknown model.
func (s *Server) AddPullable(m Model) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pullable = s.put(s.pullable, m)
}

// put adds or replaces m in list; the caller holds s.mu.
func (s *Server) put(list []installed, m Model) []installed {
	s.added++
	// Each model is a minute newer than the one before, so /api/tags, which
	// lists the most recently modified first, has a stable order.
	im := resolve(m, time.Date(2025, 1, 1, 0, s.added, 0, 0, time.UTC))
	for i, old := range list {
		if old.name.EqualFold(im.name) {
			list[i] = im
			return list
		}
	}
	return append(list, im)
}

// Script queues turns: each is the reply to one later /api/chat request, in
// order. When the queue is empty the server echoes the last user message.
func (s *Server) Script(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, turns...)
}

// Pending is how many scripted turns have not been used yet.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script)
}

// Requests returns every /api/chat request received so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	for i, r := range s.requests {
		out[i] = Request{Chat: r.Chat, Body: bytes.Clone(r.Body), OpenAI: r.OpenAI}
	}
	return out
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r)
}

// nextTurn pops the next scripted turn; ok is false when none is queued.
func (s *Server) nextTurn() (t Turn, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.script) == 0 {
		return Turn{}, false
	}
	t = s.script[0]
	s.script = s.script[1:]
	return t, true
}

func (s *Server) find(name string) (installed, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return findIn(s.models, name)
}

// findIn looks name up the way Ollama does: parsed to its full form
// (default host, namespace and tag) and compared without regard to case.
func findIn(list []installed, name string) (installed, bool) {
	n := model.ParseName(name)
	if !n.IsValid() {
		return installed{}, false
	}
	for _, m := range list {
		if m.name.EqualFold(n) {
			return m, true
		}
	}
	return installed{}, false
}

func (s *Server) handleRoot(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, "Ollama is running")
}

func (s *Server) handleVersion(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"version": s.version})
}

func (s *Server) handleTags(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	models := make([]api.ListModelResponse, len(s.models))
	for i, m := range s.models {
		// Newest first, as Ollama sorts by modification time.
		models[len(s.models)-1-i] = m.listEntry()
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, api.ListResponse{Models: models})
}

func (s *Server) handleShow(w http.ResponseWriter, r *http.Request) {
	var req api.ShowRequest
	if !decode(w, r, &req) {
		return
	}
	if req.Model == "" {
		// Ollama still reads the old field from older clients, so the fake does too.
		req.Model = req.Name //lint:ignore SA1019 the real server accepts it
	}
	if req.Model == "" {
		writeError(w, http.StatusBadRequest, "model is required")
		return
	}
	m, ok := s.find(req.Model)
	if !ok {
		writeError(w, http.StatusNotFound, "model '"+req.Model+"' not found")
		return
	}
	writeJSON(w, http.StatusOK, m.show())
}

// decode reads a JSON body as Ollama's handlers do, answering 400 itself
// when it cannot.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return false
	}
	if bad := parseBody(body, v); bad != "" {
		writeError(w, http.StatusBadRequest, bad)
		return false
	}
	return true
}

// parseBody decodes body into v and returns "" or the message Ollama
// answers a body it cannot decode with.
func parseBody(body []byte, v any) string {
	err := json.NewDecoder(bytes.NewReader(body)).Decode(v)
	switch {
	case errors.Is(err, io.EOF):
		return "missing request body"
	case err != nil:
		return err.Error()
	}
	return ""
}

// writeJSON answers like gin's c.JSON: one JSON document, no trailing newline.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"fake ollama: cannot encode response"}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// wait pauses for d, and reports false if the client went away or the
// server is closing, in which case the reply must stop.
func (s *Server) wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		select {
		case <-r.Context().Done():
			return false
		case <-s.closing:
			return false
		default:
			return true
		}
	}
	select {
	case <-s.after(d):
		return true
	case <-r.Context().Done():
		return false
	case <-s.closing:
		return false
	}
}

// wire is how a chat reply is written: Ollama's NDJSON (ndjson) or the
// OpenAI-compatible API's server-sent events (sse, openai.go).
type wire interface {
	// reject answers with an HTTP error before anything else is written.
	reject(status int, msg string)
	// piece streams one non-final chunk.
	piece(resp api.ChatResponse) error
	// end streams the final chunk.
	end(final api.ChatResponse)
	// whole answers a request that did not stream, in one body.
	whole(final api.ChatResponse)
	// fail ends a reply with an error: an HTTP error if nothing was
	// written yet, else an error in the stream.
	fail(status int, msg string)
	// drop cuts the connection, as a crashed server would.
	drop()
}

// ndjson writes a streamed reply: one JSON object per line, flushed at once.
type ndjson struct {
	w     http.ResponseWriter
	rc    *http.ResponseController
	wrote bool
}

func newNDJSON(w http.ResponseWriter) *ndjson {
	return &ndjson{w: w, rc: http.NewResponseController(w)}
}

func (n *ndjson) reject(status int, msg string)     { writeError(n.w, status, msg) }
func (n *ndjson) piece(resp api.ChatResponse) error { return n.line(resp) }
func (n *ndjson) end(final api.ChatResponse)        { n.line(final) }
func (n *ndjson) whole(final api.ChatResponse)      { writeJSON(n.w, http.StatusOK, final) }

func (n *ndjson) line(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if !n.wrote {
		n.w.Header().Set("Content-Type", "application/x-ndjson")
		n.wrote = true
	}
	if _, err := n.w.Write(append(b, '\n')); err != nil {
		return err
	}
	return n.rc.Flush()
}

// fail ends a reply with an error the way Ollama's streamResponse does: as
// an HTTP error if nothing was written yet, otherwise as an {"error"} line.
func (n *ndjson) fail(status int, msg string) {
	if !n.wrote {
		writeError(n.w, status, msg)
		return
	}
	n.line(map[string]string{"error": msg})
}

// drop closes the connection under a reply in progress, as a crashed
// server would.
func (n *ndjson) drop() {
	if n.wrote {
		// Chunks already sent must reach the client before the cut; but
		// flushing when nothing was written would send a 200 header, and a
		// server that dies before answering sends nothing.
		n.rc.Flush()
	}
	conn, _, err := n.rc.Hijack()
	if err != nil {
		// Not hijackable (HTTP/2): abort the stream instead.
		panic(http.ErrAbortHandler)
	}
	conn.Close()
}

// hang sends nothing more until the client goes away or the server closes.
func (s *Server) hang(r *http.Request, out wire) {
	select {
	case <-r.Context().Done():
	case <-s.closing:
		out.drop()
	}
}

// abandon ends a reply that wait stopped: if the server is closing, the
// client sees the connection cut, as when a real server goes away, rather
// than a reply that ends as if it were complete.
func (s *Server) abandon(out wire) {
	select {
	case <-s.closing:
		out.drop()
	default:
	}
}

// splitWords cuts text into pieces that each end after a space, so that the
// pieces joined give back text exactly.
func splitWords(text string) []string {
	var out []string
	for piece := range strings.SplitAfterSeq(text, " ") {
		if piece != "" {
			out = append(out, piece)
		}
	}
	return out
}
