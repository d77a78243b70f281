package core

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"quire/kernel/event"
	"quire/kernel/tool"
)

// Fixtures shared by the tests of the loop: a clock, tools of each effect,
// capability snapshots and inputs as the runtime builds them.

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

const permissionWait = time.Minute

var (
	readTool  = event.ToolDecl{Name: "read_note", Effects: uint8(tool.ReadFs), Idempotency: string(tool.Safe), TimeoutNS: int64(time.Second)}
	writeTool = event.ToolDecl{Name: "write_note", Effects: uint8(tool.WriteFs), Idempotency: string(tool.Unsafe), TimeoutNS: int64(2 * time.Second)}
	fetchTool = event.ToolDecl{Name: "fetch", Effects: uint8(tool.Net), Idempotency: string(tool.Safe), TimeoutNS: int64(3 * time.Second)}
	shellTool = event.ToolDecl{Name: "shell", Effects: uint8(tool.Exec | tool.WriteFs), Idempotency: string(tool.Unsafe), TimeoutNS: int64(4 * time.Second)}
	pureTool  = event.ToolDecl{Name: "clock", Effects: 0, Idempotency: string(tool.Safe), TimeoutNS: int64(time.Second)}
)

// capsWith returns the snapshot most tests run with — profile "ask", every
// tool, a one-minute permission wait and no other limit — changed by edits.
func capsWith(edits ...func(*event.Capabilities)) *event.Capabilities {
	c := &event.Capabilities{
		Model:   "qwen3:4b",
		NumCtx:  8192,
		Profile: string(tool.AskMe),
		Tools:   []event.ToolDecl{readTool, writeTool, fetchTool, shellTool, pureTool},
		Limits:  event.Limits{PermissionWaitNS: int64(permissionWait)},
	}
	for _, e := range edits {
		e(c)
	}
	return c
}

func profile(p tool.Profile) func(*event.Capabilities) {
	return func(c *event.Capabilities) { c.Profile = string(p) }
}

func limits(edit func(*event.Limits)) func(*event.Capabilities) {
	return func(c *event.Capabilities) { edit(&c.Limits) }
}

// followUp is an input that opens run runID when it is taken up.
func followUp(inputID, runID, text string, caps *event.Capabilities) Input {
	return Input{InputID: inputID, Intent: string(FollowUp), Text: text, RunID: runID, Caps: caps}
}

// steer carries a run id and caps too, as the runtime gives them: it opens a
// run if the one it was meant for has ended.
func steer(inputID, runID, text string, caps *event.Capabilities) Input {
	return Input{InputID: inputID, Intent: string(Steer), Text: text, RunID: runID, Caps: caps}
}

func inject(inputID, text string) Input {
	return Input{InputID: inputID, Intent: string(Inject), Text: text}
}

func call(id string, d event.ToolDecl) tool.Call {
	return tool.Call{ID: id, Name: d.Name, Arguments: json.RawMessage(`{"path":"notes/` + id + `.md"}`)}
}

// loop drives Update the way the runtime does: each message becomes its
// fact event, and the fact and the records Update derives from it are
// appended to a log. Every step is checked (see checkStep), and when the test
// ends the log must pass Verify and Replay and fold back to the same Model.
type loop struct {
	t   *testing.T
	m   Model
	now time.Time
	log []event.Event
	// strayFacts marks a log with facts the runtime never appends (a tool
	// result for no running call): Verify rightly rejects such a log, so it
	// is not run; Replay and Fold still are.
	strayFacts bool
}

func newLoop(t *testing.T) *loop {
	t.Helper()
	l := &loop{t: t, now: t0}
	t.Cleanup(l.checkLog)
	return l
}

