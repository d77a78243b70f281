package httpapi

import (
	"errors"
	"mime"
	"net/http"
	"net/url"
	"strconv"

	"quire/export"
	"quire/kernel/protocol"
)

var errNoSearch = errors.New("this Quire cannot search its conversations (its database could not be opened); see the health checks")

func (s *Server) conversationRoutes(api *http.ServeMux) {
	api.HandleFunc("GET /api/search", s.searchConversations)
	api.HandleFunc("GET /api/sessions/{id}/export", s.exportSession)
}

// searchConversations: GET /api/search?q=WORDS[&limit=N] → MessageSearch.
// The query is plain words (never search syntax): one FTS5 could not
// parse is no error, and one with no word finds nothing.
func (s *Server) searchConversations(w http.ResponseWriter, r *http.Request) {
	if s.b.Conversations == nil {
		s.fail(w, http.StatusConflict, errNoSearch)
		return
	}
	limit := 0
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > protocol.FindMaxHits {
			s.fail(w, http.StatusBadRequest, errors.New("limit is a number of hits from 1 to "+strconv.Itoa(protocol.FindMaxHits)))
			return
		}
		limit = n
	}
	res, err := s.b.Conversations.Search(r.Context(), r.URL.Query().Get("q"), limit)
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusOK, res)
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
