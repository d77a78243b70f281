package httpapi

import (
	"errors"
	"net/http"
	"strconv"

	"quire/host"
)

var (
	errNoCalls    = errors.New("this Quire cannot show what the model saw; update Quire")
	errCallNumber = errors.New("a model call is numbered from 1, as `quire replay -request N` numbers it")
)

// callRoutes are the inspector's ("what the model saw"): a session's model
// calls, light; one call, bounded; and its exact request, whole — the
// bytes `quire replay SESSION -request N` prints, which the page copies.
func (s *Server) callRoutes(api *http.ServeMux) {
	api.HandleFunc("GET /api/sessions/{id}/calls", s.callList)
	api.HandleFunc("GET /api/sessions/{id}/calls/{n}", s.call)
	api.HandleFunc("GET /api/sessions/{id}/calls/{n}/request", s.callRequest)
}

// calls returns the backend, or answers the request itself when there is none.
func (s *Server) calls(w http.ResponseWriter) host.Calls {
	if s.b.Calls == nil {
		s.fail(w, http.StatusNotImplemented, errNoCalls)
	}
	return s.b.Calls
}

// withCall runs f with the backend and the call the path names ({id},
// {n}), or answers the request itself when there is no backend or {n} is
// not a call's number.
func (s *Server) withCall(w http.ResponseWriter, r *http.Request, f func(c host.Calls, session string, n int) (any, error)) {
	c := s.calls(w)
	if c == nil {
		return
	}
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 1 {
		s.fail(w, http.StatusBadRequest, errCallNumber)
		return
	}
	v, err := f(c, r.PathValue("id"), n)
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	if body, ok := v.([]byte); ok {
		// The request's bytes as they are, not re-encoded.
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		w.Write(body)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// callList: GET /api/sessions/{id}/calls[?run=R] → the list (host.Calls).
func (s *Server) callList(w http.ResponseWriter, r *http.Request) {
	c := s.calls(w)
	if c == nil {
		return
	}
	list, err := c.Calls(r.Context(), r.PathValue("id"), r.URL.Query().Get("run"))
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusOK, list)
}

// call: GET /api/sessions/{id}/calls/{n} → the call in full, bounded.
func (s *Server) call(w http.ResponseWriter, r *http.Request) {
	s.withCall(w, r, func(c host.Calls, session string, n int) (any, error) { return c.Call(r.Context(), session, n) })
}

// callRequest: GET /api/sessions/{id}/calls/{n}/request → the request's
// bytes, whole.
func (s *Server) callRequest(w http.ResponseWriter, r *http.Request) {
	s.withCall(w, r, func(c host.Calls, session string, n int) (any, error) { return c.Request(r.Context(), session, n) })
}
