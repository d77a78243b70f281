package httpapi

import (
	"errors"
	"io"
	"net/http"

	"quire/host"
	"quire/kernel/protocol"
)

// The panels' streams: what a port watches (a channel, which no operation
// carries; host.Ports' calls are at OpPath) as server-sent events, one
// route each, until the client goes away:
//
//	GET /api/documents/stream     "indexing": IndexProgress, lossy (the latest)
//	GET /api/models/pull/stream   "pull": PullProgress, each pull's terminal state always
//	GET /api/batches/stream       "batch": BatchProgress, in order per batch
//	GET /api/mcp/stream           "mcp": MCPServer on each change, in order per server
//	GET /api/evolution/evaluations "evaluation": EvaluationJob, in order per candidate
func (s *Server) streamRoutes(api *http.ServeMux) {
	api.HandleFunc("GET /api/documents/stream", withPart(s, func() host.Documents { return s.b.Documents }, errNoDocuments,
		func(d host.Documents, w http.ResponseWriter, r *http.Request) {
			serveSSE(s, w, r, d.Watch(r.Context()), nil, func(w io.Writer, p protocol.IndexProgress) error { return writeSSE(w, "indexing", p) })
		}))
	api.HandleFunc("GET /api/models/pull/stream", withPart(s, func() host.Models { return s.b.Models }, errNoModels,
		func(m host.Models, w http.ResponseWriter, r *http.Request) {
			serveSSE(s, w, r, m.Watch(r.Context()), nil, func(w io.Writer, p protocol.PullProgress) error { return writeSSE(w, "pull", p) })
		}))
	api.HandleFunc("GET /api/batches/stream", withPart(s, func() host.Batches { return s.b.Batches }, errNoBatches,
		func(b host.Batches, w http.ResponseWriter, r *http.Request) {
			serveSSE(s, w, r, b.Watch(r.Context()), nil, func(w io.Writer, p protocol.BatchProgress) error { return writeSSE(w, "batch", p) })
		}))
	api.HandleFunc("GET /api/mcp/stream", withPart(s, func() host.MCP { return s.b.MCP }, errNoMCP,
		func(m host.MCP, w http.ResponseWriter, r *http.Request) {
			serveSSE(s, w, r, m.Watch(r.Context()), nil, func(w io.Writer, v protocol.MCPServer) error { return writeSSE(w, "mcp", v) })
		}))
	api.HandleFunc("GET /api/evolution/evaluations", withPart(s, func() host.Evolution { return s.b.Evolution }, errNoEvolution,
		func(e host.Evolution, w http.ResponseWriter, r *http.Request) {
			serveSSE(s, w, r, e.WatchEvaluations(r.Context()), nil, func(w io.Writer, j protocol.EvaluationJob) error { return writeSSE(w, "evaluation", j) })
		}))
}

// The streams' answers when the server was started without that part.
var (
	errNoDocuments = errors.New("the document index is not available; see the health checks")
	errNoModels    = errors.New("the models screen is not available")
	errNoBatches   = errors.New("batches are not available")
	errNoMCP       = errors.New("MCP servers cannot be managed here; update Quire")
	errNoEvolution = errors.New("evolution is not available")
)

// withPart hands h the backend part it needs, read at each request, or
// answers 503 with missing when the server has none (a nil interface).
func withPart[P comparable](s *Server, get func() P, missing error, h func(P, http.ResponseWriter, *http.Request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var none P
		part := get()
		if part == none {
			s.fail(w, http.StatusServiceUnavailable, missing)
			return
		}
		h(part, w, r)
	}
}
