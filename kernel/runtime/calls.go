package runtime

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"quire/kernel/compact"
	"quire/kernel/event"
	"quire/kernel/history"
	"quire/kernel/protocol"
	"quire/kernel/provider"
)

// The inspector ("what the model saw", issue 17) reads a session's model
// calls from its log alone: which event asked for each, the request as
// requestAt builds it — the same build, so what it shows is what was sent
// —, where each message came from, and what answered it.

// askers are the indices in evs of the events that asked for a model call,
// in order: call n (1 = the first) was asked for by evs[askers[n-1]]. Each
// step.started asks for one and each step.retried for another. Request
// and the inspector both number calls by it.
func askers(evs []event.Event) []int {
	var out []int
	for i, e := range evs {
		if e.Type == event.StepStarted || e.Type == event.StepRetried {
			out = append(out, i)
		}
	}
	return out
}

// span is one call found in a log: the summary, and the indices in the
// events of what asked for it and what answered it (-1: nothing).
type span struct {
	protocol.CallSummary
	ask, reply, fail, retry, end, firstDelta int
}

// spans reads every call of a session's events in one pass. Runs of a
// session are sequential and a run has one call in flight at a time, so
// whatever answers comes before the run's next asking event.
func spans(evs []event.Event) ([]span, error) {
	var out []span
	open := map[string]int{} // run -> index in out of its unanswered call
	closeWith := func(run string, outcome string, set func(*span)) {
		at, ok := open[run]
		if !ok {
			return
		}
		out[at].Outcome = outcome
		set(&out[at])
		delete(open, run)
	}
	for i, e := range evs {
		switch e.Type {
		case event.StepStarted, event.StepRetried:
			sp := span{ask: i, reply: -1, fail: -1, retry: -1, end: -1, firstDelta: -1,
				CallSummary: protocol.CallSummary{N: len(out) + 1, RunID: e.RunID, Seq: e.Seq, At: e.Time, Outcome: protocol.CallOpen, ReplySeq: -1}}
			if e.Type == event.StepStarted {
				p, err := event.As[event.StepStartedPayload](e)
				if err != nil {
					return nil, err
				}
				sp.Step = p.Step
			} else {
				p, err := event.As[event.StepRetriedPayload](e)
				if err != nil {
					return nil, err
				}
				sp.Step, sp.Attempt = p.Step, p.Attempt
				closeWith(e.RunID, protocol.CallRetried, func(s *span) { s.retry = i })
			}
			open[e.RunID] = len(out)
			out = append(out, sp)
		case event.AssistantDelta:
			if at, ok := open[e.RunID]; ok && out[at].firstDelta < 0 {
				out[at].firstDelta = i
			}
		case event.AssistantMessage:
			p, err := event.As[event.AssistantMessagePayload](e)
			if err != nil {
				return nil, err
			}
			closeWith(e.RunID, protocol.CallReplied, func(s *span) { s.reply, s.ReplySeq, s.PromptTokens = i, e.Seq, p.Usage.PromptTokens })
		case event.StreamFailed:
			closeWith(e.RunID, protocol.CallFailed, func(s *span) { s.fail, s.ReplySeq = i, e.Seq })
		case event.RunFinished:
			closeWith(e.RunID, protocol.CallEnded, func(s *span) { s.end = i })
		}
	}
	return out, nil
}

// Calls lists a session's model calls (only those of run, when run is
// not ""), oldest first: the last protocol.MaxListedCalls of them.
func (r *Reader) Calls(ctx context.Context, session, run string) (protocol.CallList, error) {
	evs, err := r.log(ctx, session, 0)
	if err != nil {
		return protocol.CallList{}, err
	}
	all, err := spans(evs)
	if err != nil {
		return protocol.CallList{}, unreadable(err)
	}
	list := protocol.CallList{Calls: []protocol.CallSummary{}}
	for _, sp := range all {
		if run == "" || sp.RunID == run {
			list.Calls = append(list.Calls, sp.CallSummary)
		}
	}
	list.Total = len(list.Calls)
	if over := len(list.Calls) - protocol.MaxListedCalls; over > 0 {
		list.Calls = list.Calls[over:]
	}
	return list, nil
}

