package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"quire/kernel/compact"
	"quire/kernel/core"
	"quire/kernel/event"
	"quire/kernel/history"
	"quire/kernel/provider"
	"quire/kernel/tool"
)

// perform starts a command's work. Everything that waits (a stream, a tool,
// a question, the checkpoint) runs in its own goroutine and reports back
// through the inbox as facts; the owner never blocks on it.
func (s *session) perform(c core.Cmd) {
	switch x := c.(type) {
	case core.StartStream:
		s.spawn(func() { s.stream(x) })
	case core.RunTool:
		s.spawn(func() { s.runTool(x) })
	case core.AskPermission:
		s.spawn(func() { s.ask(x) })
	case core.RunCheckpoint:
		s.spawn(func() { s.checkpoint(x) })
	case core.CancelRun:
		s.mu.Lock()
		if s.cancel != nil && s.m.Run.ID == x.RunID {
			s.cancel(errors.New(x.Cause))
		}
		s.mu.Unlock()
	}
}

func (s *session) spawn(f func()) {
	s.r.work.Add(1)
	go func() {
		defer s.r.work.Done()
		f()
	}()
}

// report posts facts from a worker; a session that is gone drops them.
func (s *session) report(facts ...event.Draft) {
	if err := s.post(delivery{facts: facts}); err != nil {
		s.r.log.Debug("dropped a report for a closed session", "session", s.id, "err", err)
	}
}

// stream asks the model for one step's reply and reports it: deltas in
// batches, then the whole reply, or the failure after the error chain.
func (s *session) stream(x core.StartStream) {
	ctx, runID := s.runContext()
	if runID != x.RunID {
		return
	}
	failed := func(class, message string) {
		s.report(fact(event.StreamFailed, s.r.now(), runID, event.StreamFailedPayload{Step: x.Step, Class: class, Message: message}))
	}
	cancelled := func() { failed(ClassCancelled, context.Cause(ctx).Error()) }
	if x.After > 0 {
		t := time.NewTimer(x.After)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			cancelled()
			return
		}
	}
	select {
	case s.r.pool <- struct{}{}:
	case <-ctx.Done():
		cancelled()
		return
	}
	defer func() { <-s.r.pool }()

	caps := s.model().Run.Caps
	if s.r.compaction != nil {
		if err := s.compact(ctx, false); err != nil && ctx.Err() == nil {
			// The request goes out as it is; the overflow handler is the net.
			s.r.log.Warn("compaction before a step failed", "session", s.id, "err", err)
		}
	}
	if err := s.refreshContext(ctx, caps); err != nil && ctx.Err() == nil {
		// The step goes out with the context it had; memory catches up next step.
		s.r.log.Warn("refreshing the context before a step failed", "session", s.id, "err", err)
	}
	req, err := s.request(ctx, caps)
	if err != nil {
		if ctx.Err() != nil {
			cancelled()
			return
		}
		failed(ClassServer, "Quire could not rebuild this conversation: "+err.Error())
		return
	}
	batcher := newDeltaBatcher(s.r.flushEvery, func(drafts []event.Draft) { s.report(drafts...) })
	var reply, thinking strings.Builder
	var calls []event.ToolCall
	var final provider.Chunk
	m := s.model()
	// The prompt is counted as the server last counted one (it grows from
	// step to step) or as estimated, whichever is more.
	raw := compact.RequestTokens(req)
	watch := runawayWatch{budget: caps.Limits.TokenBudget, spent: m.Run.Tokens + max(m.LastPromptTokens, s.r.cal.Scale(req.Model, raw))}
	var runaway *errRunaway
	err = s.r.model.Stream(ctx, req, func(c provider.Chunk) error {
		if c.Content != "" || c.Thinking != "" {
			reply.WriteString(c.Content)
			thinking.WriteString(c.Thinking)
			batcher.add(fact(event.AssistantDelta, s.r.now(), runID, event.AssistantDeltaPayload{Content: c.Content, Thinking: c.Thinking}))
			if runaway = watch.add(c.Content, c.Thinking); runaway != nil {
				return runaway
			}
		}
		for _, tc := range c.ToolCalls {
			if tc.ID == "" {
				tc.ID = fmt.Sprintf("call_%s_%d_%d", runID, x.Step, len(calls))
			}
			calls = append(calls, event.ToolCall{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments})
		}
		if c.Done {
			final = c
		}
		return nil
	})
	batcher.close()
	s.checkArguments(runID, calls)
	msg := event.AssistantMessagePayload{Step: x.Step, Content: reply.String(), Thinking: thinking.String(), ToolCalls: calls,
		Model: caps.Model, DoneReason: final.DoneReason, Usage: event.Usage(final.Usage)}
	if err == nil {
		// The server's count of this very request teaches the model's
		// tokenizer to every later estimate (fitTools, the overflow
		// sentence, the compaction).
		s.r.cal.Observe(req.Model, raw, final.Usage.PromptTokens)
		s.report(fact(event.AssistantMessage, s.r.now(), runID, msg))
		return
	}
	partial := msg.Content != "" || msg.Thinking != ""
	if runaway != nil {
		// The stop comes first, so the run is stopping when the cut reply
		// arrives and closes with the stop's reason and sentence; the reply
		// is kept, marked as cut off.
		msg.Interrupted, msg.ToolCalls = true, nil
		msg.Usage.OutputTokens = watch.tokens
		s.report(fact(event.BudgetExceeded, s.r.now(), runID, event.BudgetExceededPayload{Message: runaway.message, Reason: runaway.reason}),
			fact(event.AssistantMessage, s.r.now(), runID, msg))
		return
	}
	var facts []event.Draft
	if partial {
		// What the user already saw stays in the conversation, marked as cut off.
		msg.Interrupted, msg.ToolCalls = true, nil
		facts = append(facts, fact(event.AssistantMessage, s.r.now(), runID, msg))
	}
	if ctx.Err() != nil {
		if !partial {
			cancelled()
		} else {
			s.report(facts...)
		}
		return
	}
	class := classify(err)
	v := s.r.judge(ctx, Failure{Session: s.id, Step: x.Step, Attempt: x.Attempt, Class: class, Err: err, Request: req, Trained: caps.Trained})
	if v.Retry && !partial {
		// A retry after text was shown would show it twice; only an attempt
		// that produced nothing is tried again.
		s.report(fact(event.StepRetried, s.r.now(), runID, event.StepRetriedPayload{Step: x.Step, Attempt: x.Attempt + 1, Reason: v.Reason,
			AfterNS: int64(v.After), WithoutTools: v.WithoutTools}))
		return
	}
	message := v.Message
	if message == "" {
		message = sentence(err)
	}
	facts = append(facts, fact(event.StreamFailed, s.r.now(), runID, event.StreamFailedPayload{Step: x.Step, Class: class, Message: message}))
	s.report(facts...)
}

