package core

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"quire/kernel/event"
	"quire/kernel/tool"
)

// Phase is what the loop is doing.
type Phase int

const (
	Idle Phase = iota
	Streaming
	AwaitingPermission
	ExecutingTools
	Closing
)

func (p Phase) String() string {
	return [...]string{"idle", "streaming", "awaiting-permission", "executing-tools", "closing"}[p]
}

// Intent says when an input is taken up (seed 000 §6).
type Intent string

const (
	FollowUp Intent = "follow_up" // next run; wakes an idle loop
	Steer    Intent = "steer"     // next step of this run; wakes an idle loop
	Inject   Intent = "inject"    // next step whenever it comes; never wakes
	// Note is Quire's own word to the model, taken up by the step it opens
	// like a steer; no host sends one (EmptyReplyNote).
	Note Intent = "note"
)

// An empty reply (no text, no call: Ollama returns one when the model
// called a tool the request did not offer) is asked again once, with this
// note; a second one ends the run with EmptyReplySentence.
const (
	EmptyReplyNote     = "Your last reply was empty: no text and no tool call. Answer in text, or call one of the tools you were given (only those exist)."
	EmptyReplySentence = "The model returned nothing, even when asked again. Retry, or choose another model in Settings."
)

// Input is something to tell the model.
type Input = event.InputReceivedPayload

// Model is the loop's state. It is a value: Update never changes the slices
// of the Model it was given.
type Model struct {
	Phase Phase
	// Queue holds inputs not yet consumed, in arrival order. Steers and
	// injects survive a cancel here until a step consumes them.
	Queue []Input
	Run   Run // the open run; Run.ID is empty when there is none
	// LastPromptTokens is Ollama's count for the last step, the base of the
	// next step's estimate.
	LastPromptTokens int
	// Read is set once the session has had a result from a tool that reads
	// or reaches the network (ReadFs: search_docs, read_note, ...; Net: an
	// MCP server's tools), or a run that offered a tool an MCP server
	// declared (its description is in every request): from then on what the model
	// proposes may come from a document's or a note's text, so a grant to
	// act without asking no longer holds (tool.DecideGranted). It is a fold
	// of the session's tool results, so a replay decides the same.
	Read bool
}

// Run is the state of the open run (one turn: one request of the user).
type Run struct {
	ID        string
	Caps      event.Capabilities
	Step      int // steps started
	ToolCalls int // calls dispatched
	Tokens    int // prompt + output tokens used so far
	Calls     []tool.Call
	Done      []string // call ids of Calls that have a result
	Asking    []string // call ids waiting for the user
	Deadline  time.Time
	// Stopping, when not empty, is "reason\x00message": the run ends that
	// way once nothing is in flight.
	Stopping    string
	LastCall    string // signature of the last call and its result, for loop detection
	Repeats     int
	PendingText int // characters added since the last step, for the estimate
	// Nudged: an empty reply was already asked again in this run.
	Nudged bool
}

// Open reports whether a run is open.
func (m Model) Open() bool { return m.Run.ID != "" }

// Step is what Update returns.
type Step struct {
	Model   Model
	Records []event.Draft
	Cmds    []Cmd
}

// Update applies one fact.
func Update(m Model, msg Msg) Step {
	s := &stepper{m: m, at: msg.time()}
	s.m.Queue = slices.Clone(m.Queue)
	s.m.Run.Calls = slices.Clone(m.Run.Calls)
	s.m.Run.Done = slices.Clone(m.Run.Done)
	s.m.Run.Asking = slices.Clone(m.Run.Asking)
	s.apply(msg)
	return Step{Model: s.m, Records: s.records, Cmds: s.cmds}
}

type stepper struct {
	m       Model
	at      time.Time
	records []event.Draft
	cmds    []Cmd
}

func (s *stepper) record(t event.Type, payload any) {
	s.records = append(s.records, event.Draft{Type: t, Time: s.at, RunID: s.m.Run.ID, Payload: payload})
}

func (s *stepper) cmd(c Cmd) { s.cmds = append(s.cmds, c) }

// nonsense records a message that does not fit the phase and changes nothing.
func (s *stepper) nonsense(msg Msg, problem string) {
	s.records = append(s.records, event.Draft{Type: event.KernelError, Time: s.at, RunID: s.m.Run.ID,
		Payload: event.KernelErrorPayload{Phase: s.m.Phase.String(), Message: msg.name(), Problem: problem}})
}

