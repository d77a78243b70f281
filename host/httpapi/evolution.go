package httpapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"

	"quire/host"
	"quire/kernel/protocol"
)

// errNoEvolution: the server was started without the evolution part.
var errNoEvolution = errors.New("evolution is not available")

// evolutionRoutes serve the Evolution panel (host.Evolution). Every step
// that changes what Quire does (approve, activate, roll back) is a POST
// behind the guard like every route; the page asks the user before it
// sends one, and the window asks natively instead (app.go).
//
//	GET  /api/evolution                  EvolutionState (candidates newest first, latest signals)
//	POST /api/evolution                  CandidateDraft → 201 Candidate (400: refused by construction)
//	GET  /api/evolution/signals?limit=N  []EvolutionSignal, newest first
//	PUT  /api/evolution/learning         {"on"} → EvolutionState: whether the model may propose (off by default)
//	POST /api/evolution/rollback         → Candidate: the latest activation rolled back (409: none)
//	GET  /api/evolution/{id}             CandidateDetail (404: no such candidate)
//	GET  /api/evolution/evaluations     SSE "evaluation": EvaluationJob, every job's changes in order per candidate
//	POST /api/evolution/{id}/evaluate    → 202 EvaluationJob: the isolated evaluation starts (409: one runs, or not evaluable)
//	GET  /api/evolution/{id}/evaluation  EvaluationJob: the latest job since the start (404: none)
//	POST /api/evolution/{id}/evaluation/cancel → EvaluationJob (409: none running); nothing is recorded
//	POST /api/evolution/{id}/approve     Approval → Candidate (409: not evaluated, or a regression not accepted)
//	POST /api/evolution/{id}/refuse      {"reason"} → Candidate
//	POST /api/evolution/{id}/activate    Activation → Candidate (409: not approved, or Replaces does not name the active version)
//	POST /api/evolution/{id}/rollback    → Candidate (409: not active)
func (s *Server) evolutionRoutes(api *http.ServeMux) {
	api.HandleFunc("GET /api/evolution", s.withEvolution(s.evolutionList))
	api.HandleFunc("POST /api/evolution", s.withEvolution(s.evolutionPropose))
	api.HandleFunc("GET /api/evolution/signals", s.withEvolution(s.evolutionSignals))
	api.HandleFunc("PUT /api/evolution/learning", s.withEvolution(s.evolutionLearning))
	api.HandleFunc("POST /api/evolution/rollback", s.withEvolution(evolutionStep(s, func(e host.Evolution, ctx context.Context, _ *http.Request) (protocol.Candidate, error) {
		return e.Rollback(ctx, "")
	})))
	api.HandleFunc("GET /api/evolution/{id}", s.withEvolution(s.evolutionShow))
	api.HandleFunc("GET /api/evolution/evaluations", s.withEvolution(s.evolutionJobs))
	// The evaluation outlasts a request (a real model's takes minutes;
	// the write deadline is one): a job, started, polled or streamed.
	api.HandleFunc("POST /api/evolution/{id}/evaluate", s.withEvolution(evolutionJob(s, http.StatusAccepted, host.Evolution.StartEvaluation)))
	api.HandleFunc("GET /api/evolution/{id}/evaluation", s.withEvolution(evolutionJob(s, http.StatusOK, host.Evolution.Evaluation)))
	api.HandleFunc("POST /api/evolution/{id}/evaluation/cancel", s.withEvolution(evolutionJob(s, http.StatusOK, host.Evolution.CancelEvaluation)))
	api.HandleFunc("POST /api/evolution/{id}/approve", s.withEvolution(evolutionStepWith(s, host.Evolution.Approve)))
	api.HandleFunc("POST /api/evolution/{id}/activate", s.withEvolution(evolutionStepWith(s, host.Evolution.Activate)))
	api.HandleFunc("POST /api/evolution/{id}/refuse", s.withEvolution(evolutionStepWith(s, func(e host.Evolution, ctx context.Context, id string, b reasonBody) (protocol.Candidate, error) {
		return e.Refuse(ctx, id, b.Reason)
	})))
	api.HandleFunc("POST /api/evolution/{id}/rollback", s.withEvolution(evolutionStep(s, func(e host.Evolution, ctx context.Context, r *http.Request) (protocol.Candidate, error) {
		return e.Rollback(ctx, r.PathValue("id"))
	})))
}

