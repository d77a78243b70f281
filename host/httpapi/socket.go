package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"

	"quire/host"
	"quire/internal/datadir"
	"quire/kernel/protocol"
)

// The local channel: the data folder's owner (the window or `quire serve`)
// serves the same API routes on a Unix socket in the folder, so that a
// command that must write (`quire index`) and a second window go through
// the process that owns the folder instead of opening its database. The
// listener comes from the owner's lock (internal/datadir): mode 0600 and
// the peer's uid checked, which replaces the browser guard of the TCP
// server — a socket only the folder's user can open needs no secret.

// showPath is the window's "come to the front" request, only on the socket.
const showPath = "/api/window/show"

// errNotAWindow: Show reached an owner that has no window (`quire serve`).
var errNotAWindow = protocol.Classify(protocol.ErrConflict, errors.New("this Quire has no window to show; it serves a browser"))

// ServeSocket serves b's API routes, and the window's Show, on ln until
// ctx ends.
func ServeSocket(ctx context.Context, ln net.Listener, b Backend, log *slog.Logger) error {
	return newServer(b, log).serveSocket(ctx, ln)
}

// serveSocket serves s's routes and Show on ln with s's limits: a process
// of the same user that stalls is held to the same timeouts as a browser.
func (s *Server) serveSocket(ctx context.Context, ln net.Listener) error {
	mux := http.NewServeMux()
	mux.Handle("/api/", s.routes())
	mux.Handle("POST "+showPath, requireHandshake(http.HandlerFunc(s.show)))
	mux.Handle("GET "+claimPath, requireHandshake(http.HandlerFunc(s.claim)))
	return serve(ctx, s.limits.server(ctx, mux), ln)
}

// claimPath is a terminal host's hold on a conversation's permission
// questions (host.Claims), only on the socket: while the stream is open the
// session's questions are sent here, as "questions" events (the whole list
// at connect and on each change), and not to the window or the page; the
// client answers with the ordinary answer route. When the stream closes (the
// client exited or was killed) a question still open is answered No.
const claimPath = "/api/sessions/{id}/claim"

// errNoClaims: the owner routes no questions to terminals (an older wiring).
var errNoClaims = protocol.Classify(protocol.ErrConflict, errors.New("this Quire cannot hand a conversation's questions to a terminal"))

func (s *Server) claim(w http.ResponseWriter, r *http.Request) {
	if s.b.Claims == nil {
		s.fail(w, statusOf(errNoClaims), errNoClaims)
		return
	}
	cl, err := s.b.Claims.Claim(r.PathValue("id"))
	if err != nil {
		s.fail(w, http.StatusConflict, err)
		return
	}
	defer cl.Release()
	serveSSE(s, w, r, host.WatchBoard(r.Context(), cl.Questions()), nil, writeQuestions)
}

func (s *Server) show(w http.ResponseWriter, r *http.Request) {
	if s.b.Show == nil {
		s.fail(w, statusOf(errNotAWindow), errNotAWindow)
		return
	}
	if err := s.b.Show(r.Context()); err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// ErrNoAnswer: the owner holds the folder but its local channel did not
// answer (it may be starting, stuck, or an older Quire).
var ErrNoAnswer = errors.New("the running quire did not answer on its local channel")

// OwnerError is what the running owner answered when it refused a
// request: its sentence, as a host shows it.
type OwnerError struct {
	Status int
	Msg    string
}

func (e *OwnerError) Error() string { return e.Msg }

// Local is a client of an owner's local channel.
type Local struct {
	c *http.Client
}

// DialLocal returns a client of the local channel at the socket path; it
// connects on each request.
func DialLocal(path string) *Local {
	var d net.Dialer
	return &Local{c: &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			c, err := d.DialContext(ctx, "unix", path)
			if err != nil {
				return nil, err
			}
			// Nothing is sent to an owner that is not this user's.
			if err := datadir.CheckPeer(c); err != nil {
				c.Close()
				return nil, err
			}
			return c, nil
		},
	}}}
}

// do sends a request with the handshake header and decodes a JSON answer
// into out (when not nil).
func (l *Local) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://quire"+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set(ProtocolHeader, protocol.Version)
	req.Header.Set("Content-Type", "application/json")
	resp, err := l.c.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNoAnswer, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return answerError(resp)
	}
	if out == nil {
		return nil
	}
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNoAnswer, err)
	}
	if len(answer) > maxAnswer {
		return fmt.Errorf("%w: its answer to %s is larger than %d MiB", ErrNoAnswer, path, maxAnswer>>20)
	}
	return json.Unmarshal(answer, out)
}