// Inspected is one call as the inspector shows it, and the request it
// was, whole, for a host to render as the model's server received it.
type Inspected struct {
	Call    protocol.Call
	Request provider.Request
}

// Call is the session's nth model call (1 = the first) in full, with a
// diff against call n-1.
func (r *Reader) Call(ctx context.Context, session string, n int) (Inspected, error) {
	evs, err := r.log(ctx, session, 0)
	if err != nil {
		return Inspected{}, err
	}
	all, err := spans(evs)
	if err != nil {
		return Inspected{}, unreadable(err)
	}
	if n < 1 || n > len(all) {
		return Inspected{}, protocol.Classify(protocol.ErrNotFound, fmt.Errorf("%w: call %d of %d", ErrNoSuchStep, n, len(all)))
	}
	origins := originReader{r: r, session: session, own: evs}
	cur, err := r.inspect(ctx, session, evs, all[n-1], &origins)
	if err != nil {
		return Inspected{}, err
	}
	call := cur.call
	if n > 1 {
		prev, err := r.inspect(ctx, session, evs, all[n-2], &origins)
		if err != nil {
			return Inspected{}, err
		}
		d := diffCalls(prev.call, cur.call, prev.req, cur.req)
		call.Diff = &d
	}
	bound(&call)
	return Inspected{Call: call, Request: cur.req}, nil
}

// inspection is one call described, unbounded.
type inspection struct {
	call protocol.Call
	req  provider.Request
}

// inspect builds the call's request as requestAt does and describes it.
func (r *Reader) inspect(ctx context.Context, session string, evs []event.Event, sp span, origins *originReader) (inspection, error) {
	caps, err := capsOfRun(evs, sp.RunID)
	if err != nil {
		return inspection{}, err
	}
	at := compactedAt(evs[sp.ask:], sp.RunID)
	b, err := r.build(ctx, session, sp.RunID, at, caps)
	if err != nil {
		return inspection{}, err
	}
	c := protocol.Call{Summary: sp.CallSummary, BuiltAt: at, Model: b.req.Model,
		Options:  protocol.CallOptions{NumCtx: b.req.ContextLen, Temperature: b.req.Temperature, Think: b.req.Think},
		Messages: make([]protocol.CallMessage, 0, len(b.req.Messages)), Tools: []protocol.CallTool{}}
	if b.toolsDropped {
		c.ToolsOff = event.ToolsOffRefused
	}
	zones := origins.zones(b.hash)
	for i, m := range b.req.Messages {
		var o protocol.CallOrigin
		if i < len(b.zones) {
			o = zones[i]
		} else if o, err = origins.of(ctx, b.history[i-len(b.zones)]); err != nil {
			return inspection{}, err
		}
		tokens := compact.MessageTokens(m)
		c.Messages = append(c.Messages, protocol.CallMessage{Role: string(m.Role), Content: m.Content, ToolName: m.ToolName,
			ToolCallID: m.ToolCallID, ToolCalls: toolCalls(m.ToolCalls), Origin: o, Tokens: tokens, Bytes: len(m.Content), Change: protocol.ChangeSame})
		if m.Role == provider.RoleSystem {
			c.Tokens.System += tokens
		} else {
			c.Tokens.History += tokens
		}
	}
	for _, t := range b.req.Tools {
		tokens := compact.ToolTokens(t)
		c.Tools = append(c.Tools, protocol.CallTool{Name: t.Name, Description: t.Description, Tokens: tokens})
		c.Tokens.Tools += tokens
	}
	c.MessageCount = len(c.Messages)
	c.Tokens.Total = compact.RequestTokens(b.req)
	c.Tokens.Window, c.Tokens.Estimate = b.req.ContextLen, true
	if err := answer(&c, evs, sp); err != nil {
		return inspection{}, err
	}
	return inspection{call: c, req: b.req}, nil
}

