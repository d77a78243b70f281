package ollamatest

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
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
	loaded  []held           // most recently loaded first
	partial map[string]int64 // bytes of each blob (by digest) already downloaded
}

// held is a model in memory until expires (zero: for ever, keep_alive < 0).
type held struct {
	name    string
	expires time.Time
}

// defaultKeepAlive is how long Ollama keeps a model loaded after a
// request that does not say (envconfig.KeepAlive's default).
const defaultKeepAlive = 5 * time.Minute

// WithClock sets what the fake reads the time from, for when a loaded
// model's keep-alive ends (/api/ps). Default: time.Now.
func WithClock(now func() time.Time) Option { return func(s *Server) { s.now = now } }

// Load marks an installed model as held in memory for the default
// keep-alive, as a chat or an embed with it does in the real server (the
// fake does so itself); /api/ps then lists it. A name that is not
// installed is ignored.
func (s *Server) Load(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := findIn(s.models, name); ok {
		s.hold(m.Name, nil)
	}
}

// hold loads name for keepAlive, as Ollama's scheduler does for each
// request: nil is the default five minutes, a negative one for ever, zero
// unloads it at once. The caller holds s.mu.
func (s *Server) hold(name string, keepAlive *api.Duration) {
	s.store.unload(name)
	d := defaultKeepAlive
	if keepAlive != nil {
		d = keepAlive.Duration
	}
	switch {
	case d == 0:
		return
	case d < 0:
		s.store.loaded = append([]held{{name: name}}, s.store.loaded...)
	default:
		s.store.loaded = append([]held{{name: name, expires: s.now().Add(d)}}, s.store.loaded...)
	}
}

// loadFor holds the installed model m after a request that reached it.
func (s *Server) loadFor(m installed, keepAlive *api.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hold(m.Name, keepAlive)
}

func (st *store) unload(name string) {
	for i, h := range st.loaded {
		if h.name == name {
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
	now := s.now()
	models := []api.ProcessModelResponse{}
	for _, h := range s.store.loaded {
		m, ok := findIn(s.models, h.name)
		if !ok || (!h.expires.IsZero() && !now.Before(h.expires)) {
			continue // its keep-alive ended: Ollama unloaded it
		}
		expires := h.expires
		if expires.IsZero() {
			expires = now.Add(100 * 365 * 24 * time.Hour) // kept for ever
		}
		models = append(models, api.ProcessModelResponse{
			Name: m.Name, Model: m.Name, Size: m.Size, SizeVRAM: 0, Digest: m.digest(), Details: m.details(),
			ExpiresAt: expires, ContextLength: defaultNumCtx,
		})
	}
	s.mu.Unlock()
	// The one that expires last first, as Ollama sorts them.
	slices.SortStableFunc(models, func(a, b api.ProcessModelResponse) int { return b.ExpiresAt.Compare(a.ExpiresAt) })
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