func (s *stepper) apply(msg Msg) {
	switch x := msg.(type) {
	case Submitted:
		s.submitted(x)
	case StreamDelta:
		if s.m.Phase != Streaming || x.RunID != s.m.Run.ID {
			s.nonsense(msg, "a streamed piece arrived while no reply was streaming")
		}
	case StreamFinished:
		s.streamFinished(x)
	case StreamFailed:
		s.streamFailed(x)
	case StepRetried:
		if s.m.Phase != Streaming || x.RunID != s.m.Run.ID || x.Step != s.m.Run.Step || s.m.Run.Stopping != "" {
			s.nonsense(msg, "a retry arrived while no reply was streaming")
			return
		}
		s.cmd(StartStream{RunID: s.m.Run.ID, Step: s.m.Run.Step, After: x.After, Attempt: x.Attempt})
	case ToolFinished:
		s.toolFinished(x)
	case PermissionAnswered:
		s.permissionAnswered(x)
	case CancelRequested:
		s.cancelRequested(x)
	case BudgetExceeded:
		if !s.m.Open() || x.RunID != s.m.Run.ID {
			s.nonsense(msg, "a budget signal arrived for no open run")
			return
		}
		reason := event.ReasonBudget
		if x.Reason == event.ReasonLoop {
			reason = event.ReasonLoop
		}
		s.stop(reason, x.Message)
	case CheckpointDone:
		s.checkpointDone(x)
	case Tick:
		s.tick(x)
	case Interrupted:
		s.interrupted(x)
	default:
		s.nonsense(msg, "unknown message")
	}
}

// submitted queues an input, and opens a run or a step if that is its intent.
func (s *stepper) submitted(x Submitted) {
	in := x.Input
	switch Intent(in.Intent) {
	case FollowUp, Steer, Inject:
	default:
		s.nonsense(x, fmt.Sprintf("unknown intent %q", in.Intent))
		return
	}
	s.m.Queue = append(s.m.Queue, in)
	if s.m.Phase == Idle && Intent(in.Intent) != Inject {
		s.openNextRun()
	}
}

// openNextRun opens a run for the first waiting follow-up or steer, if any.
func (s *stepper) openNextRun() {
	i := slices.IndexFunc(s.m.Queue, func(in Input) bool { return Intent(in.Intent) != Inject })
	if i < 0 {
		return
	}
	opener := s.m.Queue[i]
	if opener.RunID == "" {
		s.m.Queue = slices.Delete(s.m.Queue, i, i+1)
		s.nonsense(Submitted{At: s.at, Input: opener}, "an input that may open a run came without a run id")
		s.openNextRun() // the inputs behind it must not wait for the next message
		return
	}
	caps := event.Capabilities{}
	if opener.Caps != nil {
		caps = *opener.Caps
	}
	s.m.Run = Run{ID: opener.RunID, Caps: caps}
	if caps.Read || slices.ContainsFunc(caps.Tools, func(d event.ToolDecl) bool { return d.Foreign }) {
		// Read in the history a branch inherits, or a declaration an MCP
		// server wrote, which the model reads in every request of the run.
		s.m.Read = true
	}
	s.record(event.RunStarted, event.RunStartedPayload{Model: caps.Model, InputID: opener.InputID})
	if strings.TrimSpace(opener.Text) == "" {
		s.m.Queue = slices.Delete(s.m.Queue, i, i+1)
		s.close(event.ReasonNothingToDo, "")
		return
	}
	if max := caps.Limits.MaxInputTokens; max > 0 && estimate(len(opener.Text)) > max {
		s.m.Queue = slices.Delete(s.m.Queue, i, i+1)
		s.close(event.ReasonDenied, fmt.Sprintf("Your message is too long for the model to read (about %d tokens; at most %d fit). Shorten it or split it.", estimate(len(opener.Text)), max))
		return
	}
	s.startStep(i)
}

