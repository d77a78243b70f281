// Package host declares, once, the small ports every host (the window in
// package main, host/httpapi, host/cli) reaches the rest of Quire through,
// besides the kernel's own protocol.Kernel: the documents panel, the memory
// panel, the user's settings, the models screen and the health checks. The composition root
// (internal/app) hands hosts concrete parts that satisfy them. It also
// holds what every host that asks the user shares (question.go): the board
// of open permission questions and the log's account of how one closed.
//
// It speaks kernel/protocol and doctor's report only. It must never import
// kernel/store, kernel/runtime, kernel/core, a provider, rag, library,
// memory, Wails or the composition root.
package host

import (
	"context"

	"quire/doctor"
	"quire/kernel/protocol"
)

// Documents is the documents panel's back end (the library package): the
// methods the window binds and `quire serve` routes.
type Documents interface {
	State(ctx context.Context) (protocol.DocumentsState, error)
	Add(ctx context.Context, paths []string) error
	Cancel()
	Retry(ctx context.Context, path string) error
	Remove(ctx context.Context, path string) error
	Source(ctx context.Context, path string, page int) (protocol.DocumentSource, error)
	Watch(ctx context.Context) <-chan protocol.IndexProgress
	// SetEmbedModel chooses the embedding model ("" for none): refused in
	// words when Ollama does not have it or it cannot embed; otherwise
	// saved, and the documents are re-embedded in the background while
	// searches use the vectors they have (State's Embedding, Watch).
	SetEmbedModel(ctx context.Context, model string) error
}

// Memory is the memory panel's backend: what the assistant remembers, which
// the user sees, edits, forgets, and approves or rejects.
type Memory interface {
	MemoryList(ctx context.Context) (protocol.MemoryList, error)
	EditMemory(ctx context.Context, id, text string) (protocol.MemoryItem, error)
	ForgetMemory(ctx context.Context, id string) error
	ReviewMemory(ctx context.Context, id string, approve bool) error
	SetMemoryApproval(ctx context.Context, on bool) error
	SetMemoryLearning(ctx context.Context, on bool) error
}

// Settings are the user's choices a host may read and change: the notes
// folder, and the Settings screen's choices, saved through the one settings
// owner and used from the next run on.
type Settings interface {
	NotesDir() string
	SetNotesDir(dir string) error
	// Screen is every choice and what the screen needs to render them.
	Screen(ctx context.Context) (protocol.SettingsScreen, error)
	// Update saves the choices (each checked against its bound: a refused
	// one is a *protocol.SettingError naming it) and returns the screen as
	// it now is.
	Update(ctx context.Context, s protocol.UserSettings) (protocol.SettingsScreen, error)
	// CheckOllama asks the address whether Ollama answers there, saving
	// nothing, within a few seconds.
	CheckOllama(ctx context.Context, address string) protocol.OllamaCheck
}

// Models is the models screen's back end: the models Ollama has, pulls
// with progress, and deletion. Pulls run in the background, one per name
// (a second Pull of a name already pulling joins it); Watch delivers, per
// watcher, every pull's state changes in order — each terminal state
// (done, cancelled, failed) always, the running figures coalesced to the
// latest when the watcher is slow — until ctx ends.
type Models interface {
	List(ctx context.Context) (protocol.ModelsState, error)
	// Pull starts pulling name; it returns once the pull is under way (or
	// refused: an empty or invalid name), not when it ends.
	Pull(ctx context.Context, name string) error
	// CancelPull stops the pull of name, if one runs; what was downloaded
	// stays, and the next Pull of the name resumes from it.
	CancelPull(name string)
	Delete(ctx context.Context, name string) error
	// Recommended is the short list for note work, without asking Ollama.
	Recommended() []protocol.RecommendedModel
	Watch(ctx context.Context) <-chan protocol.PullProgress
}

// Batches is the task queue's back end as hosts see it: "organise this
// folder" as a batch of one task per note, worked through by agent workers
// that only read and propose (seed 002 decision 14), then one review for the
// whole batch. Every method names the batch by its ID; an unknown ID is
// protocol.ErrNotFound, an action the batch's state does not allow (Apply
// before it is reviewing, Undo of what was not applied) protocol.ErrConflict,
// both wrapped with a sentence.
type Batches interface {
	// Start enqueues one task per note under folder (relative to the notes
	// root, at most protocol.BatchMaxNotes) and returns once the batch is
	// stored, not when it ends; the workers start at once.
	Start(ctx context.Context, folder string) (protocol.Batch, error)
	// List is every batch, newest first.
	List(ctx context.Context) ([]protocol.Batch, error)
	// Get is a batch with its tasks and, once reviewing, its review list.
	Get(ctx context.Context, id string) (protocol.BatchReview, error)
	// Pause stops new claims (claimed tasks finish); Resume lets them go on.
	Pause(ctx context.Context, id string) (protocol.Batch, error)
	Resume(ctx context.Context, id string) (protocol.Batch, error)
	// Cancel stops a batch that is not applied: no more claims, and it
	// never applies.
	Cancel(ctx context.Context, id string) (protocol.Batch, error)
	// Apply is the user's one answer: the selected items run as one change
	// (all of it is undone by one Undo); none selected ends the batch with
	// nothing changed.
	Apply(ctx context.Context, id string, d protocol.BatchDecision) (protocol.Batch, error)
	// Undo reverts an applied batch's change, as one.
	Undo(ctx context.Context, id string) (protocol.Batch, error)
	// Watch delivers every batch's changes, in order per batch, until ctx
	// ends; a slow watcher gets the latest state of each batch (a state is
	// never lost behind a newer one of another batch).
	Watch(ctx context.Context) <-chan protocol.BatchProgress
}

// Doctor runs the health checks.
type Doctor func(ctx context.Context) doctor.Report

// Asker puts a permission question to the user and returns the answer. It
// may block until the user answers; ctx ends when the run's deadline does.
type Asker func(ctx context.Context, q protocol.Question) (protocol.Answer, error)

// Index is the document index as `quire index` and `quire search` use it.
type Index interface {
	// Embedder names what makes the vectors, for people.
	Embedder() string
	// VectorError is why the last search ranked by words only ("" if it did not).
	VectorError() string
	// Index makes paths watched roots and brings them up to date.
	Index(ctx context.Context, paths []string, progress func(protocol.IndexProgress)) error
	Documents(ctx context.Context) ([]protocol.Document, error)
	// Search finds the n best passages, numbered from 1, ranked as mode
	// says (protocol.SearchDefault: the default ranking). A query that
	// matches nothing finds none, with no error.
	Search(ctx context.Context, query string, n int, mode protocol.SearchMode) ([]protocol.Citation, error)
}