// checkArguments validates each call's arguments against the run's frozen
// tools as the reply arrives, so a malformed call is answered with the
// schema error at once instead of being put to the user first (a question
// about a call that cannot run hides nothing but wastes the user's yes).
// The verdict goes into the log with the call; runTool checks again.
func (s *session) checkArguments(runID string, calls []event.ToolCall) {
	tools, err := s.toolsOf(runID)
	if err != nil {
		return // runTool reports it per call
	}
	for i, c := range calls {
		if _, ok := tools.Get(c.Name); !ok {
			continue // core answers calls of unknown tools
		}
		if err := tools.Validate(c.Name, tool.ParseArgs(c.Arguments)); err != nil {
			calls[i].Invalid = err.Error() + invalidHint
		}
	}
}

// invalidHint ends the sentence a call with bad arguments gets.
const invalidHint = ". Call the tool again with arguments that match its schema."

// request builds what the model sees at this attempt of the current step:
// the request as of the event that asked for it — the step's step.started,
// or the step.retried of a retry, which comes after any compaction the
// error chain made (Runtime.requestAt).
func (s *session) request(ctx context.Context, caps event.Capabilities) (provider.Request, error) {
	at, err := s.anchor(ctx, s.model().Run.ID)
	if err != nil {
		return provider.Request{}, err
	}
	return s.r.reader.requestAt(ctx, s.id, s.model().Run.ID, at, caps)
}

// anchor is the seq the current attempt's request is built at: the last
// step.started or step.retried of the run, or a compaction's replace or a
// refreshed context text made after it (a replace made for an overflow
// always precedes the step.retried that follows it).
func (s *session) anchor(ctx context.Context, run string) (int64, error) {
	return s.r.store.LastSeqOfAny(ctx, s.id, run, event.StepStarted, event.StepRetried, event.HistoryReplace, event.ContextText)
}

// requestAt is the one place a request is built, from the log alone: the
// run's frozen capabilities (system text, tools, model) and the history as
// projected at seq, the event that asked for the model call. Streaming and `quire replay
// -request` both call it, so what was sent can be rebuilt byte for byte;
// the inspector reads the same build (calls.go) for where each message
// came from.
func (r *Reader) requestAt(ctx context.Context, session, run string, seq int64, caps event.Capabilities) (provider.Request, error) {
	b, err := r.build(ctx, session, run, seq, caps)
	return b.req, err
}