// startStep consumes the queued inputs that belong to the next step — the
// opener at index first (or -1), then every steer and inject — checks the
// guardrails and asks for a reply.
func (s *stepper) startStep(first int) {
	r := &s.m.Run
	// A run that ends before its first step drops the input that opened it:
	// left queued, it would open the same run again at once, for ever.
	dropOpener := func() {
		if first >= 0 {
			s.m.Queue = slices.Delete(s.m.Queue, first, first+1)
		}
	}
	if max := r.Caps.Limits.MaxSteps; max > 0 && r.Step >= max {
		dropOpener()
		s.close(event.ReasonMaxSteps, fmt.Sprintf("Stopped after %d steps, the most one request may take. Ask again to continue.", max))
		return
	}
	var consumed []Input
	var kept []Input
	for i, in := range s.m.Queue {
		if i == first || Intent(in.Intent) == Steer || Intent(in.Intent) == Inject || Intent(in.Intent) == Note {
			consumed = append(consumed, in)
		} else {
			kept = append(kept, in)
		}
	}
	for _, in := range consumed {
		r.PendingText += len(in.Text)
	}
	if budget := r.Caps.Limits.TokenBudget; budget > 0 && r.Tokens+s.m.LastPromptTokens+estimate(r.PendingText) > budget {
		dropOpener()
		s.close(event.ReasonBudget, fmt.Sprintf("Stopped: the next step would pass this request's budget of %d tokens.", budget))
		return
	}
	s.m.Queue = kept
	r.Step++
	r.Calls, r.Done, r.Asking = nil, nil, nil
	ids := make([]string, len(consumed))
	for i, in := range consumed {
		ids[i] = in.InputID
		s.record(event.UserMessage, event.UserMessagePayload{Text: in.Text, InputID: in.InputID, Intent: in.Intent, Kind: in.Kind})
	}
	s.record(event.StepStarted, event.StepStartedPayload{Step: r.Step, InputIDs: ids})
	s.m.Phase = Streaming
	s.cmd(StartStream{RunID: r.ID, Step: r.Step})
}

func estimate(chars int) int { return (chars + 3) / 4 }

// doneLength is the done reason of a reply the server cut at the
// request's num_predict (Ollama's llm.DoneReasonLength).
const doneLength = "length"

func (s *stepper) streamFinished(x StreamFinished) {
	if s.m.Phase != Streaming || x.RunID != s.m.Run.ID || x.Step != s.m.Run.Step {
		s.nonsense(x, "a reply finished while none was streaming")
		return
	}
	r := &s.m.Run
	r.Tokens += x.PromptTokens + x.OutputTokens
	if x.PromptTokens > 0 {
		s.m.LastPromptTokens = x.PromptTokens
	}
	r.PendingText = len(x.Content)
	// The Model keeps its own copy of the calls: it must not change when the
	// caller reuses the message.
	calls := slices.Clone(x.Calls)
	if r.Stopping != "" {
		if !x.Interrupted {
			// The reply was complete before the stop reached the stream: its
			// calls are in the log, so each gets a result without running.
			r.Calls = calls
			s.refuseAll(tool.Cancelled, "Not run: the request was stopped before this call could start.")
		}
		s.settle()
		return
	}
	if x.Interrupted {
		// The stream broke after this partial reply; the failure follows.
		return
	}
	if budget := r.Caps.Limits.TokenBudget; budget > 0 && r.Tokens > budget {
		r.Calls = calls
		s.refuseAll(tool.Cancelled, "Not run: the request ran out of its token budget.")
		s.close(event.ReasonBudget, fmt.Sprintf("Stopped: this request used %d tokens, over its budget of %d.", r.Tokens, budget))
		return
	}
	if x.DoneReason == doneLength {
		r.Calls = calls
		s.refuseAll(tool.Cancelled, "Not run: the reply was cut off at its length limit.")
		s.close(event.ReasonBudget, fmt.Sprintf("Stopped: the reply reached its limit of %d tokens (the room left in the model's context, or in this request's budget) and was cut off there. What it wrote is kept; ask it to continue, or for a shorter answer.", x.OutputTokens))
		return
	}
	if len(calls) == 0 && strings.TrimSpace(x.Content) == "" {
		s.emptyReply()
		return
	}
	if len(calls) == 0 {
		s.afterStep()
		return
	}
	r.Calls = calls
	if max := r.Caps.Limits.MaxToolCalls; max > 0 && r.ToolCalls+len(calls) > max {
		s.refuseAll(tool.Denied, fmt.Sprintf("Not run: this request may make at most %d tool calls.", max))
		s.close(event.ReasonMaxTools, fmt.Sprintf("Stopped: the assistant asked for more than %d tool calls for one request.", max))
		return
	}
	r.ToolCalls += len(calls)
	var run, ask []tool.Call
	for _, c := range calls {
		decl, ok := s.decl(c.Name)
		switch {
		case !ok:
			s.refuse(c, tool.Failure, fmt.Sprintf("There is no tool named %q. Use one of: %s.", c.Name, s.toolNames()))
		case x.Invalid[c.ID] != "":
			s.refuse(c, tool.Failure, x.Invalid[c.ID])
		default:
			switch tool.DecideGranted(tool.Effect(decl.Effects), tool.Profile(r.Caps.Profile), tool.Effect(decl.Granted), s.m.Read) {
			case tool.Allow:
				run = append(run, c)
			case tool.Ask:
				ask = append(ask, c)
			default:
				s.refuse(c, tool.Denied, fmt.Sprintf("Not allowed: %s may not run under the %q profile.", c.Name, r.Caps.Profile))
			}
		}
	}
	s.dispatch(run)
	if len(ask) > 0 {
		r.Asking = ids(ask)
		wait := time.Duration(r.Caps.Limits.PermissionWaitNS)
		if wait > 0 {
			r.Deadline = s.at.Add(wait)
		}
		calls := make([]event.ToolCall, len(ask))
		for i, c := range ask {
			calls[i] = event.ToolCall{ID: c.ID, Name: c.Name, Arguments: string(c.Arguments)}
		}
		var deadline int64
		if !r.Deadline.IsZero() {
			deadline = r.Deadline.UnixNano()
		}
		s.record(event.PermissionRequested, event.PermissionRequestedPayload{Calls: calls, DeadlineNS: deadline})
		s.cmd(AskPermission{RunID: r.ID, Calls: ask, Deadline: r.Deadline})
		s.m.Phase = AwaitingPermission
		return
	}
	s.afterCalls()
}

