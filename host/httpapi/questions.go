package httpapi

import (
	"context"
	"io"
	"net/http"

	"quire/host"
	"quire/kernel/protocol"
)

// Permission questions in `quire serve`: the page's own card is the way to
// answer (POST /api/sessions/{id}/answer), so the card must show what the
// window's does — every call's whole description, as the tools render it
// (a write's every line, an edit's diff, the undo's note and content, the
// item a forget removes) — and the page must be able to read it:
//
//	GET /api/questions          the questions open now, oldest first ([]Question)
//	GET /api/questions/stream   SSE "questions": that whole list at connect
//	                            and again whenever it changes
//
// The list is sent whole each time (like "sessions" on /api/stream): a
// stream can never fall behind it, and a page that connects late or
// reconnects is given what is open now. Both are behind the browser guard
// like every /api route.

// Ask is this server's host.Asker: it keeps the question, with its
// descriptions, on the board the page reads until the session's log closes
// it (host.FollowQuestion) or ctx ends. It never answers: the page does,
// with the answer route, once the user has read the card.
func (s *Server) Ask(ctx context.Context, q protocol.Question) (protocol.Answer, error) {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	fate := host.FollowQuestion(ctx, s.b.Kernel, q)
	q, _ = s.questions.Add(q)
	defer s.questions.Remove(q.ID)
	select {
	case <-fate.Closed():
		return protocol.Answer{}, host.ErrAnsweredElsewhere
	case <-ctx.Done():
		return protocol.Answer{}, context.Cause(ctx)
	}
}

func (s *Server) openQuestions(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.questions.List())
}

func (s *Server) questionStream(w http.ResponseWriter, r *http.Request) {
	lists := host.WatchBoard(r.Context(), &s.questions)
	serveSSE(s, w, r, lists, nil, writeQuestions)
}

func writeQuestions(w io.Writer, list []protocol.Question) error {
	return writeSSE(w, "questions", list)
}