// send applies msg, stamped with the loop's clock if it has no time.
func (l *loop) send(msg Msg) Step {
	l.t.Helper()
	if msg.time().IsZero() {
		l.now = l.now.Add(time.Second)
		msg = stamp(msg, l.now)
	} else if msg.time().After(l.now) {
		l.now = msg.time()
	}
	step := checkStep(l.t, l.m, msg)
	l.appendDraft(factOf(msg))
	for _, r := range step.Records {
		l.appendDraft(r)
	}
	l.m = step.Model
	return step
}

func (l *loop) appendDraft(d event.Draft) {
	l.t.Helper()
	enc, err := event.Encode(d)
	if err != nil {
		l.t.Fatalf("encode %s: %v", d.Type, err)
	}
	l.log = append(l.log, event.Event{Session: "s1", Seq: int64(len(l.log) + 1), Type: enc.Type, Time: enc.Time,
		RunID: enc.RunID, Ignorable: enc.Ignorable, Visibility: enc.Visibility, Sources: enc.Sources, Payload: enc.Payload})
}

// checkLog is what every log the loop writes must pass.
func (l *loop) checkLog() {
	l.t.Helper()
	if err := Verify(l.log); err != nil && !l.strayFacts {
		l.t.Errorf("Verify: %v", err)
	}
	if err := Replay(l.log); err != nil {
		l.t.Errorf("Replay: %v", err)
	}
	folded, err := Fold(l.log)
	if err != nil {
		l.t.Errorf("Fold: %v", err)
	} else if !reflect.DeepEqual(folded, l.m) {
		l.t.Errorf("Fold gives another Model than the one Update was driven to:\nfold   %+v\ndriven %+v", folded, l.m)
	}
	checkRunsPaired(l.t, l.log)
}