// built is a request and what it was made of: the system text's hash and
// zones (its first len(zones) messages) and the projected history entries
// (the rest, in order).
type built struct {
	req     provider.Request
	hash    string
	zones   []event.ZoneText
	history []history.Entry
	// toolsDropped: the run had tools and this call declared none.
	toolsDropped bool
}

func (r *Reader) build(ctx context.Context, session, run string, seq int64, caps event.Capabilities) (built, error) {
	hist, err := r.history.EntriesAt(ctx, session, seq)
	if err != nil {
		return built{}, err
	}
	hash, err := r.textAt(ctx, session, run, seq, caps.System)
	if err != nil {
		return built{}, err
	}
	b := built{hash: hash, history: hist}
	all := make([]provider.Message, 0, len(hist)+4)
	if hash != "" {
		if b.zones, err = r.systemText(ctx, session, hash); err != nil {
			return built{}, err
		}
		// One system message per zone, in zone order: each zone can later be
		// compacted on its own terms.
		for _, z := range b.zones {
			all = append(all, provider.Message{Role: provider.RoleSystem, Content: z.Text})
		}
	}
	for _, en := range hist {
		all = append(all, en.Message)
	}
	b.req = provider.Request{Model: caps.Model, Messages: all, ContextLen: caps.NumCtx,
		Temperature: caps.Temperature, Think: caps.Think, Host: caps.Host, Runner: caps.Runner}
	if len(caps.Tools) > 0 {
		if b.toolsDropped, err = r.toolsDropped(ctx, session, run, seq); err != nil {
			return b, err
		}
	}
	if !b.toolsDropped {
		for _, d := range caps.Tools {
			b.req.Tools = append(b.req.Tools, provider.ToolSpec{Name: d.Name, Description: d.Description, Parameters: d.Parameters})
		}
	}
	used, err := r.runTokens(ctx, session, run, seq)
	if err != nil {
		return b, err
	}
	b.req.NumPredict = replyBound(caps, compact.RequestTokens(b.req), used)
	return b, nil
}

// minReply is the least num_predict a window's room gives a reply: a
// window nearly full still lets the model say something (Ollama shifts
// the context to make room); only the budget may bound it lower.
const minReply = 256

// replyBound is the num_predict of a request whose prompt is estimated at
// prompt tokens, in a run that used used tokens before it: the room the
// window leaves after the prompt (at least minReply), and never more than
// what the run's token budget has left, so that a model that never stops
// is ended by the server at the bound (done reason "length"). It reads
// only the frozen capabilities and the log, so a replay sends the same;
// 0 (no bound) when the run has neither window nor budget.
func replyBound(caps event.Capabilities, prompt, used int) int {
	n := 0
	if caps.NumCtx > 0 {
		n = max(caps.NumCtx-prompt, minReply)
	}
	if budget := caps.Limits.TokenBudget; budget > 0 {
		left := max(budget-used-prompt, 1)
		if n == 0 || left < n {
			n = left
		}
	}
	return n
}

// runTokens is what the run's replies logged before seq used (prompt and
// output, as the server reported them): the same sum as core.Run.Tokens.
func (r *Reader) runTokens(ctx context.Context, session, run string, seq int64) (int, error) {
	evs, err := r.store.EventsOfType(ctx, session, event.AssistantMessage)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range evs {
		if e.RunID != run || e.Seq > seq {
			continue
		}
		p, err := event.As[event.AssistantMessagePayload](e)
		if err != nil {
			return 0, err
		}
		n += p.Usage.PromptTokens + p.Usage.OutputTokens
	}
	return n, nil
}

// toolsDropped reports whether the run was retried without tools (the
// model refused them) at or before seq: from then on its requests declare
// none.
func (r *Reader) toolsDropped(ctx context.Context, session, run string, seq int64) (bool, error) {
	evs, err := r.store.EventsOfType(ctx, session, event.StepRetried)
	if err != nil {
		return false, err
	}
	for _, e := range evs {
		if e.RunID != run || e.Seq > seq {
			continue
		}
		p, err := event.As[event.StepRetriedPayload](e)
		if err != nil {
			return false, err
		}
		if p.WithoutTools {
			return true, nil
		}
	}
	return false, nil
}

func sentence(err error) string {
	msg := err.Error()
	if msg == "" {
		return "The model failed without saying why."
	}
	return strings.ToUpper(msg[:1]) + msg[1:]
}

