package core

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"quire/kernel/event"
	"quire/kernel/tool"
)

// MsgOf reads a fact event as the message it records; ok is false for an
// event that is not a fact.
func MsgOf(e event.Event) (msg Msg, ok bool, err error) {
	if event.KindOf(e.Type) != event.Fact {
		return nil, false, nil
	}
	v, err := event.Decode(e)
	if err != nil {
		return nil, true, err
	}
	at := e.Time
	switch p := v.(type) {
	case event.InputReceivedPayload:
		return Submitted{At: at, Input: p}, true, nil
	case event.AssistantDeltaPayload:
		return StreamDelta{At: at, RunID: e.RunID}, true, nil
	case event.AssistantMessagePayload:
		calls := make([]tool.Call, len(p.ToolCalls))
		var invalid map[string]string
		for i, c := range p.ToolCalls {
			calls[i] = tool.Call{ID: c.ID, Name: c.Name, Arguments: []byte(c.Arguments)}
			if c.Invalid != "" {
				if invalid == nil {
					invalid = map[string]string{}
				}
				invalid[c.ID] = c.Invalid
			}
		}
		return StreamFinished{At: at, RunID: e.RunID, Step: p.Step, Content: p.Content, Calls: calls, Invalid: invalid,
			PromptTokens: p.Usage.PromptTokens, OutputTokens: p.Usage.OutputTokens, Interrupted: p.Interrupted, DoneReason: p.DoneReason}, true, nil
	case event.StreamFailedPayload:
		return StreamFailed{At: at, RunID: e.RunID, Step: p.Step, Class: p.Class, Message: p.Message}, true, nil
	case event.StepRetriedPayload:
		return StepRetried{At: at, RunID: e.RunID, Step: p.Step, Attempt: p.Attempt, After: time.Duration(p.AfterNS), Reason: p.Reason}, true, nil
	case event.ToolResultPayload:
		return ToolFinished{At: at, RunID: e.RunID, CallID: p.CallID, Status: p.Status, Content: p.Content}, true, nil
	case event.PermissionAnsweredPayload:
		return PermissionAnswered{At: at, RunID: e.RunID, CallIDs: p.CallIDs, Allowed: p.Allowed, Feedback: p.Feedback, ByDefault: p.ByDefault}, true, nil
	case event.CancelRequestedPayload:
		return CancelRequested{At: at, RunID: e.RunID, Cause: p.Cause}, true, nil
	case event.BudgetExceededPayload:
		return BudgetExceeded{At: at, RunID: e.RunID, Message: p.Message, Reason: p.Reason}, true, nil
	case event.CheckpointDonePayload:
		return CheckpointDone{At: at, RunID: e.RunID, Inputs: p.Inputs}, true, nil
	case event.ClockTickPayload:
		return Tick{At: at}, true, nil
	case event.RunInterruptedPayload:
		return Interrupted{At: at, Error: p.Error}, true, nil
	}
	return nil, true, fmt.Errorf("event %d: fact type %s has no message", e.Seq, e.Type)
}

// Fold replays a session's facts into the model they leave behind. Every
// other event must be readable too (event.Check): a log with one that is
// not does not fold.
func Fold(events []event.Event) (Model, error) {
	var m Model
	for _, e := range events {
		msg, ok, err := MsgOf(e)
		if err == nil && !ok {
			// Not a fact, but a model folded from a log a replay cannot
			// read would drive a session nothing else can show.
			err = event.Check(e)
		}
		if err != nil {
			return Model{}, err
		}
		if ok {
			m = Update(m, msg).Model
		}
	}
	return m, nil
}

// ErrNotReproduced: re-running Update over the log's facts does not give the
// records the log holds.
var ErrNotReproduced = errors.New("the log's records are not what its facts produce")

