package httpapi

import (
	"errors"
	"mime"
	"net/http"
	"net/url"

	"quire/export"
)

func (s *Server) conversationRoutes(api *http.ServeMux) {
	api.HandleFunc("GET /api/sessions/{id}/export", s.exportSession)
}

// exportSession: GET /api/sessions/{id}/export?format=md|jsonl → the file,
// as an attachment named after the conversation (the page's download).
func (s *Server) exportSession(w http.ResponseWriter, r *http.Request) {
	doc, err := export.Conversation(r.Context(), s.b.Kernel, r.PathValue("id"), r.URL.Query().Get("format"))
	if errors.Is(err, export.ErrFormat) {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	w.Header().Set("Content-Type", doc.MediaType)
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": doc.Name}))
	// The name again, escaped as in a URL, for the page (Content-Disposition
	// is hard to read back in a page, and a header value is best ASCII).
	w.Header().Set("X-Quire-Filename", url.PathEscape(doc.Name))
	w.Write(doc.Body)
}
