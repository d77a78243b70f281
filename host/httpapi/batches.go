package httpapi

import (
	"context"
	"errors"
	"io"
	"net/http"

	"quire/host"
	"quire/kernel/protocol"
)

// errNoBatches: the server was started without the task queue.
var errNoBatches = errors.New("batches are not available")

// batchRoutes serve the task queue (host.Batches):
//
//	GET  /api/batches                 []Batch, newest first
//	POST /api/batches                 {"folder"} start one → 201 Batch
//	GET  /api/batches/stream          SSE "batch": BatchProgress, in order per batch
//	GET  /api/batches/{id}            BatchReview (404: no such batch)
//	POST /api/batches/{id}/pause      → Batch (409: not running)
//	POST /api/batches/{id}/resume     → Batch (409: not paused)
//	POST /api/batches/{id}/cancel     → Batch (409: applied or ended)
//	POST /api/batches/{id}/apply      BatchDecision → Batch (409: not reviewing; 400: an item the batch does not hold)
//	POST /api/batches/{id}/undo       → Batch (409: nothing applied)
func (s *Server) batchRoutes(api *http.ServeMux) {
	api.HandleFunc("GET /api/batches", s.withBatches(s.batchList))
	api.HandleFunc("POST /api/batches", s.withBatches(s.batchStart))
	api.HandleFunc("GET /api/batches/stream", s.withBatches(s.batchStream))
	api.HandleFunc("GET /api/batches/{id}", s.withBatches(s.batchGet))
	api.HandleFunc("POST /api/batches/{id}/pause", s.withBatches(batchAction(s, host.Batches.Pause)))
	api.HandleFunc("POST /api/batches/{id}/resume", s.withBatches(batchAction(s, host.Batches.Resume)))
	api.HandleFunc("POST /api/batches/{id}/cancel", s.withBatches(batchAction(s, host.Batches.Cancel)))
	api.HandleFunc("POST /api/batches/{id}/undo", s.withBatches(batchAction(s, host.Batches.Undo)))
	api.HandleFunc("POST /api/batches/{id}/apply", s.withBatches(s.batchApply))
}

func (s *Server) withBatches(h func(host.Batches, http.ResponseWriter, *http.Request)) http.HandlerFunc {
	return withPart(s, func() host.Batches { return s.b.Batches }, errNoBatches, h)
}

func (s *Server) batchList(b host.Batches, w http.ResponseWriter, r *http.Request) {
	list, err := b.List(r.Context())
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusOK, list)
}

type folderBody struct {
	Folder string `json:"folder"`
}

func (s *Server) batchStart(b host.Batches, w http.ResponseWriter, r *http.Request) {
	var body folderBody
	if err := readJSON(r, &body); err != nil {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	batch, err := b.Start(r.Context(), body.Folder)
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusCreated, batch)
}

func (s *Server) batchGet(b host.Batches, w http.ResponseWriter, r *http.Request) {
	review, err := b.Get(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusOK, review)
}

// batchAction is a route that names a batch and nothing else.
func batchAction(s *Server, act func(host.Batches, context.Context, string) (protocol.Batch, error)) func(host.Batches, http.ResponseWriter, *http.Request) {
	return func(b host.Batches, w http.ResponseWriter, r *http.Request) {
		batch, err := act(b, r.Context(), r.PathValue("id"))
		if err != nil {
			s.fail(w, statusOf(err), err)
			return
		}
		writeJSON(w, http.StatusOK, batch)
	}
}

func (s *Server) batchApply(b host.Batches, w http.ResponseWriter, r *http.Request) {
	var d protocol.BatchDecision
	if err := readJSON(r, &d); err != nil {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	batch, err := b.Apply(r.Context(), r.PathValue("id"), d)
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusOK, batch)
}

// batchStream sends every batch's changes as SSE until the client goes away.
func (s *Server) batchStream(b host.Batches, w http.ResponseWriter, r *http.Request) {
	serveSSE(s, w, r, b.Watch(r.Context()), nil, func(w io.Writer, p protocol.BatchProgress) error { return writeSSE(w, "batch", p) })
}
