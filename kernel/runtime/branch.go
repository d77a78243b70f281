package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"quire/kernel/core"
	"quire/kernel/event"
	"quire/kernel/protocol"
)

// Edit, regenerate and continue (seed 001 §7). An edit or a regenerate never
// changes the conversation it starts from: it makes a branch (a session whose
// history is its parent's up to a seq, event.BranchPoint) from just before
// the user message concerned and sends that branch its first input, so the
// request the branch's model sees is rebuilt from the two logs like any
// other. A continue adds an input of kind continue to the same session: what
// the model is told is an event of the log.

var (
	// ErrNotAUserMessage: an edit named a seq that is not a message the
	// user wrote.
	ErrNotAUserMessage = errors.New("that event is not a message the user wrote")
	// ErrNotAReply: a regenerate named a seq that is not a reply of the model.
	ErrNotAReply = errors.New("that event is not a reply of the model")
	// ErrNothingToContinue: the conversation's last request did not stop
	// before its end (it completed, or none ran).
	ErrNothingToContinue = errors.New("the last request did not stop before its end: there is nothing to continue")
	// ErrOtherKind: a command named a session of a kind this runtime does
	// not drive (a worker's, to the chats' runtime).
	ErrOtherKind = errors.New("this conversation belongs to another part of Quire (a task queue's worker) and takes no input from here")
	// ErrRunGoing: a continue came while a request is going.
	ErrRunGoing = errors.New("a request is going in this conversation")
)

// ContinueText is what the model is told by a continue, as a user message.
const ContinueText = "Your previous reply was cut off before it was finished. Continue it from exactly where it stopped, without repeating what you already wrote."

// continuable are the ends of a run that a continue may pick up after: the
// run stopped before the model had finished (a kill, a failure, a Stop).
// A reply cut at its length limit (budget) may be continued too.
var continuable = []string{event.ReasonInterrupted, event.ReasonError, event.ReasonCancelled, event.ReasonBudget}

// edit branches session from just before the user message at seq, with
// text as the branch's first input.
func (r *Runtime) edit(ctx context.Context, p protocol.EditMessagePayload, once *event.Once) (json.RawMessage, error) {
	if strings.TrimSpace(p.Text) == "" {
		return nil, ErrEmptyMessage
	}
	msg, err := r.userMessageAt(ctx, p.Session, p.Seq)
	if err != nil {
		return nil, err
	}
	if msg.Text == p.Text {
		// Same words: still a branch (the user asked to resend), named like a regenerate's.
		return r.branchAndSend(ctx, p.Session, p.Seq, "", p.Text, "", once)
	}
	return r.branchAndSend(ctx, p.Session, p.Seq, p.Text, p.Text, "", once)
}

// ofAReply are the events that name the reply they belong to for a
// regenerate: a page knows a reply by the first event it showed it from.
var ofAReply = map[event.Type]bool{
	event.RunStarted: true, event.AssistantDelta: true, event.AssistantMessage: true,
	event.ToolStarted: true, event.ToolResult: true, event.ToolRefused: true,
}

// regenerate branches session from just before the user message that opened
// the run of the reply at seq, and sends the same text again.
func (r *Runtime) regenerate(ctx context.Context, p protocol.RegeneratePayload, once *event.Once) (json.RawMessage, error) {
	if why := r.damage(p.Session); why != "" {
		return nil, fmt.Errorf("%w: %s", ErrDamagedSession, why)
	}
	evs, err := r.eventsOf(ctx, p.Session, 0)
	if err != nil {
		return nil, err
	}
	reply := findSeq(evs, p.Seq)
	if reply == nil || !ofAReply[reply.Type] || reply.RunID == "" {
		return nil, fmt.Errorf("%w: %s seq %d", ErrNotAReply, p.Session, p.Seq)
	}
	var opener string
	for _, e := range evs {
		if e.Type == event.RunStarted && e.RunID == reply.RunID {
			rs, err := event.As[event.RunStartedPayload](e)
			if err != nil {
				return nil, err
			}
			opener = rs.InputID
		}
	}
	for _, e := range evs {
		if e.Type != event.UserMessage || opener == "" {
			continue
		}
		if um, err := event.As[event.UserMessagePayload](e); err == nil && um.InputID == opener {
			// A continued reply is asked again as a continue (its kind kept), so
			// the branch's model is told the same thing, and the page shows a
			// notice, not the continue's words as the user's.
			return r.branchAndSend(ctx, p.Session, e.Seq, "", um.Text, um.Kind, once)
		}
	}
	return nil, fmt.Errorf("%w: no user message opened the run of %s seq %d", ErrNotAReply, p.Session, p.Seq)
}

