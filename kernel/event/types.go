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
	ContextText      Type = "context.text"

	// Facts of the agent loop (kernel/core reads them as messages).
	InputReceived      Type = "input.received"
	StreamFailed       Type = "stream.failed"
	StepRetried        Type = "step.retried"
	PermissionAnswered Type = "permission.answered"
	CancelRequested    Type = "cancel.requested"
	BudgetExceeded     Type = "budget.exceeded"
	CheckpointDone     Type = "checkpoint.done"
	ClockTick          Type = "clock.tick"
	RunInterrupted     Type = "run.interrupted"

	// Records the loop derives from facts.
	StepStarted         Type = "step.started"
	ToolStarted         Type = "tool.started"
	PermissionRequested Type = "permission.requested"
	ToolRefused         Type = "tool.refused"
	KernelError         Type = "kernel.error"
)

// SessionCreatedPayload is always seq 0 of a session. A branch names the
// session and seq it forks from: its history is the parent's up to and
// including that seq, then its own.
type SessionCreatedPayload struct {
	Title  string       `json:"title"`
	Parent *BranchPoint `json:"parent,omitempty"`
	// Kind is who the session is for: "" the user's own chat,
	// SessionWorker a task queue worker's run (never listed among the
	// user's chats nor found by their search).
	Kind string `json:"kind,omitempty"`
}

// The kinds of session (SessionCreatedPayload.Kind).
const (
	SessionChat   = ""
	SessionWorker = "worker"
	// SessionEvolution holds the candidates' events (evolution.go): never
	// listed among the chats, never driven by a runtime.
	SessionEvolution = "evolution"
)

// BranchPoint is where a branch leaves its parent.
type BranchPoint struct {
	Session string `json:"session"`
	Seq     int64  `json:"seq"`
}

// SessionRenamedPayload names a session. Auto marks a title Quire derived
// from the first message (no model call): it names a session the user has
// not named, and never replaces a title the user gave (the store's
// sessions index keeps the user's).
type SessionRenamedPayload struct {
	Title string `json:"title"`
	Auto  bool   `json:"auto,omitempty"`
}

// UserMessagePayload is the user's text as the model sees it: appended when
// the input is consumed by a step, which for a steer is later than it arrived.
type UserMessagePayload struct {
	Text    string `json:"text"`
	InputID string `json:"inputId,omitempty"`
	Intent  string `json:"intent,omitempty"`
	// Kind is the input's kind (InputReceivedPayload.Kind), carried so a
	// host can show Quire's own words as what they are.
	Kind string `json:"kind,omitempty"`
}

// Kinds of input besides the user's own text.
const (
	// KindContinue: Quire asks the model to continue a reply that was cut
	// off (the run.continue command); the text is what the model is told.
	KindContinue = "continue"
)

type RunStartedPayload struct {
	Model   string `json:"model"`
	InputID string `json:"inputId,omitempty"`
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
	// Invalid says why the arguments do not match the tool's schema, found
	// when the reply arrived: the call is answered with it at once, never
	// put to the user nor run.
	Invalid string `json:"invalid,omitempty"`
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
	Step        int        `json:"step,omitempty"`
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
	CallID     string `json:"callId,omitempty"`
	Name       string `json:"name"`
	Status     string `json:"status,omitempty"`
	Content    string `json:"content"`
	Full       string `json:"full,omitempty"` // the whole output when Content was cut
	Data       any    `json:"data,omitempty"`
	DurationNS int64  `json:"durationNs,omitempty"`
	Attempts   int    `json:"attempts,omitempty"`
}

// Reasons a run finishes with.
const (
	ReasonCompleted   = "completed"
	ReasonCancelled   = "cancelled"
	ReasonDenied      = "denied"
	ReasonNothingToDo = "nothing-to-do"
	ReasonError       = "error"
	ReasonMaxSteps    = "max-steps"
	ReasonMaxTools    = "max-tool-calls"
	ReasonBudget      = "budget"
	ReasonLoop        = "loop"
	ReasonInterrupted = "interrupted"
	// ReasonEmpty: the model returned nothing, even when asked again.
	ReasonEmpty = "empty"
)

