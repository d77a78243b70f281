package ollamatest

import (
	"cmp"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// What the models screen reads beyond the chat: /api/ps (the models held
// in memory), /api/delete, and the bytes a cancelled pull leaves on disk,
// which a later pull of the same model resumes from, as Ollama's
// downloads do (server/download.go keeps each blob's parts).

// WithHeldWait makes the server's nth wait before a streamed line (chat
// or pull, counted from 1 over the server's life) last until its request
// ends; every other wait passes at once. A test holds a reply there — a
// pull of a model of Size 4000 is held at 2000 bytes of its first layer
// by WithHeldWait(5) — then cancels it, with no timing involved.
func WithHeldWait(n int32) Option {
	return func(s *Server) {
		var waits atomic.Int32
		now := make(chan time.Time)
		close(now)
		s.delay = time.Millisecond // a delay is what makes the server wait
		s.after = func(time.Duration) <-chan time.Time {
			if waits.Add(1) == n {
				return nil // never: the request's end ends the wait
			}
			return now
		}
	}
}

// store is the fake's record of loaded models and partial downloads;
// guarded by Server.mu.
type store struct {
	loaded  []string         // names as listed, most recently loaded first
	partial map[string]int64 // bytes of each blob (by digest) already downloaded
}

// Load marks an installed model as held in memory, as a chat or an embed
// with it leaves it in the real server; /api/ps then lists it. A name that
// is not installed is ignored.
func (s *Server) Load(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := findIn(s.models, name)
	if !ok {
		return
	}
	s.store.unload(m.Name)
	s.store.loaded = append([]string{m.Name}, s.store.loaded...)
}

func (st *store) unload(name string) {
	for i, n := range st.loaded {
		if n == name {
			st.loaded = append(st.loaded[:i], st.loaded[i+1:]...)
			return
		}
	}
}

// downloaded records that done bytes of digest are on disk; the caller
// holds no lock.
func (s *Server) downloaded(digest string, done int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.store.partial == nil {
		s.store.partial = map[string]int64{}
	}
	s.store.partial[digest] = done
}

// resumeFrom is where a download of digest starts: the bytes already there.
func (s *Server) resumeFrom(digest string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.store.partial[digest]
}

// handlePs answers GET /api/ps as Ollama does: every loaded model with its
// details, the one that expires last first.
func (s *Server) handlePs(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	models := []api.ProcessModelResponse{}
	for i, name := range s.store.loaded {
		m, ok := findIn(s.models, name)
		if !ok {
			continue
		}
		models = append(models, api.ProcessModelResponse{
			Name: m.Name, Model: m.Name, Size: m.Size, SizeVRAM: 0, Digest: m.digest(), Details: m.details(),
			// Five minutes of keep-alive, the most recently loaded lasting longest.
			ExpiresAt:     time.Date(2025, 1, 1, 0, 5, 0, 0, time.UTC).Add(-time.Duration(i) * time.Second),
			ContextLength: defaultNumCtx,
		})
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, api.ProcessResponse{Models: models})
}

// handleDelete answers DELETE /api/delete: 400 for a name Ollama cannot
// parse, 404 "model 'x' not found", else 200 with no body; the model is
// no longer listed, shown or loaded.
func (s *Server) handleDelete(w http.ResponseWriter, r *http.Request) {
	var req api.DeleteRequest
	if !decode(w, r, &req) {
		return
	}
	name := cmp.Or(req.Model, req.Name) //lint:ignore SA1019 the real server accepts it
	m, ok := s.find(name)
	if !ok {
		if !model.ParseName(name).IsValid() {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("name %q is invalid", name))
			return
		}
		writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", name))
		return
	}
	s.mu.Lock()
	for i, old := range s.models {
		if old.name.EqualFold(m.name) {
			s.models = append(s.models[:i], s.models[i+1:]...)
			break
		}
	}
	s.store.unload(m.Name)
	s.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}