// records lists the payloads of the log's records of type typ, as T.
func records[T any](t *testing.T, evs []event.Event, typ event.Type) []T {
	t.Helper()
	var out []T
	for _, e := range evs {
		if e.Type != typ {
			continue
		}
		p, err := event.As[T](e)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// finished lists "runID:reason" for each run.finished of the log.
func (l *loop) finished() []string {
	var out []string
	for _, e := range l.log {
		if e.Type == event.RunFinished {
			p, _ := event.As[event.RunFinishedPayload](e)
			out = append(out, e.RunID+":"+p.Reason)
		}
	}
	return out
}

// checkRunsPaired: run.started and run.finished alternate strictly, each
// run id opens once and closes at most once (the last run may still be open).
func checkRunsPaired(t *testing.T, evs []event.Event) {
	t.Helper()
	open := ""
	seen := map[string]bool{}
	for _, e := range evs {
		switch e.Type {
		case event.RunStarted:
			if open != "" {
				t.Errorf("seq %d: run %s starts while %s is open", e.Seq, e.RunID, open)
			}
			if seen[e.RunID] {
				t.Errorf("seq %d: run %s starts a second time", e.Seq, e.RunID)
			}
			seen[e.RunID], open = true, e.RunID
		case event.RunFinished:
			if open == "" || e.RunID != open {
				t.Errorf("seq %d: run %s finishes while the open run is %q", e.Seq, e.RunID, open)
			}
			open = ""
		}
	}
}

// stamp gives msg the time at.
func stamp(msg Msg, at time.Time) Msg {
	switch x := msg.(type) {
	case Submitted:
		x.At = at
		return x
	case StreamDelta:
		x.At = at
		return x
	case StreamFinished:
		x.At = at
		return x
	case StreamFailed:
		x.At = at
		return x
	case StepRetried:
		x.At = at
		return x
	case ToolFinished:
		x.At = at
		return x
	case PermissionAnswered:
		x.At = at
		return x
	case CancelRequested:
		x.At = at
		return x
	case BudgetExceeded:
		x.At = at
		return x
	case CheckpointDone:
		x.At = at
		return x
	case Tick:
		x.At = at
		return x
	case Interrupted:
		x.At = at
		return x
	}
	panic(fmt.Sprintf("stamp: unknown message %T", msg))
}

// factOf is the fact event the runtime appends for msg.
func factOf(msg Msg) event.Draft {
	d := event.Draft{Time: msg.time()}
	switch x := msg.(type) {
	case Submitted:
		d.Type, d.Payload = event.InputReceived, x.Input
	case StreamDelta:
		d.Type, d.RunID, d.Payload = event.AssistantDelta, x.RunID, event.AssistantDeltaPayload{Content: "…"}
	case StreamFinished:
		var calls []event.ToolCall
		for _, c := range x.Calls {
			calls = append(calls, event.ToolCall{ID: c.ID, Name: c.Name, Arguments: string(c.Arguments), Invalid: x.Invalid[c.ID]})
		}
		d.Type, d.RunID, d.Payload = event.AssistantMessage, x.RunID, event.AssistantMessagePayload{
			Step: x.Step, Content: x.Content, ToolCalls: calls, DoneReason: x.DoneReason, Model: "qwen3:4b",
			Usage: event.Usage{PromptTokens: x.PromptTokens, OutputTokens: x.OutputTokens}, Interrupted: x.Interrupted}
	case StreamFailed:
		d.Type, d.RunID, d.Payload = event.StreamFailed, x.RunID, event.StreamFailedPayload{Step: x.Step, Class: x.Class, Message: x.Message}
	case StepRetried:
		d.Type, d.RunID, d.Payload = event.StepRetried, x.RunID, event.StepRetriedPayload{Step: x.Step, Attempt: x.Attempt, Reason: x.Reason, AfterNS: int64(x.After)}
	case ToolFinished:
		d.Type, d.RunID, d.Payload = event.ToolResult, x.RunID, event.ToolResultPayload{CallID: x.CallID, Status: x.Status, Content: x.Content}
	case PermissionAnswered:
		d.Type, d.RunID, d.Payload = event.PermissionAnswered, x.RunID, event.PermissionAnsweredPayload{CallIDs: x.CallIDs, Allowed: x.Allowed, Feedback: x.Feedback, ByDefault: x.ByDefault}
	case CancelRequested:
		d.Type, d.Payload = event.CancelRequested, event.CancelRequestedPayload{Cause: x.Cause}
	case BudgetExceeded:
		d.Type, d.RunID, d.Payload = event.BudgetExceeded, x.RunID, event.BudgetExceededPayload{Message: x.Message, Reason: x.Reason}
	case CheckpointDone:
		d.Type, d.RunID, d.Payload = event.CheckpointDone, x.RunID, event.CheckpointDonePayload{Inputs: x.Inputs}
	case Tick:
		d.Type, d.Payload = event.ClockTick, event.ClockTickPayload{}
	case Interrupted:
		d.Type, d.Payload = event.RunInterrupted, event.RunInterruptedPayload{Error: x.Error}
	default:
		panic(fmt.Sprintf("factOf: unknown message %T", msg))
	}
	return d
}

// clone copies the parts of a Model that Update must not change.
func clone(m Model) Model {
	m.Queue = slices.Clone(m.Queue)
	m.Run.Calls = slices.Clone(m.Run.Calls)
	m.Run.Done = slices.Clone(m.Run.Done)
	m.Run.Asking = slices.Clone(m.Run.Asking)
	return m
}

// checkStep applies msg to m and checks what every step must keep: Update
// does not panic, does not change its input, gives the same answer twice,
// refuses a message only with exactly one kernel.error and no change,
// stamps records with the run they belong to and the message's time, and
// returns a Model that keeps the loop's invariants and shares no slice with
// its input.
func checkStep(t *testing.T, m Model, msg Msg) Step {
	t.Helper()
	before := clone(m)
	var step Step
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("Update(%s, %s) panicked: %v", m.Phase, msg.name(), p)
			}
		}()
		step = Update(m, msg)
	}()
	if !reflect.DeepEqual(m, before) {
		t.Fatalf("Update(%s, %s) changed the Model it was given", m.Phase, msg.name())
	}
	if again := Update(m, msg); !reflect.DeepEqual(again, step) {
		t.Fatalf("Update(%s, %s) gave two answers:\n%+v\n%+v", m.Phase, msg.name(), step, again)
	}

	for i, r := range step.Records {
		if r.Type == event.KernelError {
			if len(step.Records) != 1 || len(step.Cmds) != 0 || !reflect.DeepEqual(step.Model, m) {
				t.Fatalf("Update(%s, %s): a kernel.error must come alone and change nothing; got records %v, cmds %v", m.Phase, msg.name(), types(step.Records), step.Cmds)
			}
			p := r.Payload.(event.KernelErrorPayload)
			if p.Phase != m.Phase.String() || p.Message != msg.name() || p.Problem == "" {
				t.Fatalf("kernel.error %+v does not name phase %s and message %s", p, m.Phase, msg.name())
			}
		}
		if event.KindOf(r.Type) != event.Record {
			t.Fatalf("record %d is a %s, which is not a record type", i, r.Type)
		}
		if !r.Time.Equal(msg.time()) {
			t.Fatalf("record %s has time %v, the message %v", r.Type, r.Time, msg.time())
		}
		if _, err := event.Encode(r); err != nil {
			t.Fatalf("record %s does not encode: %v", r.Type, err)
		}
	}
	checkRunIDs(t, m.Run.ID, step)
	checkModel(t, step.Model)

	// Mutating what Update returned must not reach the Model it was given.
	out := Update(m, msg).Model
	for i := range out.Queue {
		out.Queue[i].Text, out.Queue[i].InputID = "mutated", "mutated"
	}
	for i := range out.Run.Calls {
		out.Run.Calls[i].ID = "mutated"
	}
	for i := range out.Run.Done {
		out.Run.Done[i] = "mutated"
	}
	for i := range out.Run.Asking {
		out.Run.Asking[i] = "mutated"
	}
	if !reflect.DeepEqual(m, before) {
		t.Fatalf("Update(%s, %s) returned a Model sharing slices with its input", m.Phase, msg.name())
	}
	return step
}