// answer fills in what answered the call: its reply, or its failure.
func answer(c *protocol.Call, evs []event.Event, sp span) error {
	asked := evs[sp.ask].Time
	switch {
	case sp.reply >= 0:
		e := evs[sp.reply]
		p, err := event.As[event.AssistantMessagePayload](e)
		if err != nil {
			return unreadable(err)
		}
		c.Reply = &protocol.CallReply{Seq: e.Seq, At: e.Time, Content: p.Content, Thinking: p.Thinking, ToolCalls: eventCalls(p.ToolCalls),
			DoneReason: p.DoneReason, Interrupted: p.Interrupted, PromptTokens: p.Usage.PromptTokens, OutputTokens: p.Usage.OutputTokens,
			DurationNS: p.Usage.DurationNS, TotalNS: e.Time.Sub(asked).Nanoseconds()}
		if sp.firstDelta >= 0 {
			c.Reply.FirstTokenNS = evs[sp.firstDelta].Time.Sub(asked).Nanoseconds()
		}
		c.Tokens.Counted = p.Usage.PromptTokens
	case sp.fail >= 0:
		e := evs[sp.fail]
		p, err := event.As[event.StreamFailedPayload](e)
		if err != nil {
			return unreadable(err)
		}
		c.Failure = &protocol.CallFail{Seq: e.Seq, Class: p.Class, Message: p.Message, RetrySeq: -1}
	case sp.retry >= 0:
		e := evs[sp.retry]
		p, err := event.As[event.StepRetriedPayload](e)
		if err != nil {
			return unreadable(err)
		}
		c.Failure = &protocol.CallFail{Seq: e.Seq, Message: p.Reason, RetrySeq: e.Seq, RetryReason: p.Reason}
	}
	return nil
}

