package httpapi

import (
	"io"
	"net/http"

	"quire/doctor"
)

// The health checks:
//
//	GET /api/doctor         the whole report, made now (the page's first
//	                        screen and its "Check again"); with a watcher it
//	                        is also sent to every open page
//	GET /api/health/stream  SSE "health": doctor.Report, the latest first,
//	                        then each change the watcher noticed on its own
//	                        (Ollama started, stopped, a model downloaded)
func (s *Server) doctor(w http.ResponseWriter, r *http.Request) {
	if s.b.Health != nil {
		writeJSON(w, http.StatusOK, s.b.Health.Check(r.Context()))
		return
	}
	writeJSON(w, http.StatusOK, s.b.Doctor(r.Context()))
}

func (s *Server) healthStream(w http.ResponseWriter, r *http.Request) {
	if s.b.Health == nil {
		// Nothing watches: a stream that never sends, so the page keeps
		// the report it asked for.
		serveSSE[doctor.Report](s, w, r, nil, nil, nil)
		return
	}
	serveSSE(s, w, r, s.b.Health.Watch(r.Context()), nil, func(w io.Writer, rep doctor.Report) error { return writeSSE(w, "health", rep) })
}
