package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"database/sql"

	"quire/kernel/event"
	"quire/kernel/protocol"
)

// work is one worker: it claims a task, works it, and claims the next,
// until the queue closes; with nothing to claim it waits to be woken (a
// batch started or resumed) or for a lease to run out.
func (q *Queue) work(owner string) {
	defer q.wg.Done()
	idle := time.NewTimer(q.lease / 2)
	defer idle.Stop()
	for q.base.Err() == nil {
		if c, ok := q.next(q.base, owner); ok {
			q.task(c)
			continue
		}
		idle.Reset(q.lease / 2)
		select {
		case <-q.base.Done():
		case <-q.wake:
		case <-idle.C: // a lease may have run out meanwhile
		}
	}
}

// next claims the next task for owner, and tells the batches whose last
// task failed meanwhile because its last lease ran out: that change is
// the claim's, and no other worker would tell it.
func (q *Queue) next(ctx context.Context, owner string) (claim, bool) {
	c, ok, expired, err := q.t.claim(ctx, owner, q.lease)
	if err != nil && ctx.Err() == nil {
		q.log.Error("a worker could not claim a task", "worker", owner, "err", err)
	}
	for _, b := range expired {
		if _, err := q.publish(ctx, b, ""); err != nil {
			q.log.Warn("a batch whose task ran out of attempts could not be told", "batch", b, "err", err)
		}
	}
	return c, ok
}

// task works one claim: it puts a result or a failure in the task, or,
// when the queue stops, hands the task back with its attempt not counted.
func (q *Queue) task(c claim) {
	ctx, cancel := context.WithCancelCause(q.base)
	defer cancel(nil)
	q.hold(c, cancel)
	defer q.drop(c)
	q.publish(ctx, c.Batch, c.Task)

	stopRenew := q.renewing(ctx, c)
	p, reason := q.propose(ctx, c)
	stopRenew()

	done := context.WithoutCancel(ctx) // the result lands even as the queue stops
	switch cause := context.Cause(ctx); {
	case p == nil && errors.Is(cause, ErrStopped):
		q.handBack(done, c)
		return
	case p == nil && errors.Is(cause, errCancelled):
		reason = "cancelled with the batch"
	}
	if err := q.t.finish(done, c, p, reason); err != nil {
		q.log.Warn("a task's result was not put", "task", c.Task, "note", c.Note, "err", err)
	}
	q.publish(done, c.Batch, c.Task)
}

// propose has the worker's kernel answer for the note: the result a
// previous attempt's session already holds, or a new session's run. It
// returns the proposal, or why there is none.
func (q *Queue) propose(ctx context.Context, c claim) (*protocol.Proposal, string) {
	if c.Session != "" {
		// A stopped Quire may have left the answer in the log without
		// putting it in the task: take it, rather than run the note again.
		if p, _, err := q.proposalIn(ctx, c.Session, ""); err == nil && p != nil {
			return p, ""
		}
	}
	s, err := protocol.Run[protocol.Session](ctx, q.kernel, fmt.Sprintf("queue:%s:%d", c.Task, c.Attempt), protocol.CreateSession,
		protocol.CreateSessionPayload{Title: "Organise " + c.Note, Kind: protocol.SessionWorker})
	if err != nil {
		return nil, fmt.Sprintf("the worker's conversation could not be started: %v", err)
	}
	q.mu.Lock()
	q.sessions[s.ID] = c.Note
	q.mu.Unlock()
	defer func() {
		q.mu.Lock()
		delete(q.sessions, s.ID)
		q.mu.Unlock()
	}()
	if err := q.t.started(ctx, c, s.ID); err != nil {
		return nil, err.Error()
	}
	sent, err := protocol.Run[protocol.SendResult](ctx, q.kernel, "", protocol.SendMessage,
		protocol.SendMessagePayload{Session: s.ID, Text: taskText(c.Note, c.Instruction)})
	if err != nil {
		return nil, fmt.Sprintf("the worker's task could not be sent: %v", err)
	}
	end, err := q.waitRun(ctx, s.ID, sent.RunID)
	if err != nil {
		return nil, fmt.Sprintf("the worker's run could not be followed: %v", err)
	}
	p, seen, err := q.proposalIn(context.WithoutCancel(ctx), s.ID, sent.RunID)
	switch {
	case err != nil:
		return nil, fmt.Sprintf("the worker's log could not be read: %v", err)
	case p != nil:
		return p, ""
	case seen != "":
		return nil, "the worker's proposal was refused: " + seen
	case end.Error != "":
		return nil, fmt.Sprintf("the worker stopped (%s) without a proposal: %s", end.Reason, end.Error)
	}
	return nil, fmt.Sprintf("the worker's run ended (%s) without a proposal", end.Reason)
}

