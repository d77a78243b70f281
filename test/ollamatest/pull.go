package ollamatest

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// registryUnreachable is what Ollama's pull says when it cannot reach the
// registry (PullModel wraps the manifest request's *url.Error), here for a
// machine whose resolver does not know the registry's host: offline.
func registryUnreachable(n model.Name) string {
	u := n.BaseURL().JoinPath("v2", n.DisplayNamespaceModel(), "manifests", n.Tag)
	return fmt.Sprintf("pull model manifest: Get %q: dial tcp: lookup %s: no such host", u.String(), u.Hostname())
}

// WithRegistryUnreachable makes every pull fail as it does on a machine
// without a network: "pulling manifest", then the error. Default: the
// registry answers. SetRegistryUnreachable changes it while running.
func WithRegistryUnreachable() Option { return func(s *Server) { s.offline = true } }

// SetRegistryUnreachable makes later pulls fail as WithRegistryUnreachable
// does (true) or reach the registry again (false).
func (s *Server) SetRegistryUnreachable(down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.offline = down
}

func (s *Server) unreachable() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.offline
}

// handlePull answers POST /api/pull with the progress lines Ollama sends:
// "pulling manifest", a "pulling <digest>" line per step of each layer,
// "verifying sha256 digest", "writing manifest" and "success". A model that
// is neither installed nor pullable fails after "pulling manifest", as a
// pull of a name the registry does not know does.
func (s *Server) handlePull(w http.ResponseWriter, r *http.Request) {
	var req api.PullRequest
	if !decode(w, r, &req) {
		return
	}
	// Ollama still reads the old field from older clients, so the fake does too.
	name := cmp.Or(req.Model, req.Name) //lint:ignore SA1019 the real server accepts it

	if !model.ParseName(name).IsValid() {
		writeError(w, http.StatusBadRequest, "invalid model name")
		return
	}
	s.mu.Lock()
	have, isInstalled := findIn(s.models, name)
	want, isPullable := findIn(s.pullable, name)
	s.mu.Unlock()

	stream := req.Stream == nil || *req.Stream
	out := newNDJSON(w)
	var latest api.ProgressResponse
	send := func(p api.ProgressResponse) bool {
		if !s.wait(r, s.delay) {
			s.abandon(out)
			return false
		}
		latest = p
		return !stream || out.line(p) == nil
	}
	fail := func(msg string) {
		if stream {
			out.fail(http.StatusInternalServerError, msg)
			return
		}
		writeError(w, http.StatusInternalServerError, msg)
	}

	if !send(api.ProgressResponse{Status: "pulling manifest"}) {
		return
	}
	if s.unreachable() {
		fail(registryUnreachable(model.ParseName(name)))
		return
	}
	target := want
	if isInstalled {
		target = have
	} else if !isPullable {
		fail("pull model manifest: file does not exist")
		return
	}
	for i, size := range []int64{target.Size, 487} {
		sum := sha256.Sum256([]byte(target.name.String() + "/" + strconv.Itoa(i)))
		digest := "sha256:" + hex.EncodeToString(sum[:])
		status := "pulling " + digest[7:19]
		// A download resumes from the bytes an earlier pull left (ps.go).
		from := s.resumeFrom(digest)
		steps := []int64{from, from + (size-from)/4, from + (size-from)/2, from + (size-from)*3/4, size}
		if isInstalled {
			// Blobs already on disk are reported complete at once.
			steps = []int64{size}
		}
		for _, done := range steps {
			if !send(api.ProgressResponse{Status: status, Digest: digest, Total: size, Completed: done}) {
				return
			}
			s.downloaded(digest, done)
		}
	}
	if !send(api.ProgressResponse{Status: "verifying sha256 digest"}) ||
		!send(api.ProgressResponse{Status: "writing manifest"}) {
		return
	}
	if !isInstalled {
		// Installed before "success", so a client may use it as soon as it
		// reads that line.
		s.AddModel(target.Model)
	}
	if !send(api.ProgressResponse{Status: "success"}) {
		return
	}
	if !stream {
		writeJSON(w, http.StatusOK, latest)
	}
}