// userMessageAt is the user's own message at seq of session.
func (r *Runtime) userMessageAt(ctx context.Context, session string, seq int64) (event.UserMessagePayload, error) {
	if why := r.damage(session); why != "" {
		return event.UserMessagePayload{}, fmt.Errorf("%w: %s", ErrDamagedSession, why)
	}
	evs, err := r.eventsOf(ctx, session, seq)
	if err != nil {
		return event.UserMessagePayload{}, err
	}
	if e := findSeq(evs, seq); e != nil && e.Type == event.UserMessage {
		um, err := event.As[event.UserMessagePayload](*e)
		if err != nil {
			return um, err
		}
		if um.Kind == "" && core.Intent(um.Intent) != core.Note {
			return um, nil
		}
	}
	return event.UserMessagePayload{}, fmt.Errorf("%w: %s seq %d", ErrNotAUserMessage, session, seq)
}

// drives is nil when session exists and is of the kind this runtime drives
// (event.ErrNoSession, ErrOtherKind otherwise).
func (r *Runtime) drives(ctx context.Context, session string) error {
	info, err := r.store.Session(ctx, session)
	if err != nil {
		return err
	}
	if info.Kind != r.kind {
		return fmt.Errorf("%w: %s is a %q session", ErrOtherKind, session, info.Kind)
	}
	return nil
}

// eventsOf is the session's events from seq from, or event.ErrNoSession.
func (r *Runtime) eventsOf(ctx context.Context, session string, from int64) ([]event.Event, error) {
	if err := r.drives(ctx, session); err != nil {
		return nil, err
	}
	return r.store.Events(ctx, session, from)
}

func findSeq(evs []event.Event, seq int64) *event.Event {
	for i := range evs {
		if evs[i].Seq == seq {
			return &evs[i]
		}
	}
	return nil
}

// branchAndSend creates a branch that replaces the message at seq of
// session (its history is what came before that message), titled title
// (empty: "branch N", N counting the original as 1), and sends it text as
// an input of kind ("" for the user's own words).
// Under an idempotency key the branch keeps a key derived from it and the
// send the key itself, both with the command's fingerprint: a repeat
// returns the branch and run the first made, a repeat after a crash between
// the two writes sends to the branch already made instead of making
// another, and the key is the command's like any other's — another command
// under it is refused, before the branch and after the send.
func (r *Runtime) branchAndSend(ctx context.Context, session string, seq int64, title, text, kind string, once *event.Once) (json.RawMessage, error) {
	if once != nil {
		fp, _, found, err := r.store.Recall(ctx, once.Key)
		if err != nil {
			return nil, err
		}
		if found && fp != once.Fingerprint {
			return nil, event.ErrKeyReused
		}
	}
	at, err := r.branchPoint(ctx, session, seq)
	if err != nil {
		return nil, err
	}
	if title == "" {
		n, err := r.siblings(ctx, at.Session, at.Seq)
		if err != nil {
			return nil, err
		}
		title = fmt.Sprintf("branch %d", n+2)
	}
	created, err := r.createSession(ctx, protocol.CreateSessionPayload{Title: title, Parent: at.Session, ParentSeq: at.Seq}, part(once, "branch"))
	if err != nil {
		return nil, err
	}
	var out protocol.BranchResult
	if err := json.Unmarshal(created, &out.Session); err != nil {
		return nil, err
	}
	sent, err := r.input(ctx, out.Session.ID, text, core.FollowUp, kind, once)
	if err != nil {
		return nil, err
	}
	var res protocol.SendResult
	if err := json.Unmarshal(sent, &res); err != nil {
		return nil, err
	}
	out.RunID = res.RunID
	return json.Marshal(out)
}

// branchPoint is where a branch that replaces the message at seq of
// session leaves: just before that message — or, when the message is the
// first thing of a branch the model sees, so the two histories before it
// are the same, the point that branch left its own parent. Branches of one
// message then stay siblings of one point (one switcher ‹ 3/3 ›) instead of
// nesting a branch per edit.
func (r *Runtime) branchPoint(ctx context.Context, session string, seq int64) (event.BranchPoint, error) {
	here := event.BranchPoint{Session: session, Seq: seq - 1}
	info, err := r.store.Session(ctx, session)
	if err != nil || info.Parent == nil {
		return here, err
	}
	own, err := r.store.ProjectedEvents(ctx, session, 0, seq-1)
	if err != nil || len(own) > 0 {
		return here, err
	}
	return *info.Parent, nil
}

// part is once for one of a command's several writes.
func part(once *event.Once, name string) *event.Once {
	if once == nil {
		return nil
	}
	o := *once
	o.Key += "/" + name
	return &o
}

// siblings counts the branches that leave parent at seq.
func (r *Runtime) siblings(ctx context.Context, parent string, seq int64) (int, error) {
	return r.countBranches(ctx, func(p event.BranchPoint) bool { return p.Session == parent && p.Seq == seq })
}

// branches counts the branches that leave parent anywhere.
func (r *Runtime) branches(ctx context.Context, parent string) (int, error) {
	return r.countBranches(ctx, func(p event.BranchPoint) bool { return p.Session == parent })
}