// ToolDecl is a tool as frozen into a capability snapshot.
type ToolDecl struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"`
	Effects     uint8          `json:"effects"`
	Idempotency string         `json:"idempotency"`
	TimeoutNS   int64          `json:"timeoutNs"`
	Parallel    bool           `json:"parallel,omitempty"`
	// Granted are effects the user let this tool have without asking when
	// the run opened (tool.Spec.Granted), so a replay decides the same.
	Granted uint8 `json:"granted,omitempty"`
	// Foreign: the declaration was written outside Quire, by an MCP
	// server (tool.Spec.Foreign).
	Foreign bool `json:"foreign,omitempty"`
}

// Limits are the guardrails of a run (seed 002 decision 11).
type Limits struct {
	MaxSteps         int   `json:"maxSteps"`
	MaxToolCalls     int   `json:"maxToolCalls"`
	TokenBudget      int   `json:"tokenBudget"`
	MaxInputTokens   int   `json:"maxInputTokens"`
	LoopRepeats      int   `json:"loopRepeats"` // the same call with the same result this many times ends the run; below 2 means 2
	PermissionWaitNS int64 `json:"permissionWaitNs"`
}

// Capabilities are frozen when a run starts: the model, the tools, the
// policy and the limits it runs with, so a settings change mid-run affects
// only later runs. They ride on the input that opens the run.
type Capabilities struct {
	Model   string     `json:"model"`
	NumCtx  int        `json:"numCtx"`
	Profile string     `json:"profile"`
	Tools   []ToolDecl `json:"tools,omitempty"`
	Limits  Limits     `json:"limits"`
	// System is the hash of the system text (a context.text event of the
	// session holds it, stored once per distinct text); Contributors name
	// the parts it was assembled from.
	System       string   `json:"system,omitempty"`
	Contributors []string `json:"contributors,omitempty"`
	// PermissionDefault answers a permission request nobody answered in
	// time: "deny" (the default) or "allow".
	PermissionDefault string `json:"permissionDefault,omitempty"`
	// Read: the history the run starts from holds a reading tool's result
	// that this session's own log does not (a branch's parent, up to the
	// branch point), so a grant to act unasked no longer holds.
	Read bool `json:"read,omitempty"`

	// What the model can be offered. ToolsOff says why the run offers no
	// tools at all ("" when it offers them): ToolsOffModel, Ollama does not
	// list "tools" among the model's capabilities; ToolsOffRefused, Ollama
	// refused them in an earlier run. Withheld names the tools it would
	// have had; ToolModels are installed models that can call tools, for
	// the window to suggest.
	ToolsOff   string   `json:"toolsOff,omitempty"`
	Withheld   []string `json:"withheld,omitempty"`
	ToolModels []string `json:"toolModels,omitempty"`
	// ToolsWaited names the tool sources (MCP servers) that were still
	// starting when the run was asked for: it waited, bounded, until they
	// answered or failed. ToolsStarting names those still starting when
	// the wait ended, whose tools the run is not offered.
	ToolsWaited   []string `json:"toolsWaited,omitempty"`
	ToolsStarting []string `json:"toolsStarting,omitempty"`
	// LeftOut names the tools the run does not offer because all of them
	// would not fit the model's context beside the conversation (the ones
	// the user's request needs most were kept); the window says which.
	LeftOut []string `json:"leftOut,omitempty"`
	// Temperature and Think are the sampling options the user chose in
	// Settings (unset: the model's own defaults), and AboutYou the text of
	// "what Quire should know about you" the system text was assembled
	// with; all three are frozen here so a step's refreshed context and
	// `quire replay -request` use what the run started with.
	Temperature *float64 `json:"temperature,omitempty"`
	Think       *bool    `json:"think,omitempty"`
	AboutYou    string   `json:"aboutYou,omitempty"`
	// Trained is the model's trained context length as Ollama said it when
	// the run started (0: unknown); NumCtx was capped at it, as Ollama caps
	// num_ctx, so NumCtx is the context the model really has.
	Trained int `json:"trained,omitempty"`
	// Host is the Ollama address the run was started on: its steps go
	// there even when Settings moves later runs to another server (empty
	// in runs made before it was recorded: the current address).
	Host string `json:"host,omitempty"`
	// Runner is the API Host speaks (provider.Request.Runner): empty for
	// Ollama's own, which every run recorded before runners existed used.
	Runner string `json:"runner,omitempty"`
}

