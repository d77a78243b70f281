package protocol

import "time"

// The inspector's shapes ("what the model saw", issue 17): a session's
// model calls, numbered as `quire replay SESSION -request N` numbers them
// (1 = the first; a retry is a call of its own), each rebuilt from the log
// alone. The list is light; one call's detail is heavy but bounded (each
// message's text is cut at MaxShownText, the messages at MaxShownMessages,
// said in Truncated), and the exact request, whatever its size, is a read
// of its own (host.Calls.Request).

// Bounds of a call's detail: a request can be megabytes of tool output.
const (
	MaxShownText     = 16 << 10 // bytes of each message, thinking or reply text shown
	MaxShownMessages = 400      // messages of one request shown (the last ones)
	MaxListedCalls   = 1000     // calls in one list (the last ones)
)

// Outcomes of a model call.
const (
	CallReplied = "replied" // an assistant.message answered it
	CallFailed  = "failed"  // a stream.failed ended it; the run gave up
	CallRetried = "retried" // it failed and a step.retried asked for the next call
	CallEnded   = "ended"   // the run finished (cancelled, interrupted) before any answer
	CallOpen    = "open"    // nothing answered it yet: the reply is still coming
)

// CallList is a session's model calls, oldest first; Total counts them
// all when the list holds only the last MaxListedCalls.
type CallList struct {
	Calls []CallSummary `json:"calls"`
	Total int           `json:"total"`
}

// CallSummary is one model call as a list shows it.
type CallSummary struct {
	N     int    `json:"n"`
	RunID string `json:"runId"`
	Step  int    `json:"step"`
	// Attempt is 0 for a step's first call, then 1, 2… for its retries.
	Attempt int `json:"attempt"`
	// Seq is the step.started (or step.retried) that asked for the call.
	Seq     int64     `json:"seq"`
	At      time.Time `json:"at"`
	Outcome string    `json:"outcome"`
	// ReplySeq is the assistant.message (or stream.failed) that answered
	// it; -1 when none did.
	ReplySeq int64 `json:"replySeq"`
	// PromptTokens is the model's own count of the request (0: unknown).
	PromptTokens int `json:"promptTokens"`
}

// Call is one model call in full: the request as sent, where each of its
// messages came from, its size, what answered it, and what changed since
// the call before.
type Call struct {
	Summary CallSummary `json:"summary"`
	// BuiltAt is the seq the request was projected at: the asking event, or
	// a compaction or refreshed context text made after it.
	BuiltAt int64       `json:"builtAt"`
	Model   string      `json:"model"`
	Options CallOptions `json:"options"`
	// Messages are the request's messages in order (system zones first);
	// when more than MaxShownMessages, the last ones, and Truncated says so.
	Messages []CallMessage `json:"messages"`
	// Shown is the index in the request of Messages[0].
	Shown int `json:"shown"`
	// MessageCount is how many messages the request holds.
	MessageCount int        `json:"messageCount"`
	Tools        []CallTool `json:"tools"`
	// ToolsOff says why no tools were declared when the run had some
	// ("refused": the model refused them and this call was retried without).
	ToolsOff  string     `json:"toolsOff,omitempty"`
	Tokens    CallTokens `json:"tokens"`
	Reply     *CallReply `json:"reply,omitempty"`
	Failure   *CallFail  `json:"failure,omitempty"`
	Diff      *CallDiff  `json:"diff,omitempty"`
	Truncated bool       `json:"truncated"`
	// RequestBytes is the size of the exact request (host.Calls.Request).
	RequestBytes int `json:"requestBytes"`
}

// CallOptions are the options the request carried.
type CallOptions struct {
	NumCtx      int      `json:"numCtx"`
	Temperature *float64 `json:"temperature,omitempty"`
	Think       *bool    `json:"think,omitempty"`
}

// CallMessage is one message of a request and its origin.
type CallMessage struct {
	Role       string         `json:"role"`
	Content    string         `json:"content"`
	ToolName   string         `json:"toolName,omitempty"`
	ToolCallID string         `json:"toolCallId,omitempty"`
	ToolCalls  []CallToolCall `json:"toolCalls,omitempty"`
	Origin     CallOrigin     `json:"origin"`
	Tokens     int            `json:"tokens"`
	Bytes      int            `json:"bytes"` // of the whole content
	Cut        bool           `json:"cut,omitempty"`
	Change     CallChange     `json:"change"`
}

