// Package host declares, once, the small ports every host (the window in
// package main, host/httpapi, host/cli) reaches the rest of Quire through,
// besides the kernel's own protocol.Kernel: the documents panel, the memory
// panel, the user's settings, the models screen and the health checks. The composition root
// (assembly) hands hosts concrete parts that satisfy them. It also
// holds what every host that asks the user shares (question.go): the board
// of open permission questions and the log's account of how one closed;
// and the operations a page calls (ops.go), derived from the ports in
// Ports, so that an operation is declared only here.
//
// It speaks kernel/protocol and doctor's report only. It must never import
// kernel/store, kernel/runtime, kernel/core, a provider, rag, library,
// memory, Wails or the composition root.
package host

import (
	"context"
	"encoding/json"

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

// Notes is the Notes panel's back end: the notes folder's tree (a folder
// at a time) and a note's read-only preview; "Changes by Quire", every
// approved write across conversations, newest first, each undone by Quire
// itself (the note tools' own reverse, under their write lock) and the undo
// recorded in the log of the conversation that made the change; and a
// proposed write previewed on its note by a dry run of the write's own code.
type Notes interface {
	Tree(ctx context.Context, path string) (protocol.NoteFolder, error)
	Read(ctx context.Context, path string) (protocol.NoteText, error)
	// Changes also lists the task queue's applied batches (ChangeList's
	// Batches), each undone as one through Batches.Undo.
	Changes(ctx context.Context) (protocol.ChangeList, error)
	// Undo reverts one change; a refusal (the note changed since) is the
	// outcome's Refused, not an error.
	Undo(ctx context.Context, id string) (protocol.UndoOutcome, error)
	// UndoAll reverts the conversation's standing changes newest first and
	// stops at the first refusal. ids are the changes the user was shown,
	// in that order: when the log has others now, nothing is done
	// (protocol.ErrConflict), so the one yes covers exactly what it listed.
	UndoAll(ctx context.Context, session string, ids []string) (protocol.UndoOutcome, error)
	// Versions are Quire's version of the note a change wrote and the note now.
	Versions(ctx context.Context, id string) (protocol.NoteVersions, error)
	// Preview is what the note tool would write, computed without writing.
	Preview(ctx context.Context, tool string, args json.RawMessage) (protocol.WritePreview, error)
	// Links are a note's backlinks and unresolved links, from the notes index.
	Links(ctx context.Context, path string) (protocol.NoteLinks, error)
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
	// About is what the help drawer says of this Quire: its build and
	// where it keeps the user's things.
	About(ctx context.Context) (About, error)
}

// About is this Quire as the help drawer shows it.
type About struct {
	Version  string `json:"version"`  // the build's module version ("(devel)" from a source tree)
	Protocol string `json:"protocol"` // the host protocol it speaks (protocol.Version)
	Go       string `json:"go"`       // the Go release it was built with
	DataDir  string `json:"dataDir"`  // the data folder: the log, the settings, memory
	NotesDir string `json:"notesDir"` // "" until one is chosen
	Ollama   string `json:"ollama"`   // the address Ollama is asked at
	Model    string `json:"model"`    // the chat model
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

// Conversations is what a host asks of the conversations as a whole: the
// search over what was said in all of them (the palette behind Ctrl+K).
// Exporting one is export.As over its events, the same in every host.
type Conversations interface {
	// Search finds the messages holding every word of query (read as
	// plain words, at most protocol.FindMaxQuery characters), best first;
	// at most limit hits (1..protocol.FindMaxHits, else the most). A query
	// with no word finds nothing, with no error.
	Search(ctx context.Context, query string, limit int) (protocol.MessageSearch, error)
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

// Standing is the standing tasks as hosts see them (issue 33): organise
// batches Quire starts on a schedule, which only propose and wait for the
// same one review and one undo as a batch the user started (Batches). An
// unknown id is protocol.ErrNotFound, a task that cannot run
// protocol.ErrBadPayload, a run-now while its batch waits
// protocol.ErrConflict, each with a sentence.
type Standing interface {
	List(ctx context.Context) ([]protocol.StandingSummary, error)
	// Add stores a task (its id and creation are given); Edit replaces one.
	Add(ctx context.Context, t protocol.StandingTask) (protocol.StandingSummary, error)
	Edit(ctx context.Context, t protocol.StandingTask) (protocol.StandingSummary, error)
	SetPaused(ctx context.Context, id string, paused bool) (protocol.StandingSummary, error)
	Remove(ctx context.Context, id string) error
	// RunNow fires a task at once (paused or not): its batch is made and
	// returns before its workers end.
	RunNow(ctx context.Context, id string) (protocol.StandingFiring, error)
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

// Driver is how a terminal host (`quire chat`, `quire run`) reaches the
// data folder's kernel: its own, when this process owns the folder, or the
// running owner's (the window, `quire serve`) over its local channel. Both
// route the questions of a session the terminal claims to the terminal
// (Claims), so the user is asked where the run was started, and only there.
type Driver interface {
	Kernel() protocol.Kernel
	// Claim makes this client the one asked about session's permission
	// questions while ctx lasts: the open ones arrive whole, at once and on
	// each change. Answer them with protocol.AnswerAsk. When ctx ends a
	// question still open is answered No (ClientGone). Another client's
	// claim is an error (ErrClaimed, or the owner's 409).
	Claim(ctx context.Context, session string) (<-chan []protocol.Question, error)
	// Notes is the Notes panel's back end of the same owner (its
	// /api/notes routes over the local channel, or this process's own),
	// for a direct undo; nil when there is none (no notes folder's log).
	Notes() Notes
	Close()
}

// Calls is the inspector's back end ("what the model saw"): a session's
// model calls, numbered as `quire replay SESSION -request N` numbers them,
// each rebuilt from the log alone, so it works for any conversation, old
// or running.
type Calls interface {
	// Calls lists the session's calls (only run's when run is not ""):
	// light, the last protocol.MaxListedCalls.
	Calls(ctx context.Context, session, run string) (protocol.CallList, error)
	// Call is call n in full, its texts bounded (protocol.Call.Truncated).
	Call(ctx context.Context, session string, n int) (protocol.Call, error)
	// Request is call n's request whole, byte for byte what `quire replay
	// SESSION -request N` prints.
	Request(ctx context.Context, session string, n int) ([]byte, error)
}

// MCP is the MCP servers' back end (package mcpclient): the servers the
// user plugged in, their state and stderr, their tools and the user's
// choice per tool. Changes are saved at once and reach the next run (a
// running run's tools were frozen when it started). A server named that is
// not configured is protocol.ErrNotFound; a refused input (a bad name, over
// a bound, a stdio and an HTTP server at once) protocol.ErrBadPayload; both
// wrapped with a sentence saying what to do.
type MCP interface {
	// Servers is every configured server with its state and tools.
	Servers(ctx context.Context) (protocol.MCPList, error)
	// Put adds a server or replaces the one of the same name, saves it and
	// (re)starts it when enabled; it returns once the start is under way.
	Put(ctx context.Context, cfg protocol.MCPServerConfig) (protocol.MCPServer, error)
	// Remove stops the server and forgets its config (the user's tool
	// choices are kept, for a server added again under its name).
	Remove(ctx context.Context, name string) error
	// Import takes a pasted mcp.json text ({"mcpServers": {...}}): each
	// server in it is added (or replaces the one of its name) and started,
	// or refused with why; the text is at most protocol.MCPMaxConfigBytes.
	Import(ctx context.Context, text string) (protocol.MCPImport, error)
	// Start, Stop and Restart act on one server and return its state once
	// the action is under way (Watch says when it runs or fails).
	Start(ctx context.Context, name string) (protocol.MCPServer, error)
	Stop(ctx context.Context, name string) (protocol.MCPServer, error)
	Restart(ctx context.Context, name string) (protocol.MCPServer, error)
	// SetTool saves the user's choice for one tool (enabled, effects).
	SetTool(ctx context.Context, c protocol.MCPToolChoice) (protocol.MCPServer, error)
	// Watch delivers every server's changes, in order per server, until ctx
	// ends; a slow watcher gets each server's latest state (one server's
	// state is never lost behind another's).
	Watch(ctx context.Context) <-chan protocol.MCPServer
}

// Evolution is the Evolution panel's and `quire evolve`'s back end (issue
// 20): the candidate improvements (prompt fragments, skills, workflows),
// their evaluation, the user's approval, scoped activation and rollback,
// and the signals observed in finished runs. Every step is an event; no
// candidate is activated without the user, and none can widen what tools
// may do. An unknown ID is protocol.ErrNotFound; a step the candidate's
// state does not allow protocol.ErrConflict; a candidate refused by
// construction protocol.ErrBadPayload; each a sentence for the user
// (protocol.Refusal).
//
// It is three small ports, so a consumer that needs one part asks for it
// alone: what is there (Candidates), the user's steps (CandidateSteps)
// and the evaluation jobs (Evaluations).
type Evolution interface {
	Candidates
	CandidateSteps
	Evaluations
}

// Candidates are what the Evolution panel reads.
type Candidates interface {
	// List is every candidate, newest first, with the latest signals.
	List(ctx context.Context) (protocol.EvolutionState, error)
	// Show is one candidate with the active version it would replace, its
	// evidence and the signals seen while it was active.
	Show(ctx context.Context, id string) (protocol.CandidateDetail, error)
	// Signals are the latest signals, newest first, at most limit
	// (1..protocol.MaxListedSignals, else the most).
	Signals(ctx context.Context, limit int) ([]protocol.EvolutionSignal, error)
}

// CandidateSteps are the user's steps on a candidate, each an event.
type CandidateSteps interface {
	// Propose adds a candidate the user wrote (Author user), checked as
	// every candidate is: one artifact of its kind, within bounds, no
	// unknown field, a skill without grants.
	Propose(ctx context.Context, d protocol.CandidateDraft) (protocol.Candidate, error)
	// Approve is the user's yes: refused with no evaluation, or when a
	// regression of the report is not among a.Accepted.
	Approve(ctx context.Context, id string, a protocol.Approval) (protocol.Candidate, error)
	// Refuse is the user's no; a refused candidate is never activated.
	Refuse(ctx context.Context, id, reason string) (protocol.Candidate, error)
	// Activate makes an approved candidate active in a's scope; when
	// another version of its name is active, a.Replaces must name it.
	Activate(ctx context.Context, id string, a protocol.Activation) (protocol.Candidate, error)
	// Rollback ends the activation of id (or, for "", the latest
	// activation) and makes the version it replaced active again.
	Rollback(ctx context.Context, id string) (protocol.Candidate, error)
	// SetLearning saves whether the model is asked, after a run that left
	// signals, for a candidate (EvolutionState.Learn; off by default).
	SetLearning(ctx context.Context, on bool) error
}

// Evaluations are the candidates' isolated evaluations (eval set and
// origin-run replays, with and without the candidate, in a temporary data
// folder), run in the background: a real model's outlasts a request.
type Evaluations interface {
	// StartEvaluation starts a candidate's evaluation and returns at once;
	// refused while one of the candidate's runs.
	StartEvaluation(ctx context.Context, id string) (protocol.EvaluationJob, error)
	// Evaluation is the candidate's latest job since the start (404: none).
	Evaluation(ctx context.Context, id string) (protocol.EvaluationJob, error)
	// CancelEvaluation stops the candidate's running job; nothing is
	// recorded (409: none running).
	CancelEvaluation(ctx context.Context, id string) (protocol.EvaluationJob, error)
	// WatchEvaluations delivers every job's changes until ctx ends, in
	// order per candidate, the latest always.
	WatchEvaluations(ctx context.Context) <-chan protocol.EvaluationJob
}

// Skills is Settings → Skills' back end (package skills): the installed
// skills (shipped and the user's folder), each turned on or off for the runs
// that start later, and a skill folder copied in.
type Skills interface {
	SkillList(ctx context.Context) (protocol.SkillList, error)
	// SetSkillEnabled is refused (protocol.ErrNotFound) for a name no
	// installed skill has.
	SetSkillEnabled(ctx context.Context, name string, on bool) error
	// InstallSkill checks the folder as a skill and copies its SKILL.md and
	// the files it lists into the skills folder; refused in words when it
	// is not a valid skill or one of its name is installed there already.
	InstallSkill(ctx context.Context, dir string) (protocol.SkillInfo, error)
}