// Why a run offers the model no tools (Capabilities.ToolsOff).
const (
	ToolsOffModel   = "model"
	ToolsOffRefused = "refused"
)

// InputReceivedPayload is an input as it arrived. Intent is follow_up (next
// turn), steer (next step, wakes the loop) or inject (next step, does not).
// RunID and Caps are used if this input opens a run.
type InputReceivedPayload struct {
	InputID string `json:"inputId"`
	Intent  string `json:"intent"`
	Text    string `json:"text"`
	// Kind is empty for the user's own words, else one of the Kind
	// constants: the text is then Quire's, sent on the user's behalf.
	Kind  string        `json:"kind,omitempty"`
	RunID string        `json:"runId,omitempty"`
	Caps  *Capabilities `json:"caps,omitempty"`
}

type StreamFailedPayload struct {
	Step    int    `json:"step"`
	Class   string `json:"class"`
	Message string `json:"message"`
}

type StepRetriedPayload struct {
	Step    int    `json:"step"`
	Attempt int    `json:"attempt"`
	Reason  string `json:"reason"`
	AfterNS int64  `json:"afterNs"`
	// WithoutTools: from this attempt on, the run's requests declare no
	// tools (the model refused them), whatever its capabilities froze.
	WithoutTools bool `json:"withoutTools,omitempty"`
}

type PermissionAnsweredPayload struct {
	CallIDs   []string `json:"callIds"`
	Allowed   bool     `json:"allowed"`
	Feedback  string   `json:"feedback,omitempty"`
	ByDefault bool     `json:"byDefault,omitempty"`
}

type CancelRequestedPayload struct {
	Cause string `json:"cause"`
}

// BudgetExceededPayload stops a run from outside the loop: the runtime
// saw a streaming reply pass the run's budget, or repeat itself (Reason
// ReasonLoop; empty means ReasonBudget). Message is the run's sentence.
type BudgetExceededPayload struct {
	Message string `json:"message"`
	Reason  string `json:"reason,omitempty"`
}

type CheckpointDonePayload struct {
	Inputs []InputReceivedPayload `json:"inputs,omitempty"`
}

type ClockTickPayload struct{}

// RunInterruptedPayload closes a run whose work was cut off: by a restart
// (Error empty; the run ends as interrupted), or, while Quire kept running,
// by a report of that work the log could not take (Error is the sentence
// saying so; the run ends as error with it). Either way no report of the
// run's work is trusted after it: dispatched calls get unknown_completion.
type RunInterruptedPayload struct {
	Error string `json:"error,omitempty"`
}

type StepStartedPayload struct {
	Step     int      `json:"step"`
	InputIDs []string `json:"inputIds,omitempty"`
}

type ToolStartedPayload struct {
	CallID string `json:"callId"`
	Name   string `json:"name"`
}

type PermissionRequestedPayload struct {
	Calls      []ToolCall `json:"calls"`
	DeadlineNS int64      `json:"deadlineNs"`
}