// checkRunIDs: a record belongs to the run open when it is made. Runs close
// with one run.finished and open with one run.started; every other record is
// inside a run, and every command is for the run the step leaves open.
func checkRunIDs(t *testing.T, open string, step Step) {
	t.Helper()
	for _, r := range step.Records {
		switch r.Type {
		case event.RunStarted:
			if open != "" || r.RunID == "" {
				t.Fatalf("run.started %q while %q is open", r.RunID, open)
			}
			open = r.RunID
		case event.RunFinished:
			if open == "" || r.RunID != open {
				t.Fatalf("run.finished %q while %q is open", r.RunID, open)
			}
			open = ""
		case event.KernelError:
			if r.RunID != open {
				t.Fatalf("kernel.error for run %q while %q is open", r.RunID, open)
			}
		default:
			if open == "" || r.RunID != open {
				t.Fatalf("%s for run %q while %q is open", r.Type, r.RunID, open)
			}
		}
	}
	if open != step.Model.Run.ID {
		t.Fatalf("the records leave run %q open, the Model %q", open, step.Model.Run.ID)
	}
	for _, c := range step.Cmds {
		if id := cmdRunID(c); id == "" || id != step.Model.Run.ID {
			t.Fatalf("command %T for run %q, the open run is %q", c, id, step.Model.Run.ID)
		}
	}
}

func cmdRunID(c Cmd) string {
	switch c := c.(type) {
	case StartStream:
		return c.RunID
	case RunTool:
		return c.RunID
	case AskPermission:
		return c.RunID
	case CancelRun:
		return c.RunID
	case RunCheckpoint:
		return c.RunID
	}
	return ""
}

