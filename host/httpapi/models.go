package httpapi

import (
	"context"
	"errors"
	"io"
	"net/http"

	"quire/host"
	"quire/kernel/protocol"
)

// errNoModels: the server was started without the models screen's back end.
var errNoModels = errors.New("the models screen is not available")

// modelRoutes serve the models screen:
//
//	GET  /api/models              ModelsState (Ollama down: 200 with error set)
//	POST /api/models/pull         {"model"} start (or join) a pull → 202
//	POST /api/models/pull/cancel  {"model"} stop it, keeping what was downloaded → 204
//	GET  /api/models/pull/stream  SSE "pull": PullProgress, each pull's terminal state always, running figures the latest
//	POST /api/models/delete       {"model"} → 204 (404: no such model)
func (s *Server) modelRoutes(api *http.ServeMux) {
	api.HandleFunc("GET /api/models", s.withModels(s.modelsList))
	api.HandleFunc("POST /api/models/pull", s.withModels(s.modelsPull))
	api.HandleFunc("POST /api/models/pull/cancel", s.withModels(s.modelsCancel))
	api.HandleFunc("GET /api/models/pull/stream", s.withModels(s.modelsStream))
	api.HandleFunc("POST /api/models/delete", s.withModels(s.modelsDelete))
}

func (s *Server) withModels(h func(host.Models, http.ResponseWriter, *http.Request)) http.HandlerFunc {
	return withPart(s, func() host.Models { return s.b.Models }, errNoModels, h)
}

// modelBody names the model of a pull, a cancel or a delete.
type modelBody struct {
	Model string `json:"model"`
}

func (s *Server) modelsList(m host.Models, w http.ResponseWriter, r *http.Request) {
	st, err := m.List(r.Context())
	if err != nil {
		s.fail(w, modelStatus(err), err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

func (s *Server) modelsPull(m host.Models, w http.ResponseWriter, r *http.Request) {
	s.modelAction(w, r, m.Pull, http.StatusAccepted)
}

func (s *Server) modelsCancel(m host.Models, w http.ResponseWriter, r *http.Request) {
	s.modelAction(w, r, func(_ context.Context, name string) error { m.CancelPull(name); return nil }, http.StatusNoContent)
}

func (s *Server) modelsDelete(m host.Models, w http.ResponseWriter, r *http.Request) {
	s.modelAction(w, r, m.Delete, http.StatusNoContent)
}

// modelAction reads the model a request names, acts on it and answers
// status, or the error's.
func (s *Server) modelAction(w http.ResponseWriter, r *http.Request, act func(context.Context, string) error, status int) {
	var b modelBody
	if err := readJSON(r, &b); err != nil {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	if err := act(r.Context(), b.Model); err != nil {
		s.fail(w, modelStatus(err), err)
		return
	}
	w.WriteHeader(status)
}

// modelsStream sends pull states as SSE until the client goes away.
func (s *Server) modelsStream(m host.Models, w http.ResponseWriter, r *http.Request) {
	serveSSE(s, w, r, m.Watch(r.Context()), nil, func(w io.Writer, p protocol.PullProgress) error { return writeSSE(w, "pull", p) })
}

// modelStatus is statusOf, with a failure it does not know being Ollama's
// (503: the server Quire needs is not answering as it should), not Quire's.
func modelStatus(err error) int {
	if st := statusOf(err); st != http.StatusInternalServerError {
		return st
	}
	return http.StatusServiceUnavailable
}