// taskText is the worker's one message: the note it owns and what to do,
// with the batch's instruction when it has one.
func taskText(note, instruction string) string {
	if instruction != "" {
		return taskText(note, "") + " Follow this instruction for it where it applies: " + instruction
	}
	return fmt.Sprintf("Organise the note %s. Read it (read_note), look at how the notes are filed (list_notes, find_notes, "+
		"search_docs where it helps), then call propose once: the folder and name it belongs under (keep it where it is if it fits), "+
		"its tags, notes it should link to, and a one-line reason. You cannot change any note; the user reviews every proposal of the batch at once.", note)
}

// waitRun follows the session until the run ends; a stop of ctx stops the
// run (with the batch's cancel or the queue's stop as the reason) and
// still waits for its end, so the log is whole.
func (q *Queue) waitRun(ctx context.Context, session, run string) (event.RunFinishedPayload, error) {
	follow := context.WithoutCancel(ctx)
	from := int64(0)
	stopped := false
	for {
		fctx, cancel := context.WithCancel(follow)
		evs, errp := q.kernel.Follow(fctx, session, from)
	read:
		for {
			select {
			case e, ok := <-evs:
				if !ok {
					break read
				}
				from = e.Seq + 1
				if e.Type == string(event.RunFinished) && e.RunID == run {
					cancel()
					var p event.RunFinishedPayload
					err := json.Unmarshal(e.Payload, &p)
					return p, err
				}
			case <-ctx.Done():
				if !stopped {
					stopped = true
					if _, err := protocol.Run[json.RawMessage](follow, q.kernel, "", protocol.CancelRun, protocol.SessionRef{Session: session}); err != nil {
						q.log.Warn("a worker's run could not be stopped", "session", session, "err", err)
					}
				}
			}
		}
		cancel()
		if err := errp(); err != nil && !errors.Is(err, protocol.ErrLagging) {
			return event.RunFinishedPayload{}, err
		}
	}
}

// proposalIn finds the last proposal the session's run (any run when run
// is "") recorded with propose; refused is the last refusal's sentence when
// there is no proposal.
func (q *Queue) proposalIn(ctx context.Context, session, run string) (p *protocol.Proposal, refused string, err error) {
	evs, err := q.kernel.Events(ctx, session, 0)
	if err != nil {
		return nil, "", err
	}
	for _, e := range evs {
		if e.Type != string(event.ToolResult) && e.Type != string(event.ToolRefused) || run != "" && e.RunID != run {
			continue
		}
		// A result, or a refusal before the tool ran (arguments the
		// schema refused): its reason.
		var r struct {
			Name    string             `json:"name"`
			Status  string             `json:"status"`
			Content string             `json:"content"`
			Reason  string             `json:"reason"`
			Data    *protocol.Proposal `json:"data"`
		}
		if json.Unmarshal(e.Payload, &r) != nil || r.Name != ProposeName {
			continue
		}
		if e.Type == string(event.ToolResult) && r.Status == "success" && r.Data != nil {
			p = r.Data
		} else {
			refused = r.Content + r.Reason
		}
	}
	return p, refused, nil
}

// renewing extends the claim's lease every third of it until stopped.
func (q *Queue) renewing(ctx context.Context, c claim) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(q.lease / 3)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				if err := q.t.renew(ctx, c, q.lease); err != nil {
					q.log.Warn("a task's lease could not be renewed", "task", c.Task, "err", err)
				}
			}
		}
	}()
	return func() { close(done); <-finished }
}

// handBack returns a task the queue's stop interrupted to the queue, its
// attempt not counted: stopping Quire is not the note's fault.
func (q *Queue) handBack(ctx context.Context, c claim) {
	if err := q.t.write(ctx, func(tx *sql.Tx) error {
		return q.t.held(ctx, tx, c, `state = ?, owner = '', lease_ns = 0, attempts = attempts - 1`, protocol.TaskQueued)
	}); err != nil {
		q.log.Warn("a task could not be handed back", "task", c.Task, "err", err)
	}
}

// hold and drop keep the cancel of each task in hand, by batch, for Cancel.
func (q *Queue) hold(c claim, cancel context.CancelCauseFunc) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.active[c.Batch] == nil {
		q.active[c.Batch] = map[string]context.CancelCauseFunc{}
	}
	q.active[c.Batch][c.Task] = cancel
}

func (q *Queue) drop(c claim) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.active[c.Batch], c.Task)
	if len(q.active[c.Batch]) == 0 {
		delete(q.active, c.Batch)
	}
}