func (r *Runtime) countBranches(ctx context.Context, match func(event.BranchPoint) bool) (int, error) {
	all, err := r.store.Sessions(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, s := range all {
		if s.Parent != nil && match(*s.Parent) {
			n++
		}
	}
	return n, nil
}

// continueRun asks the model to continue the session's last reply, when the
// run that wrote it stopped before its end.
func (r *Runtime) continueRun(ctx context.Context, session string, once *event.Once) (json.RawMessage, error) {
	if why := r.damage(session); why != "" {
		return nil, fmt.Errorf("%w: %s", ErrDamagedSession, why)
	}
	if err := r.drives(ctx, session); err != nil {
		return nil, err
	}
	if once != nil {
		// A repeat of a continue that was taken returns its run, even once
		// that run is going or has completed.
		fp, res, found, err := r.store.Recall(ctx, once.Key)
		if err != nil {
			return nil, err
		}
		if found && fp == once.Fingerprint {
			return res, nil
		}
	}
	s, err := r.attach(ctx, session)
	if err != nil {
		return nil, err
	}
	fins, err := r.store.EventsOfType(ctx, session, event.RunFinished)
	if err != nil {
		return nil, err
	}
	// Read from the log, not the session's Model: a run whose run.finished
	// is in the log has ended, even while its owner is still taking the
	// step that wrote it (the continue's input queues behind it).
	if s.model().Open() {
		starts, err := r.store.EventsOfType(ctx, session, event.RunStarted)
		if err != nil {
			return nil, err
		}
		if len(starts) > len(fins) {
			return nil, ErrRunGoing
		}
	}
	if len(fins) == 0 {
		return nil, ErrNothingToContinue
	}
	last, err := event.As[event.RunFinishedPayload](fins[len(fins)-1])
	if err != nil {
		return nil, err
	}
	ok := false
	for _, c := range continuable {
		ok = ok || last.Reason == c
	}
	if !ok {
		return nil, fmt.Errorf("%w (it ended %s)", ErrNothingToContinue, last.Reason)
	}
	// A run that stopped before the model wrote anything (a missing
	// model, a refusal) has no reply to continue: asking to go on with
	// nothing would only send the request again under another name.
	if cut, err := r.cutOff(ctx, session, fins[len(fins)-1].RunID); err != nil || !cut {
		if err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w (the model wrote nothing before it stopped; send your message again instead)", ErrNothingToContinue)
	}
	return r.input(ctx, session, ContinueText, core.FollowUp, event.KindContinue, once)
}

// cutOff reports whether run's last reply is one the run cut off: text or
// thinking, marked interrupted (a Stop, a failure, a crash) or ended by
// the server at its num_predict (done reason "length").
func (r *Runtime) cutOff(ctx context.Context, session, run string) (bool, error) {
	evs, err := r.store.EventsOfType(ctx, session, event.AssistantMessage)
	if err != nil {
		return false, err
	}
	for _, e := range slices.Backward(evs) {
		if e.RunID != run {
			continue
		}
		p, err := event.As[event.AssistantMessagePayload](e)
		if err != nil {
			return false, err
		}
		return (p.Content != "" || p.Thinking != "") && (p.Interrupted || p.DoneReason == "length"), nil
	}
	return false, nil
}

// cutReply is the reply a crash cut off in the step that was streaming, as
// the interrupted assistant message the stream would have logged had Quire
// lived (effects.go): its deltas are in the log, so the model sees what the
// user saw, and a continue has a reply to continue. Nothing when no step
// was streaming, no delta came, or the step's message is already logged (a
// recovery that was itself cut short).
func (r *Runtime) cutReply(ctx context.Context, session string, m core.Model) ([]event.Draft, error) {
	if m.Phase != core.Streaming {
		return nil, nil
	}
	from := int64(0)
	for _, typ := range []event.Type{event.StepStarted, event.StepRetried} {
		seq, err := r.store.LastSeqOf(ctx, session, typ, m.Run.ID)
		if err != nil {
			return nil, err
		}
		from = max(from, seq)
	}
	evs, err := r.store.Events(ctx, session, from)
	if err != nil {
		return nil, err
	}
	var content, thinking strings.Builder
	for _, e := range evs {
		if e.RunID != m.Run.ID {
			continue
		}
		switch e.Type {
		case event.AssistantMessage:
			return nil, nil
		case event.AssistantDelta:
			d, err := event.As[event.AssistantDeltaPayload](e)
			if err != nil {
				return nil, err
			}
			content.WriteString(d.Content)
			thinking.WriteString(d.Thinking)
		}
	}
	if content.Len() == 0 && thinking.Len() == 0 {
		return nil, nil
	}
	msg := event.AssistantMessagePayload{Step: m.Run.Step, Content: content.String(), Thinking: thinking.String(),
		Model: m.Run.Caps.Model, Interrupted: true}
	return []event.Draft{fact(event.AssistantMessage, r.now(), m.Run.ID, msg)}, nil
}