// CallToolCall is a tool call an assistant message of the request carries.
type CallToolCall struct {
	ID        string `json:"id,omitempty"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// CallOrigin says where a message came from. Event is the type of the
// event it was projected from (user.message, assistant.message,
// tool.result, tool.refused, history.replace for a compaction's summary,
// context.text for a zone of the system text) and Seq its seq; Session is
// set when it is another session's (a branch's parent).
type CallOrigin struct {
	Event   string `json:"event"`
	Seq     int64  `json:"seq"`
	Session string `json:"session,omitempty"`
	// A zone of the system text: its name, the text's hash and the parts
	// it was assembled from.
	Zone  string   `json:"zone,omitempty"`
	Hash  string   `json:"hash,omitempty"`
	Parts []string `json:"parts,omitempty"`
	// A summary: the seqs it stands for and the compaction's strategy.
	From     int64  `json:"from,omitempty"`
	To       int64  `json:"to,omitempty"`
	Strategy string `json:"strategy,omitempty"`
}

// How a message differs from the call before (CallDiff).
type CallChange string

const (
	ChangeSame    CallChange = "same"
	ChangeAdded   CallChange = "added"
	ChangeChanged CallChange = "changed" // the same origin with another text (a zone of the system text)
)

// CallTool is one tool declaration of the request.
type CallTool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Tokens      int    `json:"tokens"`
}

// CallTokens is the request's size against the model's window. Every
// figure but Counted is Quire's estimate (kernel/compact: about four
// characters a token, plus each message's wrapping); Counted is the
// model's own count of the prompt (Ollama's prompt_eval_count, 0: unknown).
type CallTokens struct {
	Total    int  `json:"total"`
	System   int  `json:"system"`
	History  int  `json:"history"`
	Tools    int  `json:"tools"`
	Window   int  `json:"window"`
	Counted  int  `json:"counted"`
	Estimate bool `json:"estimate"`
}

// CallReply is the assistant.message that answered the call.
type CallReply struct {
	Seq          int64          `json:"seq"`
	At           time.Time      `json:"at"`
	Content      string         `json:"content"`
	Thinking     string         `json:"thinking,omitempty"`
	ToolCalls    []CallToolCall `json:"toolCalls,omitempty"`
	DoneReason   string         `json:"doneReason"`
	Interrupted  bool           `json:"interrupted,omitempty"`
	PromptTokens int            `json:"promptTokens"`
	OutputTokens int            `json:"outputTokens"`
	// DurationNS is the model's own time (Ollama's total_duration);
	// FirstTokenNS and TotalNS are read from the log's times: from the
	// asking event to the first streamed piece and to the reply.
	DurationNS   int64 `json:"durationNs"`
	FirstTokenNS int64 `json:"firstTokenNs,omitempty"`
	TotalNS      int64 `json:"totalNs"`
	Cut          bool  `json:"cut,omitempty"`
}

// CallFail is the stream.failed that ended the call, and the retry that
// followed it, if one did.
type CallFail struct {
	Seq         int64  `json:"seq"`
	Class       string `json:"class"`
	Message     string `json:"message"`
	RetrySeq    int64  `json:"retrySeq"` // -1: not retried
	RetryReason string `json:"retryReason,omitempty"`
}

// CallDiff is what changed since the call before (Previous): each of
// Messages says whether it is new; Removed are the earlier call's messages
// this one no longer has — a compaction's summary stands for the ones it
// replaced (ReplacedBy: its index in the request).
type CallDiff struct {
	Previous       int              `json:"previous"`
	Added          int              `json:"added"`
	Changed        int              `json:"changed"`
	Removed        []RemovedMessage `json:"removed"`
	SystemChanged  bool             `json:"systemChanged"`
	ToolsAdded     []string         `json:"toolsAdded"`
	ToolsRemoved   []string         `json:"toolsRemoved"`
	OptionsChanged []string         `json:"optionsChanged"`
}

// RemovedMessage is a message of the call before that this one lacks.
type RemovedMessage struct {
	Role       string     `json:"role"`
	Origin     CallOrigin `json:"origin"`
	Preview    string     `json:"preview"`
	ReplacedBy int        `json:"replacedBy"` // -1: simply gone
}