func toolCalls(cs []provider.ToolCall) []protocol.CallToolCall {
	var out []protocol.CallToolCall
	for _, c := range cs {
		out = append(out, protocol.CallToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
	}
	return out
}

func eventCalls(cs []event.ToolCall) []protocol.CallToolCall {
	var out []protocol.CallToolCall
	for _, c := range cs {
		out = append(out, protocol.CallToolCall{ID: c.ID, Name: c.Name, Arguments: string(c.Arguments)})
	}
	return out
}

// originReader says which event each projected message came from: the
// session's own log, and a branch's parents' logs when a message is
// theirs (read once each).
type originReader struct {
	r       *Reader
	session string
	own     []event.Event
	others  map[string][]event.Event
}

// zones are the origins of the system text's zones: the context.text that
// holds the text with this hash.
func (o *originReader) zones(hash string) []protocol.CallOrigin {
	if hash == "" {
		return nil
	}
	for _, e := range o.own {
		if e.Type != event.ContextText {
			continue
		}
		p, err := event.As[event.ContextTextPayload](e)
		if err != nil || p.Hash != hash {
			continue
		}
		out := make([]protocol.CallOrigin, len(p.Zones))
		for i, z := range p.Zones {
			out[i] = protocol.CallOrigin{Event: string(event.ContextText), Seq: e.Seq, Zone: z.Zone, Hash: hash, Parts: partsOf(p.Parts, z.Zone)}
		}
		return out
	}
	return nil
}

// partsOf are the parts (named "zone/name") of one zone, by name.
func partsOf(parts []string, zone string) []string {
	var out []string
	for _, p := range parts {
		if name, ok := strings.CutPrefix(p, zone+"/"); ok {
			out = append(out, name)
		}
	}
	return out
}

// of is the origin of one projected history entry.
func (o *originReader) of(ctx context.Context, en history.Entry) (protocol.CallOrigin, error) {
	out := protocol.CallOrigin{Seq: en.Seq}
	if en.Session != o.session {
		out.Session = en.Session
	}
	evs := o.own
	if en.Session != o.session {
		if o.others == nil {
			o.others = map[string][]event.Event{}
		}
		if _, ok := o.others[en.Session]; !ok {
			got, err := o.r.log(ctx, en.Session, 0)
			if err != nil {
				return out, err
			}
			o.others[en.Session] = got
		}
		evs = o.others[en.Session]
	}
	if en.Replace > 0 {
		out.Event, out.Seq, out.From = string(event.HistoryReplace), en.Replace, en.Seq
		if e, ok := bySeq(evs, en.Replace); ok {
			if p, err := event.As[event.HistoryReplacePayload](e); err == nil {
				out.To = p.To
				if p.Compaction != nil {
					out.Strategy = p.Compaction.Strategy
				}
			}
		}
		return out, nil
	}
	if e, ok := bySeq(evs, en.Seq); ok {
		out.Event = string(e.Type)
	}
	return out, nil
}

// bySeq finds the event with seq in a log (seqs are dense from 0, so it
// is nearly always at that index).
func bySeq(evs []event.Event, seq int64) (event.Event, bool) {
	if seq >= 0 && seq < int64(len(evs)) && evs[seq].Seq == seq {
		return evs[seq], true
	}
	i, ok := slices.BinarySearchFunc(evs, seq, func(e event.Event, s int64) int { return int(e.Seq - s) })
	if !ok {
		return event.Event{}, false
	}
	return evs[i], true
}

// diffCalls marks what changed from the call before (prev) to this one
// (cur), message by message: a message is the same when it comes from the
// same event (a zone of the system text: the same zone with the same
// text), added when the call before did not have it; the earlier call's
// messages this one lacks are removed, or replaced when a summary of this
// call covers their event.
func diffCalls(prev, cur protocol.Call, prevReq, curReq provider.Request) protocol.CallDiff {
	d := protocol.CallDiff{Previous: prev.Summary.N, Removed: []protocol.RemovedMessage{}, ToolsAdded: []string{}, ToolsRemoved: []string{}, OptionsChanged: []string{}}
	before := map[string]string{}
	for _, m := range prev.Messages {
		before[originKey(prev.Summary, m.Origin)] = m.Content
	}
	now := map[string]bool{}
	for i := range cur.Messages {
		m := &cur.Messages[i]
		key := originKey(cur.Summary, m.Origin)
		now[key] = true
		text, had := before[key]
		switch {
		case !had:
			m.Change = protocol.ChangeAdded
			d.Added++
		case text != m.Content:
			m.Change = protocol.ChangeChanged
			d.Changed++
		default:
			m.Change = protocol.ChangeSame
		}
		if m.Role == string(provider.RoleSystem) && m.Change != protocol.ChangeSame {
			d.SystemChanged = true
		}
	}
	for _, m := range prev.Messages {
		if now[originKey(prev.Summary, m.Origin)] {
			continue
		}
		if m.Role == string(provider.RoleSystem) {
			d.SystemChanged = true
		}
		d.Removed = append(d.Removed, protocol.RemovedMessage{Role: m.Role, Origin: m.Origin, Preview: preview(m.Content),
			ReplacedBy: summaryOver(cur.Messages, m.Origin)})
	}
	had := map[string]bool{}
	for _, t := range prevReq.Tools {
		had[t.Name] = true
	}
	has := map[string]bool{}
	for _, t := range curReq.Tools {
		has[t.Name] = true
		if !had[t.Name] {
			d.ToolsAdded = append(d.ToolsAdded, t.Name)
		}
	}
	for _, t := range prevReq.Tools {
		if !has[t.Name] {
			d.ToolsRemoved = append(d.ToolsRemoved, t.Name)
		}
	}
	if prevReq.Model != curReq.Model {
		d.OptionsChanged = append(d.OptionsChanged, "model")
	}
	if prevReq.ContextLen != curReq.ContextLen {
		d.OptionsChanged = append(d.OptionsChanged, "num_ctx")
	}
	if !samePtr(prevReq.Temperature, curReq.Temperature) {
		d.OptionsChanged = append(d.OptionsChanged, "temperature")
	}
	if !samePtr(prevReq.Think, curReq.Think) {
		d.OptionsChanged = append(d.OptionsChanged, "think")
	}
	return d
}

func samePtr[T comparable](a, b *T) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// originKey names the event a message came from; a zone of the system
// text is named by its zone, so a refreshed text shows as changed.
func originKey(c protocol.CallSummary, o protocol.CallOrigin) string {
	if o.Event == string(event.ContextText) {
		return "zone\x00" + o.Zone
	}
	return fmt.Sprintf("%s\x00%d\x00%s", o.Session, o.Seq, o.Event)
}

// summaryOver is the index of the message of msgs that is a summary
// covering the event of o (a removed summary: its first seq), or -1.
func summaryOver(msgs []protocol.CallMessage, o protocol.CallOrigin) int {
	seq := o.Seq
	if o.Event == string(event.HistoryReplace) {
		seq = o.From
	}
	for i, m := range msgs {
		s := m.Origin
		if s.Event == string(event.HistoryReplace) && s.Session == o.Session && s.From <= seq && seq <= s.To && s.Seq != o.Seq {
			return i
		}
	}
	return -1
}

// preview is the start of a removed message's text.
func preview(s string) string {
	const max = 200
	if len(s) <= max {
		return s
	}
	return cut(s, max) + "…"
}

// cut shortens s to at most n bytes, at a character boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// bound keeps a call's detail within its bounds: the last
// MaxShownMessages messages (and removed ones), each text cut at
// MaxShownText, said in Truncated and each message's Cut. The exact
// request is read whole on its own (Request).
func bound(c *protocol.Call) {
	if over := len(c.Messages) - protocol.MaxShownMessages; over > 0 {
		c.Messages, c.Shown, c.Truncated = c.Messages[over:], over, true
	}
	for i := range c.Messages {
		m := &c.Messages[i]
		if len(m.Content) > protocol.MaxShownText {
			m.Content, m.Cut, c.Truncated = cut(m.Content, protocol.MaxShownText), true, true
		}
		for j := range m.ToolCalls {
			if a := m.ToolCalls[j].Arguments; len(a) > protocol.MaxShownText {
				m.ToolCalls[j].Arguments, m.Cut, c.Truncated = cut(a, protocol.MaxShownText), true, true
			}
		}
	}
	for i := range c.Tools {
		if d := c.Tools[i].Description; len(d) > protocol.MaxShownText {
			c.Tools[i].Description, c.Truncated = cut(d, protocol.MaxShownText), true
		}
	}
	if c.Diff != nil && len(c.Diff.Removed) > protocol.MaxShownMessages {
		c.Diff.Removed, c.Truncated = c.Diff.Removed[len(c.Diff.Removed)-protocol.MaxShownMessages:], true
	}
	if r := c.Reply; r != nil {
		for _, s := range []*string{&r.Content, &r.Thinking} {
			if len(*s) > protocol.MaxShownText {
				*s, r.Cut, c.Truncated = cut(*s, protocol.MaxShownText), true, true
			}
		}
		for j := range r.ToolCalls {
			if a := r.ToolCalls[j].Arguments; len(a) > protocol.MaxShownText {
				r.ToolCalls[j].Arguments, r.Cut, c.Truncated = cut(a, protocol.MaxShownText), true, true
			}
		}
	}
}

// Calls lists the session's model calls, as a Reader does.
func (r *Runtime) Calls(ctx context.Context, session, run string) (protocol.CallList, error) {
	return r.reader.Calls(ctx, session, run)
}

// Call is the session's nth model call in full, as a Reader reads it.
func (r *Runtime) Call(ctx context.Context, session string, n int) (Inspected, error) {
	return r.reader.Call(ctx, session, n)
}