// checkModel checks the Model's own invariants.
func checkModel(t *testing.T, m Model) {
	t.Helper()
	r := m.Run
	if m.Phase == Idle {
		if !reflect.DeepEqual(r, Run{}) {
			t.Fatalf("idle with a run left over: %+v", r)
		}
	} else if r.ID == "" || r.Step < 1 {
		t.Fatalf("%s without an open run or a step: %+v", m.Phase, r)
	}
	callIDs := ids(r.Calls)
	for _, id := range append(slices.Clone(r.Done), r.Asking...) {
		if !slices.Contains(callIDs, id) {
			t.Fatalf("%s: call %s is done or asked about but not a call of the step %v", m.Phase, id, callIDs)
		}
	}
	for _, id := range r.Done {
		if slices.Contains(r.Asking, id) {
			t.Fatalf("call %s is both done and waiting for the user", id)
		}
	}
	if len(slices.Compact(slices.Sorted(slices.Values(r.Done)))) != len(r.Done) {
		t.Fatalf("a call has two results: %v", r.Done)
	}
	inFlight := (&stepper{m: m}).inFlight()
	switch m.Phase {
	case AwaitingPermission:
		if len(r.Asking) == 0 {
			t.Fatal("awaiting permission with no call to ask about")
		}
	case ExecutingTools:
		if len(inFlight) == 0 || len(r.Asking) > 0 {
			t.Fatalf("executing tools with calls in flight %v and asking %v", inFlight, r.Asking)
		}
	case Streaming, Closing:
		if len(inFlight) > 0 || len(r.Asking) > 0 {
			t.Fatalf("%s with calls in flight %v and asking %v", m.Phase, inFlight, r.Asking)
		}
	}
	if r.Stopping != "" && !strings.Contains(r.Stopping, "\x00") {
		t.Fatalf("Stopping %q is not reason\\x00message", r.Stopping)
	}
	for _, in := range m.Queue {
		switch Intent(in.Intent) {
		case FollowUp, Steer, Inject:
		default:
			t.Fatalf("queued input with intent %q", in.Intent)
		}
	}
}

func types(rs []event.Draft) []event.Type {
	out := make([]event.Type, len(rs))
	for i, r := range rs {
		out[i] = r.Type
	}
	return out
}

// only returns the payloads of the records of type typ, as T.
func only[T any](rs []event.Draft, typ event.Type) []T {
	var out []T
	for _, r := range rs {
		if r.Type == typ {
			out = append(out, r.Payload.(T))
		}
	}
	return out
}

// cmds returns the commands of type T.
func cmds[T Cmd](cs []Cmd) []T {
	var out []T
	for _, c := range cs {
		if x, ok := c.(T); ok {
			out = append(out, x)
		}
	}
	return out
}

func wantTypes(t *testing.T, got []event.Draft, want ...event.Type) {
	t.Helper()
	if !slices.Equal(types(got), want) {
		t.Fatalf("records %v, want %v", types(got), want)
	}
}

// Drivers that take a loop through a run. A run rN is opened by the
// follow-up "in-rN".

func (l *loop) open(runID, text string, caps *event.Capabilities) Step {
	l.t.Helper()
	return l.send(Submitted{Input: followUp("in-"+runID, runID, text, caps)})
}

// reply finishes the current step with text and calls.
func (l *loop) reply(content string, calls ...tool.Call) Step {
	l.t.Helper()
	return l.send(StreamFinished{RunID: l.m.Run.ID, Step: l.m.Run.Step, Content: content, Calls: calls, PromptTokens: 10, OutputTokens: 5})
}

func (l *loop) result(callID, content string) Step {
	l.t.Helper()
	return l.send(ToolFinished{RunID: l.m.Run.ID, CallID: callID, Status: string(tool.Success), Content: content})
}

func (l *loop) wantPhase(p Phase) {
	l.t.Helper()
	if l.m.Phase != p {
		l.t.Fatalf("phase %s, want %s", l.m.Phase, p)
	}
}

func (l *loop) wantFinished(want ...string) {
	l.t.Helper()
	if got := l.finished(); !slices.Equal(got, want) {
		l.t.Fatalf("runs finished %v, want %v", got, want)
	}
}
