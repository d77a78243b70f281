package protocol

import "time"

// The documents the user gave Quire for search_docs, as hosts show them:
// the documents panel, the indexing progress bar and the source viewer a
// citation opens. The kernel does not produce these; the library package
// does, and every host (the window, `quire serve`) passes them through
// unchanged, so the page reads the same shapes from either transport.

// Indexing phases, as IndexProgress.Phase says them.
const (
	PhaseIdle      = "idle"      // nothing has run since start
	PhaseScanning  = "scanning"  // looking for new and changed files
	PhaseIndexing  = "indexing"  // reading and embedding files
	PhaseDone      = "done"      // the last pass finished
	PhaseCancelled = "cancelled" // the last pass was stopped by the user (its work is kept)
	PhaseFailed    = "failed"    // the last pass stopped on an error (Error says which)
)

// IndexProgress is how background indexing is going. Counts are files of
// the current (or last) pass.
type IndexProgress struct {
	Running     bool     `json:"running"`
	Phase       string   `json:"phase"`
	Total       int      `json:"total"`
	Done        int      `json:"done"`
	Failed      int      `json:"failed"`
	Refused     int      `json:"refused"` // files this pass found that cannot be read (a link out of its folder), not counted in Total
	Skipped     int      `json:"skipped"` // files this pass found in a format Quire does not read (.yml, .json), not counted in Total or Failed
	CurrentFile string   `json:"currentFile,omitempty"`
	ETAMillis   int64    `json:"etaMs"`           // 0 when unknown
	Paths       []string `json:"paths,omitempty"` // what the pass was asked to index; empty = every known folder
	Error       string   `json:"error,omitempty"` // a sentence, for PhaseFailed
	Queued      int      `json:"queued"`          // passes waiting behind this one
	// Reembedding names the embedder a switch is making vectors for, when
	// this pass is that re-embedding (Total and Done count documents);
	// searches use the old vectors until it is done.
	Reembedding string `json:"reembedding,omitempty"`
}

// Embedding model states, as EmbeddingState.Status says them.
const (
	EmbedNone        = "none"        // no model chosen: search uses keywords (and the built-in embedder)
	EmbedReady       = "ready"       // the chosen model is installed and embeds the documents
	EmbedMissing     = "missing"     // Ollama does not have the chosen model, or it cannot embed
	EmbedUnreachable = "unreachable" // Ollama is not answering; Quire checks again on a later search
)

// EmbeddingState is which embedding model the documents panel shows as
// chosen, and what became of it.
type EmbeddingState struct {
	Model      string `json:"model"`             // the chosen model ("" = none)
	Status     string `json:"status"`            // Embed* values
	Problem    string `json:"problem,omitempty"` // for missing / unreachable: what is wrong and what to do
	InUse      string `json:"inUse"`             // the embedder whose vectors rank searches now
	Dimensions int    `json:"dimensions"`        // of those vectors; 0 before any is stored
	Target     string `json:"target,omitempty"`  // the embedder a switch is re-embedding for
}

// Document is one file in the index.
type Document struct {
	Path    string    `json:"path"`
	Name    string    `json:"name"` // the path shown: relative to the parent of its watched folder
	Root    string    `json:"root"`
	Format  string    `json:"format,omitempty"`
	Status  string    `json:"status"`           // queued, parsed, embedded, done, failed, skipped (a format Quire does not read)
	Reason  string    `json:"reason,omitempty"` // why it failed or was skipped
	Chunks  int       `json:"chunks"`
	Size    int64     `json:"size"`
	Updated time.Time `json:"updated"`
}

// DocumentsState is everything the documents panel shows.
type DocumentsState struct {
	Embedder    string          `json:"embedder"`              // "ollama:nomic-embed-text" or the offline embedder's name
	Offline     bool            `json:"offline"`               // the built-in offline embedder is in use
	VectorError string          `json:"vectorError,omitempty"` // why vector search is off or degraded
	Roots       []string        `json:"roots"`
	Documents   []Document      `json:"documents"`
	Progress    IndexProgress   `json:"progress"`
	Embedding   *EmbeddingState `json:"embedding,omitempty"` // nil from a library that cannot change the model
}

// DocumentSource is an indexed document's text for the viewer. Lines are
// counted from 1 as citations count them; for a PDF the text is the one
// page asked for, as extracted.
type DocumentSource struct {
	Path   string `json:"path"`
	Name   string `json:"name"`
	Format string `json:"format"`
	Page   int    `json:"page,omitempty"`  // PDF only
	Pages  int    `json:"pages,omitempty"` // PDF only
	Text   string `json:"text"`
}