func (s *Server) withEvolution(h func(host.Evolution, http.ResponseWriter, *http.Request)) http.HandlerFunc {
	return withPart(s, func() host.Evolution { return s.b.Evolution }, errNoEvolution, h)
}

type reasonBody struct {
	Reason string `json:"reason"`
}

func (s *Server) evolutionList(e host.Evolution, w http.ResponseWriter, r *http.Request) {
	state, err := e.List(r.Context())
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusOK, state)
}

func (s *Server) evolutionSignals(e host.Evolution, w http.ResponseWriter, r *http.Request) {
	// A limit that is not a number is the port's "else the most".
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	list, err := e.Signals(r.Context(), limit)
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusOK, list)
}

type onBody struct {
	On bool `json:"on"`
}

func (s *Server) evolutionLearning(e host.Evolution, w http.ResponseWriter, r *http.Request) {
	var body onBody
	if err := readJSON(r, &body); err != nil {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	if err := e.SetLearning(r.Context(), body.On); err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	s.evolutionList(e, w, r)
}

func (s *Server) evolutionShow(e host.Evolution, w http.ResponseWriter, r *http.Request) {
	d, err := e.Show(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusOK, d)
}

func (s *Server) evolutionPropose(e host.Evolution, w http.ResponseWriter, r *http.Request) {
	var d protocol.CandidateDraft
	// Strict: a draft with a field the shapes do not have (grants, tools,
	// approvals) is refused here already, as evolve refuses it.
	if err := readBody(r, &d, true); err != nil {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	c, err := e.Propose(r.Context(), d)
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusCreated, c)
}

// evolutionJob is a route on the evaluation job of the candidate the path
// names.
func evolutionJob(s *Server, status int, step func(host.Evolution, context.Context, string) (protocol.EvaluationJob, error)) func(host.Evolution, http.ResponseWriter, *http.Request) {
	return func(e host.Evolution, w http.ResponseWriter, r *http.Request) {
		j, err := step(e, r.Context(), r.PathValue("id"))
		if err != nil {
			s.fail(w, statusOf(err), err)
			return
		}
		writeJSON(w, status, j)
	}
}

func (s *Server) evolutionJobs(e host.Evolution, w http.ResponseWriter, r *http.Request) {
	serveSSE(s, w, r, e.WatchEvaluations(r.Context()), nil, func(w io.Writer, j protocol.EvaluationJob) error { return writeSSE(w, "evaluation", j) })
}

// evolutionStep is a route whose answer is the candidate after the step.
func evolutionStep(s *Server, step func(host.Evolution, context.Context, *http.Request) (protocol.Candidate, error)) func(host.Evolution, http.ResponseWriter, *http.Request) {
	return func(e host.Evolution, w http.ResponseWriter, r *http.Request) {
		c, err := step(e, r.Context(), r)
		if err != nil {
			s.fail(w, statusOf(err), err)
			return
		}
		writeJSON(w, http.StatusOK, c)
	}
}

// evolutionStepWith is a step on the candidate the path names, with a
// JSON body of type B, read strictly: a yes with a field its shape does not
// have (a misspelt "acepted") is refused, never approved without it.
func evolutionStepWith[B any](s *Server, step func(host.Evolution, context.Context, string, B) (protocol.Candidate, error)) func(host.Evolution, http.ResponseWriter, *http.Request) {
	return evolutionStep(s, func(e host.Evolution, ctx context.Context, r *http.Request) (protocol.Candidate, error) {
		var body B
		if err := readBody(r, &body, true); err != nil {
			return protocol.Candidate{}, protocol.Classify(protocol.ErrBadPayload, err)
		}
		return step(e, ctx, r.PathValue("id"), body)
	})
}