// ToolRefusedPayload is a call that did not run, or whose end is unknown:
// denied, cancelled, refused by a limit, or dispatched before a crash
// (unknown_completion). The model sees Reason as the call's result.
type ToolRefusedPayload struct {
	CallID string `json:"callId"`
	Name   string `json:"name"`
	Status string `json:"status"`
	Reason string `json:"reason"`
}

// KernelErrorPayload records a message that made no sense in the phase it
// arrived in; the machine ignores it instead of panicking.
type KernelErrorPayload struct {
	Phase   string `json:"phase"`
	Message string `json:"message"`
	Problem string `json:"problem"`
}

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
	// Compaction says why and how the range was replaced, when a compaction
	// did it (kernel/compact); absent for replaces made otherwise.
	Compaction *CompactionRecord `json:"compaction,omitempty"`
}

// CompactionRecord is what a compaction records with each replace it
// makes: the strategy, what triggered it, the figures it judged by, and
// the estimated size of the whole request before and after, in tokens.
type CompactionRecord struct {
	Strategy     string    `json:"strategy"` // summarise, drop-logs, extract-facts, cut
	Trigger      string    `json:"trigger"`  // size, pollution, overflow
	Figures      Pollution `json:"figures"`
	BeforeTokens int       `json:"beforeTokens"`
	AfterTokens  int       `json:"afterTokens"`
	// Dropped names, for drop-logs, each tool output the stub stands for.
	Dropped []string `json:"dropped,omitempty"`
}

// Pollution are the figures a compaction decision reads (seed 002 decision
// 7): how full the window is, and how polluted the history is — the
// largest share from one tool, the share that repeats earlier messages,
// and the share in long tool logs. Index is the largest of the three.
type Pollution struct {
	Tokens         int     `json:"tokens"` // estimated, the whole request
	Window         int     `json:"window"`
	Fill           float64 `json:"fill"`
	TopSource      string  `json:"topSource,omitempty"`
	TopSourceShare float64 `json:"topSourceShare"`
	DuplicateRatio float64 `json:"duplicateRatio"`
	LowValueShare  float64 `json:"lowValueShare"`
	Index          float64 `json:"index"`
}

// Kind says where an event comes from: a fact happened (the runtime
// appends it and feeds it to the loop), a record is what the loop derived
// from facts (re-running the loop over the facts reproduces the records),
// and plain events belong to neither (sessions, compaction).
type Kind uint8

const (
	Plain Kind = iota
	Fact
	Record
)

// ContextTextPayload is an assembled system text, stored once per session for
// each distinct text and referred to by its hash.
type ContextTextPayload struct {
	Hash  string     `json:"hash"`
	Zones []ZoneText `json:"zones"`
	Parts []string   `json:"parts,omitempty"`
}

// ZoneText is the text of one zone of the context (kernel/prompt): sent as
// its own system message, in zone order, before the history.
type ZoneText struct {
	Zone string `json:"zone"`
	Text string `json:"text"`
}

type spec struct {
	payload    reflect.Type
	visibility Visibility
	ignorable  bool
	projected  bool
	kind       Kind
}

func specOf[T any](v Visibility, ignorable, projected bool, kind ...Kind) spec {
	sp := spec{payload: reflect.TypeFor[T](), visibility: v, ignorable: ignorable, projected: projected}
	if len(kind) > 0 {
		sp.kind = kind[0]
	}
	return sp
}

