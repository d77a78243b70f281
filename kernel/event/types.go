package event

import (
	"reflect"
	"time"
)

// The event types, registered in one place with their payload types. A type
// is "projected" when it becomes a message the model sees (kernel/history).
const (
	SessionCreated   Type = "session.created"
	SessionRenamed   Type = "session.renamed"
	UserMessage      Type = "user.message"
	RunStarted       Type = "run.started"
	AssistantDelta   Type = "assistant.delta"
	AssistantMessage Type = "assistant.message"
	ToolResult       Type = "tool.result"
	RunFinished      Type = "run.finished"
	HistoryReplace   Type = "history.replace"
)

// SessionCreatedPayload is always seq 0 of a session. A branch names the
// session and seq it forks from: its history is the parent's up to and
// including that seq, then its own.
type SessionCreatedPayload struct {
	Title  string       `json:"title"`
	Parent *BranchPoint `json:"parent,omitempty"`
}

// BranchPoint is where a branch leaves its parent.
type BranchPoint struct {
	Session string `json:"session"`
	Seq     int64  `json:"seq"`
}

type SessionRenamedPayload struct {
	Title string `json:"title"`
}

type UserMessagePayload struct {
	Text string `json:"text"`
}

type RunStartedPayload struct {
	Model string `json:"model"`
}

// AssistantDeltaPayload is one streamed piece of a reply. Deltas are logged for
// the UI and replay and never projected: the whole reply follows as an
// AssistantMessage (seed 000 §3).
type AssistantDeltaPayload struct {
	Content  string `json:"content,omitempty"`
	Thinking string `json:"thinking,omitempty"`
}

// ToolCall is a call the model asked for; Arguments is the model's JSON text.
type ToolCall struct {
	ID        string `json:"id,omitempty"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Usage is what the model reported for one step.
type Usage struct {
	PromptTokens int   `json:"promptTokens"`
	OutputTokens int   `json:"outputTokens"`
	DurationNS   int64 `json:"durationNs"`
}

// AssistantMessagePayload is a whole reply. Interrupted marks a reply cut off
// by a cancel or failure: what the user saw is kept, and the model sees it too.
type AssistantMessagePayload struct {
	Content     string     `json:"content"`
	Thinking    string     `json:"thinking,omitempty"`
	ToolCalls   []ToolCall `json:"toolCalls,omitempty"`
	DoneReason  string     `json:"doneReason"`
	Model       string     `json:"model"`
	Usage       Usage      `json:"usage"`
	Interrupted bool       `json:"interrupted,omitempty"`
}

// ToolResultPayload is what a tool returned: Content is what the model sees,
// Data the structured result (any JSON value) kept for the UI and replay.
type ToolResultPayload struct {
	CallID  string `json:"callId,omitempty"`
	Name    string `json:"name"`
	Status  string `json:"status,omitempty"`
	Content string `json:"content"`
	Data    any    `json:"data,omitempty"`
}

// Reasons a run finishes with.
const (
	ReasonCompleted   = "completed"
	ReasonCancelled   = "cancelled"
	ReasonError       = "error"
	ReasonInterrupted = "interrupted"
)

// RunFinishedPayload is the one terminal event of a run. Error is a sentence
// for the user when Reason is error.
type RunFinishedPayload struct {
	Reason string `json:"reason"`
	Error  string `json:"error,omitempty"`
}

// HistoryReplacePayload says: in what the model sees, the messages that came
// from events From..To (inclusive, this session's seqs) are replaced by
// Summary. The originals stay in the log (seed 000 §3); Sources on the
// envelope list the events the summary was made from.
type HistoryReplacePayload struct {
	From    int64  `json:"from"`
	To      int64  `json:"to"`
	Summary string `json:"summary"`
}

type spec struct {
	payload    reflect.Type
	visibility Visibility
	ignorable  bool
	projected  bool
}

func specOf[T any](v Visibility, ignorable, projected bool) spec {
	return spec{payload: reflect.TypeFor[T](), visibility: v, ignorable: ignorable, projected: projected}
}

// specs is the registry. It is read-only after package initialisation.
var specs = map[Type]spec{
	SessionCreated:   specOf[SessionCreatedPayload](Public, false, false),
	SessionRenamed:   specOf[SessionRenamedPayload](Public, false, false),
	UserMessage:      specOf[UserMessagePayload](Public, false, true),
	RunStarted:       specOf[RunStartedPayload](Public, false, false),
	AssistantDelta:   specOf[AssistantDeltaPayload](Public, true, false),
	AssistantMessage: specOf[AssistantMessagePayload](Public, false, true),
	ToolResult:       specOf[ToolResultPayload](Public, false, true),
	RunFinished:      specOf[RunFinishedPayload](Public, false, false),
	HistoryReplace:   specOf[HistoryReplacePayload](Public, false, true),
}

// Projected reports whether events of type t become model messages.
func Projected(t Type) bool { return specs[t].projected }

// Types lists the registered types; with projected, only those that become
// model messages. The order is unspecified.
func Types(projected bool) []Type {
	var out []Type
	for t, sp := range specs {
		if !projected || sp.projected {
			out = append(out, t)
		}
	}
	return out
}

// SessionSummary is what a sessions list shows. Stores derive it from the
// session's events in the same transaction that appends them, so it can
// never disagree with the log.
type SessionSummary struct {
	ID        string
	Title     string
	CreatedAt time.Time
	UpdatedAt time.Time
	LastSeq   int64
	// Replaces counts history.replace events: with LastSeq it keys the
	// projection cache, because a replace can leave the length unchanged.
	Replaces int64
	Parent   *BranchPoint
}
