package protocol

// The batch shapes: "organise my inbox" as a queue of small independent
// tasks (seed 002 decision 14). A coordinator enqueues one task per note of
// a folder; worker agents, each in a session of its own with read-only
// tools, claim a task and put a Proposal in it; once every task is done or
// failed the batch waits for the user's one answer (BatchReview, then a
// BatchDecision), and the approved moves run as one change that undoes as
// one. The kernel does not produce these; the queue package does, and every
// host passes them through unchanged.

import "strings"

// Batch states (Batch.State).
const (
	BatchRunning   = "running"   // workers are claiming tasks
	BatchPaused    = "paused"    // no new claims; tasks already claimed finish
	BatchReviewing = "reviewing" // every task ended: the one question waits for the user
	BatchApplying  = "applying"  // the approved moves are being made
	BatchDone      = "done"      // applied (Applied says how many moves), or nothing approved
	BatchCancelled = "cancelled" // stopped by the user before review, or the review refused
	BatchFailed    = "failed"    // the batch itself could not go on (Error says why)
	BatchUndone    = "undone"    // the applied moves were undone, as one
)

// Task states (BatchTask.State).
const (
	TaskQueued  = "queued"
	TaskClaimed = "claimed" // a worker holds its lease
	TaskDone    = "done"    // Proposal holds the worker's answer
	TaskFailed  = "failed"  // Error says why; the other tasks go on
)

// Batch bounds.
const (
	BatchMaxNotes   = 200 // entries of the folder one batch takes (list_notes' bound); a bigger folder is refused saying so
	BatchMinWorkers = 1
	BatchMaxWorkers = 8
	BatchWorkers    = 2 // the default of the batch.workers setting
)

// Batch is one batch's summary.
type Batch struct {
	ID        string `json:"id"`
	Folder    string `json:"folder"` // the notes folder it organises, relative to the notes root ("inbox")
	Title     string `json:"title"`  // for people: "Organise inbox (42 notes)"
	State     string `json:"state"`  // Batch* values
	Total     int    `json:"total"`  // tasks
	Done      int    `json:"done"`   // tasks done
	Failed    int    `json:"failed"` // tasks failed
	Workers   int    `json:"workers"`
	Applied   int    `json:"applied"`         // notes changed by Apply
	Error     string `json:"error,omitempty"` // why the batch failed or was stopped
	CreatedMs int64  `json:"createdMs"`       // Unix ms
	UpdatedMs int64  `json:"updatedMs"`       // Unix ms of the last change
}

// Proposal is a worker's structured answer for one note.
type Proposal struct {
	Path   string   `json:"path"`   // proposed new path, relative to the notes root; "" = stay where it is
	Tags   []string `json:"tags"`   // its tags, replacing the ones it has; empty: its tags stay as they are
	Links  []string `json:"links"`  // notes it should link to (paths relative to the notes root)
	Reason string   `json:"reason"` // one line for people
}

// BatchTask is one note's task.
type BatchTask struct {
	ID       string    `json:"id"`
	Note     string    `json:"note"` // the note's path, relative to the notes root
	State    string    `json:"state"`
	Attempts int       `json:"attempts"`
	Error    string    `json:"error,omitempty"`
	Session  string    `json:"session,omitempty"` // the worker's session of the last attempt
	Proposal *Proposal `json:"proposal"`
}

// ReviewItem is one line of the review list: a done task's proposal as the
// user sees and edits it.
type ReviewItem struct {
	Task     string   `json:"task"`
	From     string   `json:"from"` // the note's path now
	To       string   `json:"to"`   // where it goes ("" or From: it stays)
	Tags     []string `json:"tags"`
	Links    []string `json:"links"`
	Reason   string   `json:"reason"`
	Selected bool     `json:"selected"` // ticked: part of the change when the user says yes
}

// BatchReview is a batch with its tasks and, once it is reviewing, the
// review list (one item per done task, each selected by default).
type BatchReview struct {
	Batch Batch        `json:"batch"`
	Tasks []BatchTask  `json:"tasks"`
	Items []ReviewItem `json:"items"`
	// Changes are what the batch's Apply changed in the notes and an Undo
	// would revert, oldest first (none before it applied, none once undone):
	// the undo's confirm lists them.
	Changes []BatchChange `json:"changes"`
}

// BatchChange kinds (BatchChange.Kind).
const (
	BatchChangeMove = "move" // a note moved from From to Path
	BatchChangeEdit = "edit" // a note's text changed (its tags or links)
)

// BatchChange is one change an applied batch made to a note.
type BatchChange struct {
	Kind string `json:"kind"`           // BatchChange* values
	Path string `json:"path"`           // the note as it is now
	From string `json:"from,omitempty"` // a move's source, where undo puts it back
}

// BatchDecision is the user's one answer for a batch: the review list as
// ticked and edited. Only selected items are applied; an item is matched to
// its task by Task, and its From must be the task's note.
type BatchDecision struct {
	Items []ReviewItem `json:"items"`
}

// BatchProgress is one change of a batch, for the stream: the batch as it
// now is and, when a task changed, that task.
type BatchProgress struct {
	Batch Batch      `json:"batch"`
	Task  *BatchTask `json:"task"`
}

// BatchFolder is the folder a batch of folder names, as every host and the
// queue compare it: trailing slashes cut, "" the notes folder itself (".").
// A leading slash is kept, so the notes tools refuse an absolute path as
// outside the notes folder instead of it being read as the folder of that
// name inside (/inbox is not inbox).
func BatchFolder(folder string) string {
	folder = strings.TrimSpace(folder)
	if t := strings.TrimRight(folder, "/"); t != "" {
		folder = t
	}
	if folder == "" {
		return "."
	}
	return folder
}
