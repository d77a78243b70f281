package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"

	"quire/host"
)

var errNoNotes = errors.New("the notes panel is not available in this Quire (its database could not be opened); see the health checks")

// notesRoutes are the Notes panel's: the tree, a note's preview, the
// changes by Quire with undo, and a proposed write's preview.
func (s *Server) notesRoutes(api *http.ServeMux) {
	api.HandleFunc("GET /api/notes/tree", s.withNotes(s.notesTree))
	api.HandleFunc("GET /api/notes/note", s.withNotes(s.notesRead))
	api.HandleFunc("GET /api/notes/changes", s.withNotes(s.notesChanges))
	api.HandleFunc("POST /api/notes/changes/{id}/undo", s.withNotes(s.notesUndo))
	api.HandleFunc("GET /api/notes/changes/{id}/versions", s.withNotes(s.notesVersions))
	api.HandleFunc("POST /api/notes/sessions/{id}/undo", s.withNotes(s.notesUndoAll))
	api.HandleFunc("POST /api/notes/preview", s.withNotes(s.notesPreview))
	api.HandleFunc("GET /api/notes/links", s.withNotes(s.notesLinks))
}

// notesLinks: GET /api/notes/links?path=NOTE → its backlinks and unresolved links.
func (s *Server) notesLinks(n host.Notes, w http.ResponseWriter, r *http.Request) {
	l, err := n.Links(r.Context(), r.URL.Query().Get("path"))
	s.answerWith(w, l, err)
}

func (s *Server) withNotes(h func(host.Notes, http.ResponseWriter, *http.Request)) http.HandlerFunc {
	return withPart(s, func() host.Notes { return s.b.Notes }, errNoNotes, h)
}

// answer writes v, or the error with its status.
func (s *Server) answerWith(w http.ResponseWriter, v any, err error) {
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// notesTree: GET /api/notes/tree?path=FOLDER → one folder of the tree.
func (s *Server) notesTree(n host.Notes, w http.ResponseWriter, r *http.Request) {
	f, err := n.Tree(r.Context(), r.URL.Query().Get("path"))
	s.answerWith(w, f, err)
}

// notesRead: GET /api/notes/note?path=NOTE → the note's text, bounded.
func (s *Server) notesRead(n host.Notes, w http.ResponseWriter, r *http.Request) {
	t, err := n.Read(r.Context(), r.URL.Query().Get("path"))
	s.answerWith(w, t, err)
}

// notesChanges: GET /api/notes/changes → every change by Quire, newest first.
func (s *Server) notesChanges(n host.Notes, w http.ResponseWriter, r *http.Request) {
	c, err := n.Changes(r.Context())
	s.answerWith(w, c, err)
}

// notesUndo: POST /api/notes/changes/{id}/undo → what was undone or why not.
func (s *Server) notesUndo(n host.Notes, w http.ResponseWriter, r *http.Request) {
	o, err := n.Undo(r.Context(), r.PathValue("id"))
	s.answerWith(w, o, err)
}

// notesVersions: GET /api/notes/changes/{id}/versions → Quire's version and the note now.
func (s *Server) notesVersions(n host.Notes, w http.ResponseWriter, r *http.Request) {
	v, err := n.Versions(r.Context(), r.PathValue("id"))
	s.answerWith(w, v, err)
}

// notesUndoAll: POST /api/notes/sessions/{id}/undo {ids} → what was undone,
// newest first, and the first refusal.
func (s *Server) notesUndoAll(n host.Notes, w http.ResponseWriter, r *http.Request) {
	var b struct {
		IDs []string `json:"ids"`
	}
	if err := readBody(r, &b, true); err != nil || b.IDs == nil {
		s.fail(w, http.StatusBadRequest, errors.New(`send {"ids": [the changes the question listed, in its order]}`))
		return
	}
	o, err := n.UndoAll(r.Context(), r.PathValue("id"), b.IDs)
	s.answerWith(w, o, err)
}

// notesPreview: POST /api/notes/preview {tool, arguments} → the write the
// tool would make, computed without writing.
func (s *Server) notesPreview(n host.Notes, w http.ResponseWriter, r *http.Request) {
	var b struct {
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := readBody(r, &b, true); err != nil || b.Tool == "" {
		s.fail(w, http.StatusBadRequest, errors.New(`send {"tool": "edit_note", "arguments": {…the call's arguments}}`))
		return
	}
	p, err := n.Preview(r.Context(), b.Tool, b.Arguments)
	s.answerWith(w, p, err)
}