// errToolTimeout is the cause of a tool cut at its deadline.
var errToolTimeout = errors.New("the tool took too long")

const defaultToolTimeout = time.Minute

// maxToolOutput is how much of a tool's output the model reads (about 2,000
// tokens); the rest stays in the log.
const maxToolOutput = 8000

// runTool runs one call in its own goroutine with its own deadline, retries
// it only if the tool declared itself idempotent, and reports its result. A
// tool that does not stop within the cleanup bound after a cancel is given a
// cancelled result and abandoned.
func (s *session) runTool(x core.RunTool) {
	ctx, runID := s.runContext()
	if runID != x.RunID {
		return
	}
	start := time.Now()
	res := tool.Result{Status: tool.Failure}
	attempts := 0
	tools, err := s.toolsOf(runID)
	var t tool.Tool
	ok := false
	if err == nil {
		t, ok = tools.Get(x.Call.Name)
	}
	// Lenient parse, then strict validation: bad arguments never break the
	// loop, they become a result the model can correct. checkArguments
	// already kept malformed calls from being dispatched; this is the same
	// check at the point of use.
	args := tool.ParseArgs(string(x.Call.Arguments))
	var invalid error
	if ok {
		invalid = tools.Validate(x.Call.Name, args)
	}
	switch {
	case !ok:
		res.Content = fmt.Sprintf("The tool %s is no longer available.", x.Call.Name)
	case invalid != nil:
		res.Content = invalid.Error() + invalidHint
	default:
		call := x.Call
		call.Arguments = args.JSON()
		timeout := x.Timeout
		if timeout <= 0 {
			timeout = defaultToolTimeout
		}
		tries := 1
		if t.Spec().Retryable() {
			tries = 2
		}
		// Calls of tools that may not run alongside others take turns.
		if !t.Spec().Parallel {
			if !s.serial.TryLock() {
				if s.r.waitsTurn != nil {
					s.r.waitsTurn(x.Call.ID)
				}
				s.serial.Lock()
			}
			defer s.serial.Unlock()
		}
		for attempts < tries {
			attempts++
			var err error
			res, err = s.callTool(tool.WithSession(ctx, s.id), t, call, timeout)
			if err == nil && res.Status != tool.Failure {
				break
			}
			if err != nil {
				res = tool.Result{Status: tool.Failure, Content: err.Error()}
			}
			if ctx.Err() != nil {
				res = tool.Result{Status: tool.Cancelled, Content: "Cancelled: " + context.Cause(ctx).Error()}
				break
			}
		}
	}
	// The after stage: secrets redacted, long output cut for the model with
	// the whole kept in the log beside it.
	forModel, full := tool.Finish(res, tool.FinishOptions{MaxChars: maxToolOutput, Redact: tool.DefaultRedactions(),
		Handle: "the tool.result event of call " + x.Call.ID + " (field full)"})
	if full == forModel.Content {
		full = ""
	}
	res = forModel
	s.report(fact(event.ToolResult, s.r.now(), runID, event.ToolResultPayload{CallID: x.Call.ID, Name: x.Call.Name,
		Status: string(res.Status), Content: res.Content, Full: full, Data: res.Data, DurationNS: int64(time.Since(start)), Attempts: attempts}))
}

func (s *session) callTool(ctx context.Context, t tool.Tool, call tool.Call, timeout time.Duration) (tool.Result, error) {
	tctx, cancel := context.WithTimeoutCause(ctx, timeout, errToolTimeout)
	defer cancel()
	type outcome struct {
		res tool.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- outcome{err: fmt.Errorf("the tool failed: %v", p)}
			}
		}()
		res, err := t.Run(tctx, call)
		done <- outcome{res, err}
	}()
	select {
	case o := <-done:
		return o.res, o.err
	case <-tctx.Done():
	}
	if ctx.Err() == nil {
		return tool.Result{Status: tool.Failure, Content: fmt.Sprintf("The tool %s took longer than %s and was stopped.", call.Name, timeout)}, nil
	}
	// Cancelled: give the tool a bounded moment to stop cleanly.
	select {
	case o := <-done:
		if o.err == nil && o.res.Status != tool.Failure {
			return o.res, nil
		}
	case <-time.After(s.r.cleanup):
	}
	return tool.Result{Status: tool.Cancelled, Content: "Cancelled: " + context.Cause(ctx).Error()}, nil
}

