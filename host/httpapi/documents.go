package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"quire/host"
	"quire/kernel/protocol"
)

// errNoDocuments: the server was started without a document index.
var errNoDocuments = errors.New("the document index is not available; see the health checks")

// documentRoutes serves the documents panel:
//
//	GET  /api/documents              DocumentsState
//	POST /api/documents              {"paths": [...]} queue for indexing → 202
//	POST /api/documents/cancel       stop the running pass → 204
//	POST /api/documents/retry        {"path"} → 202
//	POST /api/documents/remove       {"path"} → 202
//	GET  /api/documents/source       ?path=&page= → DocumentSource (indexed documents only)
//	GET  /api/documents/stream       SSE "indexing": IndexProgress, lossy (the latest)
func (s *Server) documentRoutes(api *http.ServeMux) {
	api.HandleFunc("GET /api/documents", s.withDocs(s.docsState))
	api.HandleFunc("POST /api/documents", s.withDocs(s.docsAdd))
	api.HandleFunc("POST /api/documents/cancel", s.withDocs(s.docsCancel))
	api.HandleFunc("POST /api/documents/retry", s.withDocs(s.docsRetry))
	api.HandleFunc("POST /api/documents/remove", s.withDocs(s.docsRemove))
	api.HandleFunc("POST /api/documents/embedder", s.withDocs(s.docsEmbedder))
	api.HandleFunc("GET /api/documents/source", s.withDocs(s.docsSource))
	api.HandleFunc("GET /api/documents/stream", s.withDocs(s.docsStream))
}

func (s *Server) withDocs(h func(host.Documents, http.ResponseWriter, *http.Request)) http.HandlerFunc {
	return withPart(s, func() host.Documents { return s.b.Documents }, errNoDocuments, h)
}

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

func (s *Server) docsState(d host.Documents, w http.ResponseWriter, r *http.Request) {
	st, err := d.State(r.Context())
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

func (s *Server) docsAdd(d host.Documents, w http.ResponseWriter, r *http.Request) {
	var b struct {
		Paths []string `json:"paths"`
	}
	if err := readJSON(r, &b); err != nil {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	if err := d.Add(r.Context(), b.Paths); err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

func (s *Server) docsCancel(d host.Documents, w http.ResponseWriter, r *http.Request) {
	d.Cancel()
	w.WriteHeader(http.StatusNoContent)
}

type pathBody struct {
	Path string `json:"path"`
}

func (s *Server) docsRetry(d host.Documents, w http.ResponseWriter, r *http.Request) {
	s.docsPathAction(w, r, d.Retry)
}

func (s *Server) docsRemove(d host.Documents, w http.ResponseWriter, r *http.Request) {
	s.docsPathAction(w, r, d.Remove)
}

// docsEmbedder chooses the embedding model: {"model": "nomic-embed-text"},
// or "" for none. 202: the re-embedding runs in the background.
func (s *Server) docsEmbedder(d host.Documents, w http.ResponseWriter, r *http.Request) {
	var b struct {
		Model string `json:"model"`
	}
	if err := readJSON(r, &b); err != nil {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	if err := d.SetEmbedModel(r.Context(), b.Model); err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

func (s *Server) docsPathAction(w http.ResponseWriter, r *http.Request, act func(context.Context, string) error) {
	var b pathBody
	if err := readJSON(r, &b); err != nil {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	if err := act(r.Context(), b.Path); err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

func (s *Server) docsSource(d host.Documents, w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	page := 0
	if v := q.Get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			s.fail(w, http.StatusBadRequest, fmt.Errorf("page=%q is not a page number", v))
			return
		}
		page = n
	}
	src, err := d.Source(r.Context(), q.Get("path"), page)
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusOK, src)
}

// docsStream sends indexing progress as SSE until the client goes away:
// the current state first, then changes (the latest when the client is slow).
func (s *Server) docsStream(d host.Documents, w http.ResponseWriter, r *http.Request) {
	serveSSE(s, w, r, d.Watch(r.Context()), nil, func(w io.Writer, p protocol.IndexProgress) error { return writeSSE(w, "indexing", p) })
}