// specs is the registry. It is read-only after package initialisation.
var specs = map[Type]spec{
	SessionCreated: specOf[SessionCreatedPayload](Public, false, false),
	SessionRenamed: specOf[SessionRenamedPayload](Public, false, false),
	HistoryReplace: specOf[HistoryReplacePayload](Public, false, true),
	ContextText:    specOf[ContextTextPayload](Internal, false, false),

	InputReceived:      specOf[InputReceivedPayload](Public, false, false, Fact),
	AssistantDelta:     specOf[AssistantDeltaPayload](Public, true, false, Fact),
	AssistantMessage:   specOf[AssistantMessagePayload](Public, false, true, Fact),
	StreamFailed:       specOf[StreamFailedPayload](Public, false, false, Fact),
	StepRetried:        specOf[StepRetriedPayload](Internal, false, false, Fact),
	ToolResult:         specOf[ToolResultPayload](Public, false, true, Fact),
	PermissionAnswered: specOf[PermissionAnsweredPayload](Public, false, false, Fact),
	CancelRequested:    specOf[CancelRequestedPayload](Public, false, false, Fact),
	BudgetExceeded:     specOf[BudgetExceededPayload](Public, false, false, Fact),
	CheckpointDone:     specOf[CheckpointDonePayload](Internal, false, false, Fact),
	ClockTick:          specOf[ClockTickPayload](Internal, false, false, Fact),
	RunInterrupted:     specOf[RunInterruptedPayload](Internal, false, false, Fact),

	UserMessage:         specOf[UserMessagePayload](Public, false, true, Record),
	RunStarted:          specOf[RunStartedPayload](Public, false, false, Record),
	StepStarted:         specOf[StepStartedPayload](Internal, false, false, Record),
	ToolStarted:         specOf[ToolStartedPayload](Public, false, false, Record),
	PermissionRequested: specOf[PermissionRequestedPayload](Public, false, false, Record),
	ToolRefused:         specOf[ToolRefusedPayload](Public, false, true, Record),
	RunFinished:         specOf[RunFinishedPayload](Public, false, false, Record),
	KernelError:         specOf[KernelErrorPayload](Internal, false, false, Record),

	ModelConsulted: specOf[ModelConsultedPayload](Internal, true, false),
	MemoryRemember: specOf[MemoryRememberPayload](Internal, false, false),
	MemoryEdit:     specOf[MemoryEditPayload](Internal, false, false),
	MemoryForget:   specOf[MemoryForgetPayload](Internal, false, false),
	MemoryReview:   specOf[MemoryReviewPayload](Internal, false, false),

	NoteUndone:    specOf[NoteUndonePayload](Public, false, false),
	NoteRecovered: specOf[NoteRecoveredPayload](Public, false, false),

	EvolutionSignal:     specOf[EvolutionSignalPayload](Internal, false, false),
	EvolutionObserved:   specOf[EvolutionObservedPayload](Internal, false, false),
	EvolutionCandidate:  specOf[EvolutionCandidatePayload](Internal, false, false),
	EvolutionEvaluated:  specOf[EvolutionEvaluatedPayload](Internal, false, false),
	EvolutionApproved:   specOf[EvolutionApprovedPayload](Internal, false, false),
	EvolutionRefused:    specOf[EvolutionRefusedPayload](Internal, false, false),
	EvolutionActivated:  specOf[EvolutionActivatedPayload](Internal, false, false),
	EvolutionRolledBack: specOf[EvolutionRolledBackPayload](Internal, false, false),

	StandingFiring: specOf[StandingFiringPayload](Internal, false, false),
}

// KindOf says whether events of type t are facts, records or neither.
func KindOf(t Type) Kind { return specs[t].kind }

// Projected reports whether events of type t become model messages.
func Projected(t Type) bool { return specs[t].projected }

// PayloadType is the Go type of the payload of events of type t, and false
// when t is not registered. The frontend's TypeScript types are generated
// from it (buildkit/tsgen), so the registry is the one source of both.
func PayloadType(t Type) (reflect.Type, bool) {
	sp, ok := specs[t]
	return sp.payload, ok
}

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
	// TitleSource is where Title came from: TitleCreated (the session's
	// creation, "New chat" when none was given), TitleAuto or TitleUser.
	TitleSource string
	// Kind is the session.created payload's Kind.
	Kind string
}

// Where a session's title came from (SessionSummary.TitleSource).
const (
	TitleCreated = "created"
	TitleAuto    = "auto"
	TitleUser    = "user"
)