func ids(calls []tool.Call) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.ID
	}
	return out
}

func (s *stepper) decl(name string) (event.ToolDecl, bool) {
	i := slices.IndexFunc(s.m.Run.Caps.Tools, func(d event.ToolDecl) bool { return d.Name == name })
	if i < 0 {
		return event.ToolDecl{}, false
	}
	return s.m.Run.Caps.Tools[i], true
}

func (s *stepper) toolNames() string {
	names := make([]string, len(s.m.Run.Caps.Tools))
	for i, d := range s.m.Run.Caps.Tools {
		names[i] = d.Name
	}
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}

func (s *stepper) dispatch(calls []tool.Call) {
	for _, c := range calls {
		s.record(event.ToolStarted, event.ToolStartedPayload{CallID: c.ID, Name: c.Name})
		decl, _ := s.decl(c.Name)
		s.cmd(RunTool{RunID: s.m.Run.ID, Call: c, Timeout: time.Duration(decl.TimeoutNS)})
	}
	if len(calls) > 0 {
		s.m.Phase = ExecutingTools
	}
}

// refuse gives a call a result without running it.
func (s *stepper) refuse(c tool.Call, status tool.Status, reason string) {
	s.record(event.ToolRefused, event.ToolRefusedPayload{CallID: c.ID, Name: c.Name, Status: string(status), Reason: reason})
	s.m.Run.Done = append(s.m.Run.Done, c.ID)
}

// refuseAll refuses every call of the step that has no result yet.
func (s *stepper) refuseAll(status tool.Status, reason string) {
	for _, c := range s.m.Run.Calls {
		if !slices.Contains(s.m.Run.Done, c.ID) {
			s.refuse(c, status, reason)
		}
	}
}

// inFlight lists the calls dispatched and not finished.
func (s *stepper) inFlight() []string {
	var out []string
	for _, c := range s.m.Run.Calls {
		if !slices.Contains(s.m.Run.Done, c.ID) && !slices.Contains(s.m.Run.Asking, c.ID) {
			out = append(out, c.ID)
		}
	}
	return out
}