// ask puts one question to the user for the calls together. Without an
// asker (no UI) the default answer comes at once, so nothing hangs; with a
// deadline, a tick at the deadline lets the machine answer by default.
func (s *session) ask(x core.AskPermission) {
	ctx, runID := s.runContext()
	if runID != x.RunID {
		return
	}
	ids := make([]string, len(x.Calls))
	for i, c := range x.Calls {
		ids[i] = c.ID
	}
	if s.r.asker == nil {
		allow := s.model().Run.Caps.PermissionDefault == "allow"
		s.report(fact(event.PermissionAnswered, s.r.now(), runID, event.PermissionAnsweredPayload{CallIDs: ids, Allowed: allow, ByDefault: true}))
		return
	}
	var once sync.Once
	if !x.Deadline.IsZero() {
		timer := time.AfterFunc(time.Until(x.Deadline), func() {
			once.Do(func() { s.report(fact(event.ClockTick, s.r.now(), "", event.ClockTickPayload{})) })
		})
		defer timer.Stop()
	}
	// The Asker runs in its own goroutine: once the run ends (a cancel
	// answers the question for it) nobody waits for an Asker that ignores
	// its context, neither the run nor Close.
	type reply struct {
		ans Answer
		err error
	}
	got := make(chan reply, 1)
	go func() {
		ans, err := s.r.asker(ctx, s.question(runID, x.Calls))
		got <- reply{ans, err}
	}()
	var rep reply
	select {
	case rep = <-got:
	case <-ctx.Done():
		return
	}
	if rep.err != nil || ctx.Err() != nil {
		return // a cancel or the deadline answers instead
	}
	m := s.model()
	if m.Run.ID != runID || m.Phase != core.AwaitingPermission || !sameCalls(ids, m.Run.Asking) {
		return // answered already (by default, or by the host)
	}
	once.Do(func() {
		s.report(fact(event.PermissionAnswered, s.r.now(), runID, event.PermissionAnsweredPayload{CallIDs: ids, Allowed: rep.ans.Allowed, Feedback: rep.ans.Feedback}))
	})
}

// checkpoint runs the pre-close hooks one after another. They run in their
// own goroutine so that a hook that ignores a cancel cannot keep the run
// open (nor Close waiting): like a tool, it gets the cleanup bound after the
// cancel and is then abandoned, and the run closes without its texts.
func (s *session) checkpoint(x core.RunCheckpoint) {
	ctx, runID := s.runContext()
	if runID != x.RunID {
		return
	}
	done := make(chan []event.InputReceivedPayload, 1)
	go func() { done <- s.runHooks(ctx, runID) }()
	var inputs []event.InputReceivedPayload
	select {
	case inputs = <-done:
	case <-ctx.Done():
		select {
		case inputs = <-done:
		case <-time.After(s.r.cleanup):
			s.r.log.Warn("a checkpoint hook did not stop after the cancel and was abandoned", "session", s.id)
		}
	}
	s.report(fact(event.CheckpointDone, s.r.now(), runID, event.CheckpointDonePayload{Inputs: inputs}))
}

func (s *session) runHooks(ctx context.Context, runID string) []event.InputReceivedPayload {
	var inputs []event.InputReceivedPayload
	for _, h := range s.r.checkpoint {
		if ctx.Err() != nil {
			break
		}
		texts, err := s.runHook(ctx, h, runID)
		if err != nil {
			if ctx.Err() == nil {
				s.r.log.Warn("checkpoint hook failed", "session", s.id, "err", err)
			}
			continue
		}
		for _, t := range texts {
			inputs = append(inputs, event.InputReceivedPayload{InputID: s.r.newID(), Intent: string(core.Steer), Text: t})
		}
	}
	return inputs
}

// runHook runs one hook; a panic is a failure of that hook, not of Quire.
func (s *session) runHook(ctx context.Context, h CheckpointHook, runID string) (texts []string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the checkpoint hook failed: %v", p)
		}
	}()
	return h(ctx, s.id, runID)
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

// close flushes what is left; the flush is queued before close returns.
func (b *deltaBatcher) close() {
	close(b.done)
	<-b.stopped
}

// question describes the calls for the person answering.
func (s *session) question(runID string, calls []tool.Call) Question {
	q := Question{Session: s.id, RunID: runID, Calls: calls}
	reg, err := s.toolsOf(runID)
	for _, c := range calls {
		desc := c.Name + " " + string(c.Arguments)
		if err == nil {
			if t, ok := reg.Get(c.Name); ok {
				desc = tool.Describe(t, c)
			}
		}
		q.Descriptions = append(q.Descriptions, desc)
	}
	return q
}
