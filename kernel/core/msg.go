package core

import (
	"time"

	"quire/kernel/tool"
)

// Msg is a fact for Update. Every message carries the time it happened.
type Msg interface {
	time() time.Time
	name() string
}

// Submitted: an input arrived (event input.received).
type Submitted struct {
	At    time.Time
	Input Input
}

// StreamDelta: a piece of the reply arrived (event assistant.delta). The
// machine only checks it belongs to the streaming step.
type StreamDelta struct {
	At    time.Time
	RunID string
}

// StreamFinished: the model's whole reply for a step (event
// assistant.message). Interrupted marks a partial reply of a stream that broke
// or was cancelled; its StreamFailed (or the cancel) follows.
type StreamFinished struct {
	At      time.Time
	RunID   string
	Step    int
	Content string
	Calls   []tool.Call
	// Invalid holds, by call id, why a call's arguments do not match its
	// tool's schema (event.ToolCall.Invalid).
	Invalid      map[string]string
	PromptTokens int
	OutputTokens int
	Interrupted  bool
	// DoneReason is the server's: "length" is a reply it cut at the
	// request's num_predict.
	DoneReason string
}

// StreamFailed: the step's reply failed and the error chain gave up (event
// stream.failed); Message is a sentence for the user.
type StreamFailed struct {
	At      time.Time
	RunID   string
	Step    int
	Class   string
	Message string
}

// StepRetried: the error chain will try the step again after a pause
// (event step.retried).
type StepRetried struct {
	At      time.Time
	RunID   string
	Step    int
	Attempt int
	After   time.Duration
	Reason  string
}

// ToolFinished: a dispatched call returned (event tool.result).
type ToolFinished struct {
	At      time.Time
	RunID   string
	CallID  string
	Status  string
	Content string
}

// PermissionAnswered: the user (or, ByDefault, the policy for an unanswered
// question) answered for the calls asked about together (event
// permission.answered).
type PermissionAnswered struct {
	At        time.Time
	RunID     string
	CallIDs   []string
	Allowed   bool
	Feedback  string
	ByDefault bool
}

// CancelRequested: stop the open run (event cancel.requested); Cause says
// who asked (the user, the session closing, the app shutting down).
type CancelRequested struct {
	At    time.Time
	RunID string // the run it was meant for; empty means whatever is open
	Cause string
}

// BudgetExceeded: something outside the loop says the run spent too much,
// or its reply runs away (event budget.exceeded); Reason is the finish
// reason, empty for event.ReasonBudget.
type BudgetExceeded struct {
	At      time.Time
	RunID   string
	Message string
	Reason  string
}

// CheckpointDone: the pre-close hooks ran; Inputs extend the run (event
// checkpoint.done).
type CheckpointDone struct {
	At     time.Time
	RunID  string
	Inputs []Input
}

// Tick: time passed (event clock.tick); it matters only for deadlines.
type Tick struct{ At time.Time }

// Interrupted: Quire restarted and found this run open, or (Error set, a
// sentence for the user) the runtime could not log a report of the run's
// work and ends the run as error instead of leaving it waiting for a report
// that is lost (event run.interrupted).
type Interrupted struct {
	At    time.Time
	Error string
}

func (m Submitted) time() time.Time          { return m.At }
func (m StreamDelta) time() time.Time        { return m.At }
func (m StreamFinished) time() time.Time     { return m.At }
func (m StreamFailed) time() time.Time       { return m.At }
func (m StepRetried) time() time.Time        { return m.At }
func (m ToolFinished) time() time.Time       { return m.At }
func (m PermissionAnswered) time() time.Time { return m.At }
func (m CancelRequested) time() time.Time    { return m.At }
func (m BudgetExceeded) time() time.Time     { return m.At }
func (m CheckpointDone) time() time.Time     { return m.At }
func (m Tick) time() time.Time               { return m.At }
func (m Interrupted) time() time.Time        { return m.At }

func (Submitted) name() string          { return "submitted" }
func (StreamDelta) name() string        { return "stream-delta" }
func (StreamFinished) name() string     { return "stream-finished" }
func (StreamFailed) name() string       { return "stream-failed" }
func (StepRetried) name() string        { return "step-retried" }
func (ToolFinished) name() string       { return "tool-finished" }
func (PermissionAnswered) name() string { return "permission-answered" }
func (CancelRequested) name() string    { return "cancel-requested" }
func (BudgetExceeded) name() string     { return "budget-exceeded" }
func (CheckpointDone) name() string     { return "checkpoint-done" }
func (Tick) name() string               { return "tick" }
func (Interrupted) name() string        { return "interrupted" }

// Cmd is work for the runtime.
type Cmd interface{ cmd() }

// StartStream: ask the model for the step's reply (after a pause, for a
// retry). The runtime builds the request from the log.
type StartStream struct {
	RunID   string
	Step    int
	After   time.Duration
	Attempt int // 0 for the first try
}

// RunTool: run a call, in its own goroutine, cut at Timeout.
type RunTool struct {
	RunID   string
	Call    tool.Call
	Timeout time.Duration
}

// AskPermission: ask the user, once, about these calls together.
type AskPermission struct {
	RunID    string
	Calls    []tool.Call
	Deadline time.Time // zero: no deadline
}

// CancelRun: stop the run's stream, tools and checkpoint; each reports back.
type CancelRun struct {
	RunID string
	Cause string
}

// RunCheckpoint: run the pre-close hooks, one after another.
type RunCheckpoint struct{ RunID string }

func (StartStream) cmd()   {}
func (RunTool) cmd()       {}
func (AskPermission) cmd() {}
func (CancelRun) cmd()     {}
func (RunCheckpoint) cmd() {}