// afterCalls moves on once every call of the step has a result.
func (s *stepper) afterCalls() {
	if len(s.inFlight()) > 0 || len(s.m.Run.Asking) > 0 {
		if len(s.m.Run.Asking) == 0 {
			s.m.Phase = ExecutingTools
		}
		return
	}
	if s.m.Run.Stopping != "" {
		s.finishIfSettled()
		return
	}
	if s.m.Run.Repeats >= max(2, s.m.Run.Caps.Limits.LoopRepeats) {
		s.close(event.ReasonLoop, fmt.Sprintf("Stopped: the assistant made the same call with the same result %d times in a row.", s.m.Run.Repeats))
		return
	}
	s.startStep(-1)
}

// emptyReply is a step that said nothing and called nothing: the first in
// a run opens one more step with a note to the model (a user.message of
// intent note, so the request is rebuilt from the log); the second ends
// the run, saying so, rather than showing nothing.
func (s *stepper) emptyReply() {
	r := &s.m.Run
	if r.Nudged {
		s.close(event.ReasonEmpty, EmptyReplySentence)
		return
	}
	r.Nudged = true
	s.m.Queue = append(s.m.Queue, Input{InputID: fmt.Sprintf("%s-note-%d", r.ID, r.Step), Intent: string(Note), Text: EmptyReplyNote})
	s.startStep(-1)
}

// afterStep is a step that asked for no tools: the run continues if a steer
// is waiting, otherwise it goes to the pre-close checkpoint.
func (s *stepper) afterStep() {
	if slices.ContainsFunc(s.m.Queue, func(in Input) bool { return Intent(in.Intent) == Steer }) {
		s.startStep(-1)
		return
	}
	s.m.Phase = Closing
	s.cmd(RunCheckpoint{RunID: s.m.Run.ID})
}

func (s *stepper) checkpointDone(x CheckpointDone) {
	if s.m.Phase != Closing || x.RunID != s.m.Run.ID {
		s.nonsense(x, "a checkpoint finished while the run was not closing")
		return
	}
	if s.m.Run.Stopping != "" {
		s.settle()
		return
	}
	for _, in := range x.Inputs {
		in.Intent = string(Steer) // a checkpoint extends this run
		s.m.Queue = append(s.m.Queue, in)
	}
	// A hook's input, or a steer that came while the hooks ran, extends the run.
	if slices.ContainsFunc(s.m.Queue, func(in Input) bool { return Intent(in.Intent) == Steer }) {
		s.startStep(-1)
		return
	}
	s.close(event.ReasonCompleted, "")
}

func (s *stepper) toolFinished(x ToolFinished) {
	r := &s.m.Run
	i := slices.IndexFunc(r.Calls, func(c tool.Call) bool { return c.ID == x.CallID })
	if x.RunID != r.ID || i < 0 || slices.Contains(r.Done, x.CallID) || slices.Contains(r.Asking, x.CallID) {
		s.nonsense(x, "a tool result arrived for a call that is not running")
		return
	}
	r.Done = append(r.Done, x.CallID)
	r.PendingText += len(x.Content)
	// A networked tool's result (an MCP server's, write+net unless declared
	// read-only) is outside text as much as a note is.
	if decl, ok := s.decl(r.Calls[i].Name); ok && (decl.Foreign || tool.Effect(decl.Effects)&(tool.ReadFs|tool.Net) != 0) {
		s.m.Read = true
	}
	sig := signature(r.Calls[i], x.Status, x.Content)
	if sig == r.LastCall {
		r.Repeats++
	} else {
		r.LastCall, r.Repeats = sig, 1
	}
	s.afterCalls()
}

func signature(c tool.Call, status, content string) string {
	h := sha256.Sum256([]byte(c.Name + "\x00" + string(c.Arguments) + "\x00" + status + "\x00" + content))
	return hex.EncodeToString(h[:8])
}

