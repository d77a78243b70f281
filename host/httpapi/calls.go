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

// callNumber is the {n} of the path, or answers the request itself.
func (s *Server) callNumber(w http.ResponseWriter, r *http.Request) (int, bool) {
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 1 {
		s.fail(w, http.StatusBadRequest, errCallNumber)
		return 0, false
	}
	return n, true
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
	c := s.calls(w)
	if c == nil {
		return
	}
	n, ok := s.callNumber(w, r)
	if !ok {
		return
	}
	call, err := c.Call(r.Context(), r.PathValue("id"), n)
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusOK, call)
}

// callRequest: GET /api/sessions/{id}/calls/{n}/request → the request's
// bytes as they are, not re-encoded.
func (s *Server) callRequest(w http.ResponseWriter, r *http.Request) {
	c := s.calls(w)
	if c == nil {
		return
	}
	n, ok := s.callNumber(w, r)
	if !ok {
		return
	}
	body, err := c.Request(r.Context(), r.PathValue("id"), n)
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	w.Write(body)
}