func answerError(resp *http.Response) error {
	var e struct {
		Error string `json:"error"`
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if json.Unmarshal(b, &e) != nil || e.Error == "" {
		e.Error = strings.TrimSpace(string(b))
	}
	oe := &OwnerError{Status: resp.StatusCode, Msg: e.Error}
	if kind := kindOf(resp.StatusCode); kind != nil {
		return protocol.Classify(kind, oe)
	}
	return oe
}

// Show asks the owner to bring its window to the front.
func (l *Local) Show(ctx context.Context) error {
	return l.do(ctx, http.MethodPost, showPath, struct{}{}, nil)
}

// Index is the owner's document index, as `quire index` drives it: the
// documents panel's operations.
func (l *Local) Index(ctx context.Context) (*LocalIndex, error) {
	st, err := op[protocol.DocumentsState](ctx, l, "Documents.State")
	if err != nil {
		return nil, err
	}
	return &LocalIndex{l: l, state: st}, nil
}

// LocalIndex indexes through the owner's documents panel.
type LocalIndex struct {
	l     *Local
	state protocol.DocumentsState
}

// Embedder names what makes the owner's vectors.
func (x *LocalIndex) Embedder() string { return x.state.Embedder }

// Documents lists every file in the owner's index.
func (x *LocalIndex) Documents(ctx context.Context) ([]protocol.Document, error) {
	st, err := op[protocol.DocumentsState](ctx, x.l, "Documents.State")
	return st.Documents, err
}

// ErrDetached: the command stopped following a pass the owner goes on with.
var ErrDetached = errors.New("stopped following the pass; the running quire goes on indexing in the background (its documents panel shows it)")

// Index queues absolute paths with the owner and follows its progress
// until the pass that indexes them ends: nil when it completed, the
// pass's error when it failed or was stopped. If ctx ends first the
// owner goes on (ErrDetached): the folder is the owner's, not this
// command's.
//
// Progress is lossy (the latest state), so the pass is recognised by its
// paths: the first pass after the add whose paths cover these. Should its
// final state be replaced by the next pass's before it is read, the next
// pass's start says it ended; the caller's documents list tells how.
func (x *LocalIndex) Index(ctx context.Context, paths []string, progress func(protocol.IndexProgress)) error {
	if progress == nil {
		progress = func(protocol.IndexProgress) {}
	}
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	states, errp := x.l.follow(sctx)
	next := func() (protocol.IndexProgress, error) {
		p, ok := <-states
		if !ok {
			if ctx.Err() != nil {
				return p, ErrDetached
			}
			return p, fmt.Errorf("%w: the progress stream ended: %w", ErrNoAnswer, errp())
		}
		return p, nil
	}
	// A pass with these paths already going ends before the one this add
	// queues, so its end is not ours: let it end first.
	for {
		p, err := next()
		if err != nil {
			return err
		}
		if !(p.Running && covers(p.Paths, paths)) {
			break
		}
	}
	if err := opDo(ctx, x.l, "Documents.Add", paths); err != nil {
		return err
	}
	seen := false
	for {
		p, err := next()
		if err != nil {
			return err
		}
		switch {
		case covers(p.Paths, paths) && p.Running:
			seen = true
			progress(p)
		case covers(p.Paths, paths):
			progress(p)
			switch p.Phase {
			case protocol.PhaseFailed:
				return &OwnerError{Status: http.StatusInternalServerError, Msg: p.Error}
			case protocol.PhaseCancelled:
				return &OwnerError{Status: http.StatusConflict, Msg: "the pass was stopped in the running Quire; what it finished stays indexed"}
			}
			return nil
		case seen:
			return nil // ours ended unread; the next pass has begun
		}
	}
}

// covers reports whether a pass asked to index have indexes every one of want.
func covers(have, want []string) bool {
	if len(have) == 0 {
		return false // a refresh of every known folder, not a pass of named paths
	}
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// follow reads the documents' progress stream (SSE) until ctx ends or the
// stream does; errp says why it ended.
func (l *Local) follow(ctx context.Context) (<-chan protocol.IndexProgress, func() error) {
	out := make(chan protocol.IndexProgress)
	var ferr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(out)
		events, errp, err := l.stream(ctx, "/api/documents/stream")
		if err != nil {
			ferr = err
			return
		}
		for e := range events {
			var p protocol.IndexProgress
			if err := json.Unmarshal(e.data, &p); err != nil {
				ferr = err
				return
			}
			select {
			case out <- p:
			case <-ctx.Done():
				return
			}
		}
		ferr = errp()
	}()
	return out, func() error { <-done; return ferr }
}