// Replay re-runs Update over the facts of a log and checks that each fact is
// followed by exactly the records Update derives from it, byte for byte.
func Replay(events []event.Event) error {
	var m Model
	i := 0
	for i < len(events) {
		e := events[i]
		i++
		msg, ok, err := MsgOf(e)
		if err != nil {
			return err
		}
		if !ok {
			if event.KindOf(e.Type) == event.Record {
				return fmt.Errorf("%w: record %s at %d follows no fact", ErrNotReproduced, e.Type, e.Seq)
			}
			continue
		}
		step := Update(m, msg)
		m = step.Model
		for _, want := range step.Records {
			if i >= len(events) {
				return fmt.Errorf("%w: after %s at %d the log ends, want %s", ErrNotReproduced, e.Type, e.Seq, want.Type)
			}
			got := events[i]
			i++
			enc, err := event.Encode(want)
			if err != nil {
				return err
			}
			if got.Type != enc.Type || got.RunID != enc.RunID || !got.Time.Equal(enc.Time) || !bytes.Equal(got.Payload, enc.Payload) {
				return fmt.Errorf("%w: at %d the log has %s %s, Update gives %s %s", ErrNotReproduced, got.Seq, got.Type, got.Payload, enc.Type, enc.Payload)
			}
		}
		for i < len(events) && event.KindOf(events[i].Type) == event.Record {
			return fmt.Errorf("%w: record %s at %d is not derived from the fact before it", ErrNotReproduced, events[i].Type, events[i].Seq)
		}
	}
	return nil
}

// ErrBrokenInvariant: the log breaks a rule every log must keep.
var ErrBrokenInvariant = errors.New("the log breaks an invariant")

// Verify checks the invariants of runs and steps in a session's log: runs
// open and close strictly paired, each closing once with a reason; steps
// happen only inside runs; every tool call gets exactly one result (executed
// or refused) before the run closes, unless the run closed on a crash.
func Verify(events []event.Event) error {
	fail := func(e event.Event, format string, args ...any) error {
		return fmt.Errorf("%w: event %d (%s): %s", ErrBrokenInvariant, e.Seq, e.Type, fmt.Sprintf(format, args...))
	}
	open := ""
	calls := map[string]bool{} // call id -> has result
	for _, e := range events {
		switch e.Type {
		case event.RunStarted:
			if open != "" {
				return fail(e, "run %s starts while run %s is open", e.RunID, open)
			}
			if e.RunID == "" {
				return fail(e, "run without an id")
			}
			open = e.RunID
			calls = map[string]bool{}
		case event.RunFinished:
			if e.RunID != open || open == "" {
				return fail(e, "run %s finishes but the open run is %q", e.RunID, open)
			}
			p, err := event.As[event.RunFinishedPayload](e)
			if err != nil {
				return err
			}
			if p.Reason == "" {
				return fail(e, "a run finished without a reason")
			}
			for id, done := range calls {
				if !done {
					return fail(e, "run %s finished with call %s unanswered", e.RunID, id)
				}
			}
			open = ""
		case event.StepStarted, event.ToolStarted, event.PermissionRequested:
			if e.RunID != open || open == "" {
				return fail(e, "outside its run (open run %q)", open)
			}
		case event.AssistantMessage:
			p, err := event.As[event.AssistantMessagePayload](e)
			if err != nil {
				return err
			}
			if e.RunID != open && !p.Interrupted {
				return fail(e, "a reply outside its run (open run %q)", open)
			}
			if e.RunID == open && !p.Interrupted {
				for _, c := range p.ToolCalls {
					calls[c.ID] = false
				}
			}
		case event.ToolResult, event.ToolRefused:
			var id string
			if e.Type == event.ToolResult {
				p, _ := event.As[event.ToolResultPayload](e)
				id = p.CallID
			} else {
				p, _ := event.As[event.ToolRefusedPayload](e)
				id = p.CallID
			}
			if done, known := calls[id]; e.RunID == open && (!known || done) {
				return fail(e, "a second or unasked-for result for call %s", id)
			}
			if e.RunID == open {
				calls[id] = true
			}
		}
	}
	return nil
}
