package ollamatest

import (
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// handleEmbed answers POST /api/embed with vectors that depend only on the
// text: texts sharing words point in similar directions, which is enough for
// retrieval tests, and every vector has length 1 as Ollama's do.
func (s *Server) handleEmbed(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	var req api.EmbedRequest
	if !decode(w, r, &req) {
		return
	}
	var input []string
	switch in := req.Input.(type) {
	case string:
		if in != "" {
			input = append(input, in)
		}
	case []any:
		for _, v := range in {
			text, ok := v.(string)
			if !ok {
				writeError(w, http.StatusBadRequest, "invalid input type")
				return
			}
			input = append(input, text)
		}
	default:
		if req.Input != nil {
			writeError(w, http.StatusBadRequest, "invalid input type")
			return
		}
	}
	if n := model.ParseName(req.Model); !n.IsFullyQualified() {
		// Unlike chat, embed does not check the name first: looking its
		// manifest up fails, and the scheduler's error is a 500. A request
		// without a model gets "unqualified name: registry.ollama.ai/library/:latest".
		writeError(w, http.StatusInternalServerError, model.Unqualified(n).Error())
		return
	}
	m, ok := s.find(req.Model)
	if !ok {
		// Not the chat handler's wording: embed finds out later, when it
		// schedules a runner, and says so differently.
		writeError(w, http.StatusNotFound, fmt.Sprintf("model %q not found, try pulling it first", req.Model))
		return
	}
	numCtx, err := contextSize(req.Options, m)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	s.loadFor(m, req.KeepAlive)
	if len(input) == 0 {
		writeJSON(w, http.StatusOK, api.EmbedResponse{Model: req.Model, Embeddings: [][]float32{}})
		return
	}

	resp := api.EmbedResponse{Model: req.Model, Embeddings: make([][]float32, len(input))}
	for i, text := range input {
		tokens := (utf8.RuneCountInString(text) + 3) / 4
		if req.Truncate != nil && !*req.Truncate && tokens > numCtx {
			writeError(w, http.StatusBadRequest, "the input length exceeds the context length")
			return
		}
		vec := Embedding(text, m.EmbeddingLength)
		if req.Dimensions > 0 && req.Dimensions < len(vec) {
			vec = normalize(vec[:req.Dimensions])
		}
		resp.Embeddings[i] = vec
		resp.PromptEvalCount += tokens
	}
	resp.LoadDuration = time.Millisecond
	resp.TotalDuration = max(time.Since(start), resp.LoadDuration)
	writeJSON(w, http.StatusOK, resp)
}

// Embedding is the vector the fake server gives text: each lower-cased word
// adds ±1 to a dimension chosen by its hash, and the sum is scaled to length
// 1. A text without words gets a dimension chosen by the hash of the whole
// text, so that no vector is zero.
func Embedding(text string, dims int) []float32 {
	vec := make([]float32, dims)
	add := func(word string) {
		h := fnv.New64a()
		h.Write([]byte(word))
		sum := h.Sum64()
		sign := float32(1)
		if sum>>63 == 1 {
			sign = -1
		}
		vec[sum%uint64(dims)] += sign
	}
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	for _, word := range words {
		add(word)
	}
	if len(words) == 0 {
		add(text)
	}
	return normalize(vec)
}

// normalize scales vec to length 1, as Ollama's /api/embed does.
func normalize(vec []float32) []float32 {
	var sum float64
	for _, v := range vec {
		sum += float64(v) * float64(v)
	}
	norm := float32(1 / max(math.Sqrt(sum), 1e-12))
	for i := range vec {
		vec[i] *= norm
	}
	return vec
}