func (s *stepper) permissionAnswered(x PermissionAnswered) {
	r := &s.m.Run
	if s.m.Phase != AwaitingPermission || x.RunID != r.ID || !sameSet(x.CallIDs, r.Asking) {
		s.nonsense(x, "an answer arrived for a question that was not asked")
		return
	}
	asked := r.Asking
	r.Asking, r.Deadline = nil, time.Time{}
	var allowed []tool.Call
	for _, c := range r.Calls {
		if !slices.Contains(asked, c.ID) {
			continue
		}
		if x.Allowed && r.Stopping == "" {
			allowed = append(allowed, c)
			continue
		}
		reason := "The user said no to this call."
		if x.ByDefault {
			reason = "Nobody answered the request to run this call in time, so it was not run."
		}
		if x.Feedback != "" {
			reason += " The user's reason: " + x.Feedback
		}
		s.refuse(c, tool.Denied, reason)
	}
	s.dispatch(allowed)
	s.afterCalls()
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

func (s *stepper) tick(x Tick) {
	r := &s.m.Run
	if s.m.Phase != AwaitingPermission || r.Deadline.IsZero() || x.At.Before(r.Deadline) {
		return // ticks are harmless whenever they come
	}
	allow := r.Caps.PermissionDefault == "allow"
	s.permissionAnswered(PermissionAnswered{At: x.At, RunID: r.ID, CallIDs: r.Asking, Allowed: allow, ByDefault: true})
}

func (s *stepper) streamFailed(x StreamFailed) {
	if s.m.Phase != Streaming || x.RunID != s.m.Run.ID || x.Step != s.m.Run.Step {
		s.nonsense(x, "a reply failed while none was streaming")
		return
	}
	if s.m.Run.Stopping != "" {
		s.settle()
		return
	}
	s.close(event.ReasonError, x.Message)
}

func (s *stepper) cancelRequested(x CancelRequested) {
	if !s.m.Open() || (x.RunID != "" && x.RunID != s.m.Run.ID) {
		// Nothing to cancel, or a Stop meant for a run that already ended:
		// harmless, like pressing Stop twice.
		return
	}
	s.stop(event.ReasonCancelled, x.Cause)
}

// stop ends the run for reason once what is in flight has settled: the
// stream and the tools are told to stop, calls waiting for the user are
// refused, and the run closes when nothing is left running.
func (s *stepper) stop(reason, message string) {
	r := &s.m.Run
	if r.Stopping != "" {
		return
	}
	r.Stopping = reason + "\x00" + message
	for _, id := range r.Asking {
		i := slices.IndexFunc(r.Calls, func(c tool.Call) bool { return c.ID == id })
		s.refuse(r.Calls[i], tool.Cancelled, "Not run: the request was stopped before the user answered.")
	}
	r.Asking, r.Deadline = nil, time.Time{}
	if s.m.Phase == Streaming || s.m.Phase == Closing || len(s.inFlight()) > 0 {
		s.cmd(CancelRun{RunID: r.ID, Cause: message})
	}
	s.finishIfSettled()
}

// settle is the report of the stream or the checkpoint of a stopping run:
// that work is no longer in flight.
func (s *stepper) settle() {
	s.m.Phase = ExecutingTools
	s.finishIfSettled()
}

// finishIfSettled closes a stopping run once nothing is in flight: the
// stream and the checkpoint report when they stop, and every dispatched
// tool reports a result (the runtime gives a cancelled one to a tool that
// does not stop in time).
func (s *stepper) finishIfSettled() {
	if s.m.Phase == Streaming || s.m.Phase == Closing {
		return
	}
	if len(s.inFlight()) > 0 {
		s.m.Phase = ExecutingTools
		return
	}
	reason, message, _ := strings.Cut(s.m.Run.Stopping, "\x00")
	s.close(reason, message)
}

func (s *stepper) interrupted(x Interrupted) {
	if !s.m.Open() {
		return
	}
	r := &s.m.Run
	for _, c := range r.Calls {
		if slices.Contains(r.Done, c.ID) {
			continue
		}
		if slices.Contains(r.Asking, c.ID) {
			s.refuse(c, tool.Cancelled, "Not run: Quire stopped before the user answered.")
			continue
		}
		s.refuse(c, tool.UnknownCompletion, "Quire stopped while this call was running; it may or may not have taken effect. It was not run again: check before repeating it.")
	}
	if x.Error != "" {
		s.close(event.ReasonError, x.Error)
		return
	}
	s.close(event.ReasonInterrupted, "Quire stopped before this request finished.")
}

// close ends the run with its one terminal record and moves to the next
// waiting follow-up, if any.
func (s *stepper) close(reason, message string) {
	s.record(event.RunFinished, event.RunFinishedPayload{Reason: reason, Error: message})
	// A note belongs to the run that made it: never to the next.
	s.m.Queue = slices.DeleteFunc(s.m.Queue, func(in Input) bool { return Intent(in.Intent) == Note })
	s.m.Run = Run{}
	s.m.Phase = Idle
	s.openNextRun()
}
