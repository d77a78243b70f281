package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/provider"
)

// submit appends the user's message and starts a run that streams the reply.
// It returns once the message is durably in the log.
func (r *Runtime) submit(ctx context.Context, p protocol.SendMessagePayload, once *event.Once) (json.RawMessage, error) {
	if strings.TrimSpace(p.Text) == "" {
		return nil, ErrEmptyMessage
	}
	r.mu.Lock()
	if _, busy := r.running[p.Session]; busy {
		r.mu.Unlock()
		// A retry of the send that started this run is not an error, and a
		// reused key is reported as such even while the session is busy.
		if once != nil {
			fp, res, found, err := r.store.Recall(ctx, once.Key)
			switch {
			case err != nil:
				return nil, err
			case found && fp == once.Fingerprint:
				return res, nil
			case found:
				return nil, fmt.Errorf("%w (key %q)", event.ErrKeyReused, once.Key)
			}
		}
		return nil, ErrSessionBusy
	}
	if err := context.Cause(r.base); err != nil {
		r.mu.Unlock()
		return nil, err
	}
	runCtx, cancel := context.WithCancelCause(r.base)
	run := &activeRun{cancel: cancel, done: make(chan struct{})}
	r.running[p.Session] = run
	settings := r.settings
	r.wg.Add(1)
	r.mu.Unlock()

	runID := r.newID()
	o, res, err := withResult(once, protocol.SendResult{RunID: runID})
	if err != nil {
		r.release(p.Session, run)
		return nil, err
	}
	drafts := []event.Draft{
		{Type: event.UserMessage, Time: r.now(), Payload: event.UserMessagePayload{Text: p.Text}},
		{Type: event.RunStarted, Time: r.now(), RunID: runID, Payload: event.RunStartedPayload{Model: settings.Model}},
	}
	var done *event.Done
	_, err = r.feed.AppendWith(ctx, func(ctx context.Context) ([]event.Event, error) {
		if o == nil {
			return r.store.Append(ctx, p.Session, drafts...)
		}
		evs, d, err := r.store.AppendOnce(ctx, *o, p.Session, drafts...)
		done = d
		return evs, err
	})
	if err != nil || done != nil {
		r.release(p.Session, run)
		if done != nil {
			return done.Result, nil
		}
		return nil, err
	}
	go func() {
		defer r.release(p.Session, run)
		r.run(runCtx, p.Session, runID, settings)
	}()
	return res, nil
}

func (r *Runtime) release(session string, run *activeRun) {
	run.cancel(nil)
	r.mu.Lock()
	if r.running[session] == run {
		delete(r.running, session)
	}
	r.mu.Unlock()
	close(run.done)
	r.wg.Done()
}

// run streams one reply. Its writes use a context detached from the run's
// cancellation so the terminal events land even when the run was cancelled.
func (r *Runtime) run(ctx context.Context, session, runID string, settings Settings) {
	write := context.WithoutCancel(ctx)
	finish := func(reason, msg string) {
		if _, err := r.feed.Append(write, session, event.Draft{Type: event.RunFinished, Time: r.now(), RunID: runID,
			Payload: event.RunFinishedPayload{Reason: reason, Error: msg}}); err != nil {
			r.log.Error("could not record the end of a run", "session", session, "run", runID, "err", err)
		}
	}
	// A run stopped on purpose ends as cancelled with its reason, whatever
	// step it was in; anything else that fails ends it as an error.
	fail := func(err error) {
		if ctx.Err() != nil {
			finish(event.ReasonCancelled, context.Cause(ctx).Error())
			return
		}
		r.log.Warn("run failed", "session", session, "run", runID, "err", err)
		finish(event.ReasonError, userMessage(err))
	}
	msgs, err := r.history.Messages(ctx, session)
	if err != nil {
		fail(fmt.Errorf("could not rebuild this conversation: %w", err))
		return
	}
	req := provider.Request{Model: settings.Model, Messages: msgs, ContextLen: settings.NumCtx}

	batcher := newDeltaBatcher(r.flushEvery, func(drafts []event.Draft) {
		if _, err := r.feed.Append(write, session, drafts...); err != nil {
			r.log.Error("could not record streamed text", "session", session, "err", err)
		}
	})
	var reply, thinking strings.Builder
	var calls []event.ToolCall
	var final provider.Chunk
	streamErr := r.model.Stream(ctx, req, func(c provider.Chunk) error {
		if c.Content != "" || c.Thinking != "" {
			reply.WriteString(c.Content)
			thinking.WriteString(c.Thinking)
			batcher.add(event.Draft{Type: event.AssistantDelta, Time: r.now(), RunID: runID,
				Payload: event.AssistantDeltaPayload{Content: c.Content, Thinking: c.Thinking}})
		}
		for _, tc := range c.ToolCalls {
			calls = append(calls, event.ToolCall(tc))
		}
		if c.Done {
			final = c
		}
		return nil
	})
	batcher.close()

	msg := event.AssistantMessagePayload{
		Content: reply.String(), Thinking: thinking.String(), ToolCalls: calls, Model: settings.Model,
		DoneReason: final.DoneReason, Usage: event.Usage(final.Usage),
	}
	if streamErr == nil {
		if _, err := r.feed.Append(write, session, event.Draft{Type: event.AssistantMessage, Time: r.now(), RunID: runID, Payload: msg}); err != nil {
			fail(fmt.Errorf("could not save the reply: %w", err))
			return
		}
		finish(event.ReasonCompleted, "")
		return
	}
	// What the user already saw stays in the conversation, marked as cut off.
	if msg.Content != "" || msg.Thinking != "" {
		msg.Interrupted = true
		if _, err := r.feed.Append(write, session, event.Draft{Type: event.AssistantMessage, Time: r.now(), RunID: runID, Payload: msg}); err != nil {
			r.log.Error("could not record the partial reply", "session", session, "err", err)
		}
	}
	fail(streamErr)
}

func userMessage(err error) string {
	msg := err.Error()
	if msg == "" {
		return "The model failed without saying why."
	}
	return strings.ToUpper(msg[:1]) + msg[1:]
}

// deltaBatcher appends streamed pieces in batches, at most every interval, so
// the log and the window see a few writes per second instead of one per token
// while no piece waits longer than the interval.
type deltaBatcher struct {
	mu      sync.Mutex
	pending []event.Draft
	flush   func([]event.Draft)
	done    chan struct{}
	stopped chan struct{}
}

func newDeltaBatcher(every time.Duration, flush func([]event.Draft)) *deltaBatcher {
	b := &deltaBatcher{flush: flush, done: make(chan struct{}), stopped: make(chan struct{})}
	go func() {
		defer close(b.stopped)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				b.drain()
			case <-b.done:
				b.drain()
				return
			}
		}
	}()
	return b
}

func (b *deltaBatcher) add(d event.Draft) {
	b.mu.Lock()
	b.pending = append(b.pending, d)
	b.mu.Unlock()
}

func (b *deltaBatcher) drain() {
	b.mu.Lock()
	batch := b.pending
	b.pending = nil
	b.mu.Unlock()
	if len(batch) > 0 {
		b.flush(batch)
	}
}

// close flushes what is left and returns when it is stored.
func (b *deltaBatcher) close() {
	close(b.done)
	<-b.stopped
}
