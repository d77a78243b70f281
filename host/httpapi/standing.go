package httpapi

import (
	"errors"
	"net/http"

	"quire/host"
	"quire/kernel/protocol"
)

// errNoStanding: the server was started without the standing tasks.
var errNoStanding = errors.New("standing tasks are not available")

// standingRoutes serve the standing tasks (host.Standing). A firing's
// batch is reviewed through the batch routes, like any batch:
//
//	GET    /api/standing               []StandingSummary
//	POST   /api/standing               StandingTask → 201 StandingSummary (400: it cannot run)
//	PUT    /api/standing/{id}          StandingTask → StandingSummary (404, 400)
//	POST   /api/standing/{id}/pause    → StandingSummary
//	POST   /api/standing/{id}/resume   → StandingSummary
//	POST   /api/standing/{id}/run      → StandingFiring (409: its batch waits for the review)
//	DELETE /api/standing/{id}          → 204
func (s *Server) standingRoutes(api *http.ServeMux) {
	api.HandleFunc("GET /api/standing", s.withStanding(s.standingList))
	api.HandleFunc("POST /api/standing", s.withStanding(s.standingAdd))
	api.HandleFunc("PUT /api/standing/{id}", s.withStanding(s.standingEdit))
	api.HandleFunc("POST /api/standing/{id}/pause", s.withStanding(s.standingPause(true)))
	api.HandleFunc("POST /api/standing/{id}/resume", s.withStanding(s.standingPause(false)))
	api.HandleFunc("POST /api/standing/{id}/run", s.withStanding(s.standingRun))
	api.HandleFunc("DELETE /api/standing/{id}", s.withStanding(s.standingRemove))
}

func (s *Server) withStanding(h func(host.Standing, http.ResponseWriter, *http.Request)) http.HandlerFunc {
	return withPart(s, func() host.Standing { return s.b.Standing }, errNoStanding, h)
}

func (s *Server) standingList(st host.Standing, w http.ResponseWriter, r *http.Request) {
	list, err := st.List(r.Context())
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusOK, list)
}

func (s *Server) standingAdd(st host.Standing, w http.ResponseWriter, r *http.Request) {
	var t protocol.StandingTask
	if err := readBody(r, &t, true); err != nil { // strict: no key a task lacks, like "apply without asking"
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	sum, err := st.Add(r.Context(), t)
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusCreated, sum)
}

func (s *Server) standingEdit(st host.Standing, w http.ResponseWriter, r *http.Request) {
	var t protocol.StandingTask
	if err := readBody(r, &t, true); err != nil { // strict: no key a task lacks, like "apply without asking"
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	t.ID = r.PathValue("id")
	sum, err := st.Edit(r.Context(), t)
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusOK, sum)
}

func (s *Server) standingPause(paused bool) func(host.Standing, http.ResponseWriter, *http.Request) {
	return func(st host.Standing, w http.ResponseWriter, r *http.Request) {
		sum, err := st.SetPaused(r.Context(), r.PathValue("id"), paused)
		if err != nil {
			s.fail(w, statusOf(err), err)
			return
		}
		writeJSON(w, http.StatusOK, sum)
	}
}

func (s *Server) standingRun(st host.Standing, w http.ResponseWriter, r *http.Request) {
	f, err := st.RunNow(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusOK, f)
}

func (s *Server) standingRemove(st host.Standing, w http.ResponseWriter, r *http.Request) {
	if err := st.Remove(r.Context(), r.PathValue("id")); err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
