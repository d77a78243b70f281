package httpapi

import (
	"errors"
	"net/http"

	"quire/host"
	"quire/kernel/protocol"
)

var errNoMemory = errors.New("memory is not available in this Quire (its database could not be opened); see the health checks")

func (s *Server) memoryRoutes(api *http.ServeMux) {
	api.HandleFunc("GET /api/memory", s.memoryList)
	api.HandleFunc("PATCH /api/memory/{id}", s.memoryEdit)
	api.HandleFunc("DELETE /api/memory/{id}", s.memoryForget)
	api.HandleFunc("POST /api/memory/{id}/review", s.memoryReview)
	api.HandleFunc("PUT /api/memory/settings", s.memorySettings)
}

// memory returns the backend, or answers the request itself when there is none.
func (s *Server) memory(w http.ResponseWriter) host.Memory {
	if s.b.Memory == nil {
		s.fail(w, http.StatusConflict, errNoMemory)
	}
	return s.b.Memory
}

// memoryList: GET /api/memory → {items, approval}.
func (s *Server) memoryList(w http.ResponseWriter, r *http.Request) {
	m := s.memory(w)
	if m == nil {
		return
	}
	list, err := m.MemoryList(r.Context())
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	if list.Items == nil {
		list.Items = []protocol.MemoryItem{}
	}
	writeJSON(w, http.StatusOK, list)
}

// memoryEdit: PATCH /api/memory/{id} {text} → the item.
func (s *Server) memoryEdit(w http.ResponseWriter, r *http.Request) {
	m := s.memory(w)
	if m == nil {
		return
	}
	var b struct {
		Text *string `json:"text"`
	}
	if err := readJSON(r, &b); err != nil || b.Text == nil {
		s.fail(w, http.StatusBadRequest, errors.New(`send {"text": "the new text"}`))
		return
	}
	it, err := m.EditMemory(r.Context(), r.PathValue("id"), *b.Text)
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusOK, it)
}

// memoryForget: DELETE /api/memory/{id} → 204.
func (s *Server) memoryForget(w http.ResponseWriter, r *http.Request) {
	m := s.memory(w)
	if m == nil {
		return
	}
	if err := m.ForgetMemory(r.Context(), r.PathValue("id")); err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// memoryReview: POST /api/memory/{id}/review {approve} → 204.
func (s *Server) memoryReview(w http.ResponseWriter, r *http.Request) {
	m := s.memory(w)
	if m == nil {
		return
	}
	var b struct {
		Approve *bool `json:"approve"`
	}
	if err := readJSON(r, &b); err != nil || b.Approve == nil {
		s.fail(w, http.StatusBadRequest, errors.New(`send {"approve": true} or {"approve": false}`))
		return
	}
	if err := m.ReviewMemory(r.Context(), r.PathValue("id"), *b.Approve); err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// memorySettings: PUT /api/memory/settings {approval?, learn?} → the list
// with the settings as they now are.
func (s *Server) memorySettings(w http.ResponseWriter, r *http.Request) {
	m := s.memory(w)
	if m == nil {
		return
	}
	var b struct {
		Approval *bool `json:"approval"`
		Learn    *bool `json:"learn"`
	}
	if err := readJSON(r, &b); err != nil || (b.Approval == nil && b.Learn == nil) {
		s.fail(w, http.StatusBadRequest, errors.New(`send {"approval": true|false} and/or {"learn": true|false}`))
		return
	}
	if b.Approval != nil {
		if err := m.SetMemoryApproval(r.Context(), *b.Approval); err != nil {
			s.fail(w, statusOf(err), err)
			return
		}
	}
	if b.Learn != nil {
		if err := m.SetMemoryLearning(r.Context(), *b.Learn); err != nil {
			s.fail(w, statusOf(err), err)
			return
		}
	}
	s.memoryList(w, r)
}
