package ollamatest

import "net/http"

// Flavour is which runner's ways, beyond the OpenAI-compatible API they
// share, the fake takes: where each says (or does not say) a model's
// context length and whether it takes tools.
type Flavour int

const (
	// FlavourDefault lists llama.cpp's meta.n_ctx_train in /v1/models and
	// serves no runner's own endpoint.
	FlavourDefault Flavour = iota
	// FlavourLlamaCpp is llama-server: meta.n_ctx_train in /v1/models, and
	// GET /props with the context the model is loaded with
	// (default_generation_settings.n_ctx).
	FlavourLlamaCpp
	// FlavourLMStudio is LM Studio: /v1/models says only the ids; GET
	// /api/v0/models (its REST API v0) says each model's type,
	// max_context_length and, for a model trained for tools, "tool_use"
	// among its capabilities.
	FlavourLMStudio
	// FlavourJan says nothing but the ids, as Jan and vLLM's older
	// releases do: the context length cannot be known from the server.
	FlavourJan
)

// WithFlavour makes the fake answer as flavour f's runner does.
// Default: FlavourDefault.
func WithFlavour(f Flavour) Option { return func(s *Server) { s.flavour = f } }

// handleProps answers llama-server's GET /props: the context every slot
// is loaded with, which is what a prompt must fit.
func (s *Server) handleProps(w http.ResponseWriter, r *http.Request) {
	if s.flavour != FlavourLlamaCpp {
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	n := s.loadedCtx
	if n == 0 && len(s.models) > 0 {
		n = s.models[0].ContextLength
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"default_generation_settings": map[string]any{"n_ctx": n}, "total_slots": 1})
}

// handleLMStudioModels answers LM Studio's GET /api/v0/models.
func (s *Server) handleLMStudioModels(w http.ResponseWriter, r *http.Request) {
	if s.flavour != FlavourLMStudio {
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	data := make([]any, len(s.models))
	for i, m := range s.models {
		kind, caps := "llm", []string{}
		if m.has("embedding") && !m.has("completion") {
			kind = "embeddings"
		}
		if m.has("tools") {
			caps = append(caps, "tool_use")
		}
		data[i] = map[string]any{"id": m.name.DisplayShortest(), "object": "model", "type": kind, "state": "not-loaded",
			"max_context_length": m.ContextLength, "capabilities": caps}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}
