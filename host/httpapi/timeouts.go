package httpapi

import (
	"context"
	"net"
	"net/http"
	"time"
)

// defaultLimits: a request has 10 s to send its headers and a minute to
// send its body (bodies are at most a few MiB, on loopback); an ordinary
// answer has a minute to be taken; an idle keep-alive connection is closed
// after two. None of them bounds an event stream, which lives as long as
// its page (serveSSE bounds each of its writes instead).
var defaultLimits = limits{readHeader: 10 * time.Second, read: time.Minute, write: time.Minute, idle: 2 * time.Minute}

// server is the http.Server for h with these limits. There is no
// server-wide WriteTimeout: it would cut every event stream after it;
// deadlines sets one per ordinary request instead.
func (l limits) server(ctx context.Context, h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: l.readHeader,
		ReadTimeout:       l.read,
		IdleTimeout:       l.idle,
		ConnState:         l.connState,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
}

// streamPaths are the routes that answer with an event stream
// (text/event-stream); every other route is an ordinary request.
var streamPaths = map[string]bool{"/api/stream": true, "/api/documents/stream": true}

// deadlines gives an ordinary request its write deadline: its whole answer
// must be taken within l.write. An event stream gets none — it lives as
// long as its page, and serveSSE bounds each of its writes instead. (The
// read timeout needs no such care: net/http lifts the read deadline once
// the request is read, to watch for the client going away.)
func deadlines(l *limits, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !streamPaths[r.URL.Path] && l.write > 0 {
			// The error is ErrNotSupported from a writer that is no
			// connection (a test's recorder), where there is nothing to bound.
			_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(l.write))
		}
		next.ServeHTTP(w, r)
	})
}
