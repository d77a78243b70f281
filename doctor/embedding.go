package doctor

import (
	"fmt"
)

// EmbeddingProblem is what is wrong with the chosen embedding model.
type EmbeddingProblem int

const (
	EmbeddingFine        EmbeddingProblem = iota // installed, and it embeds
	EmbeddingNone                                // no model chosen
	EmbeddingMissing                             // Ollama does not have it
	EmbeddingNotEmbedder                         // installed, but it cannot make embeddings
	EmbeddingUnreachable                         // Ollama did not answer, so it could not be checked
	EmbeddingUnchecked                           // the check itself ran out of time: nothing is known of Ollama
)

// EmbeddingState is what the embedding line judges.
type EmbeddingState struct {
	Model      string // the chosen model ("" = none)
	Problem    EmbeddingProblem
	Dimensions int    // of the model's vectors; 0 if unknown
	InUse      string // the embedder whose vectors rank searches now ("" if no index is open)
	Offline    bool   // InUse is the built-in offline embedder
	Target     string // the embedder a switch is re-embedding for, if any
	Err        error  // what the check said, for the problems
}

// Embedding is doctor's line about the embedding model that search_docs
// embeds documents with: installed with its dimensions, none chosen (search
// uses keywords only), or chosen and unusable, with the remedy. It always
// passes — search works without a model, by keywords — so a new user who
// has not pulled the default model gets no failure (nor the window's
// banner) for it; the line says what search does and, when something can
// be done, the remedy (Lines prints it under a passing line too). While
// Ollama is down the Ollama line is the one that fails.
func Embedding(s EmbeddingState) Check {
	c := Check{Name: "Embedding model", OK: true}
	uses := "search uses keywords only"
	if s.InUse != "" && !s.Offline {
		uses = "search uses keywords and the vectors " + s.InUse + " made before"
	}
	switch s.Problem {
	case EmbeddingNone:
		c.Detail = "none: " + uses + " (pull an embedding model, e.g. nomic-embed-text, and choose it in the Documents panel to search by meaning)"
	case EmbeddingMissing:
		c.Detail = fmt.Sprintf("%s is chosen but not installed: %s", s.Model, uses)
		c.Remedy = fmt.Sprintf("Run `ollama pull %s` (or Pull in the Documents panel), or choose another embedding model in the Documents panel.", s.Model)
	case EmbeddingNotEmbedder:
		c.Detail = fmt.Sprintf("%s is chosen but is not an embedding model: %s", s.Model, uses)
		c.Remedy = "Choose an embedding model in the Documents panel, e.g. nomic-embed-text (`ollama pull nomic-embed-text`)."
	case EmbeddingUnreachable:
		c.Detail = fmt.Sprintf("%s could not be checked, Ollama is not answering: %s until it does (Quire checks again on a later search, without a restart)", s.Model, uses)
	case EmbeddingUnchecked:
		// Not "Ollama is not answering": the Ollama line above may have
		// just said it answers (issue 31), and nothing here says otherwise.
		c.Detail = fmt.Sprintf("%s was not checked: %s meanwhile", s.Model, uses)
		c.Remedy = "Run `quire doctor` again to check it."
	default:
		c.Detail = s.Model + " is installed"
		if s.Dimensions > 0 {
			c.Detail += fmt.Sprintf(", %d dimensions", s.Dimensions)
		}
		if s.Target != "" {
			c.Detail += fmt.Sprintf("; the documents are being embedded with %s, and search uses %s until that is done", s.Target, s.InUse)
		}
	}
	if s.Err != nil && s.Problem != EmbeddingFine {
		c.Detail += fmt.Sprintf(" (%v)", s.Err)
	}
	return c
}
