// Package history projects a session's event log into the messages the model
// sees (seed 000 §3). Only user messages, the assistant's whole replies (with
// their tool calls), tool results and history replacements become messages.
// Deltas, run markers and everything else never do, so "does this reach the
// model?" is answered by reading one switch.
//
// It imports only kernel/event and kernel/provider. It must never import a
// database driver, a model client, Wails, memory/, rag/ or tools/.
package history

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"quire/kernel/event"
	"quire/kernel/provider"
)

// SummaryLabel starts the message that stands for replaced history, so the
// model can tell a summary from something the user said.
const SummaryLabel = "Summary of the earlier conversation (the original messages are kept in the log):\n"

// entry is a projected message with the event it came from; a branch's
// projection holds entries of its parents too, whose seqs are their own.
type entry struct {
	session string
	seq     int64
	msg     provider.Message
	// replace is the seq of the history.replace whose summary this is (0:
	// not a summary; seq 0 is always session.created, never a replace).
	replace int64
}

// projection is the state of a fold over one session's events.
type projection struct {
	entries []entry
	// Tool results go back to the model in call order even when the tools
	// finished in another order: results wait here until every earlier call
	// of the same assistant message has its result.
	awaiting []string
	held     map[string]entry
}

// addResult places a tool result (or refusal) for callID.
func (p *projection) addResult(callID string, en entry) {
	if !slices.Contains(p.awaiting, callID) {
		// A result for a call the last reply did not make (the loop recorded
		// it as a kernel.error): the model never asked, so it never sees it.
		return
	}
	if p.held == nil {
		p.held = map[string]entry{}
	}
	p.held[callID] = en
	for len(p.awaiting) > 0 {
		next, ok := p.held[p.awaiting[0]]
		if !ok {
			break
		}
		p.entries = append(p.entries, next)
		delete(p.held, p.awaiting[0])
		p.awaiting = p.awaiting[1:]
	}
}

// apply folds one event in. A replace removes the messages whose events fall
// in its range and puts the summary where the first of them was.
func (p *projection) apply(e event.Event) error {
	if !event.Projected(e.Type) {
		return nil
	}
	v, err := event.Decode(e)
	if err != nil {
		return err
	}
	switch x := v.(type) {
	case event.UserMessagePayload:
		p.entries = append(p.entries, entry{e.Session, e.Seq, provider.Message{Role: provider.RoleUser, Content: x.Text}, 0})
	case event.AssistantMessagePayload:
		m := provider.Message{Role: provider.RoleAssistant, Content: x.Content}
		p.awaiting, p.held = nil, nil
		for _, c := range x.ToolCalls {
			m.ToolCalls = append(m.ToolCalls, provider.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
			p.awaiting = append(p.awaiting, c.ID)
		}
		p.entries = append(p.entries, entry{e.Session, e.Seq, m, 0})
	case event.ToolResultPayload:
		p.addResult(x.CallID, entry{e.Session, e.Seq, provider.Message{Role: provider.RoleTool, Content: x.Content, ToolName: x.Name, ToolCallID: x.CallID}, 0})
	case event.ToolRefusedPayload:
		p.addResult(x.CallID, entry{e.Session, e.Seq, provider.Message{Role: provider.RoleTool, Content: x.Reason, ToolName: x.Name, ToolCallID: x.CallID}, 0})
	case event.HistoryReplacePayload:
		replaced := func(en entry) bool { return en.session == e.Session && en.seq >= x.From && en.seq <= x.To }
		at := slices.IndexFunc(p.entries, func(en entry) bool { return en.session == e.Session && en.seq >= x.From })
		if at < 0 {
			at = len(p.entries)
		}
		kept := p.entries[:at:at]
		summary := entry{e.Session, x.From, provider.Message{Role: provider.RoleUser, Content: SummaryLabel + x.Summary}, e.Seq}
		rest := slices.DeleteFunc(slices.Clone(p.entries[at:]), replaced)
		p.entries = append(append(kept, summary), rest...)
	default:
		return fmt.Errorf("session %s, event %d: %s is marked projected but has no projection", e.Session, e.Seq, e.Type)
	}
	return nil
}

func (p *projection) clone() projection {
	held := make(map[string]entry, len(p.held))
	for k, v := range p.held {
		held[k] = v
	}
	return projection{entries: slices.Clone(p.entries), awaiting: slices.Clone(p.awaiting), held: held}
}

func (p *projection) messages() []provider.Message {
	out := make([]provider.Message, len(p.entries))
	for i, en := range p.entries {
		out[i] = en.msg
	}
	return out
}

// Project turns one session's events (in seq order) into model messages. It
// does not follow branches; Projector does.
func Project(events []event.Event) ([]provider.Message, error) {
	var p projection
	for _, e := range events {
		if err := p.apply(e); err != nil {
			return nil, err
		}
	}
	return p.messages(), nil
}

// Source is what a Projector reads.
type Source interface {
	Session(ctx context.Context, id string) (event.SessionSummary, error)
	// ProjectedEvents returns, in seq order, the session's events in from..to
	// (inclusive) that may become messages; other events may be left out.
	ProjectedEvents(ctx context.Context, session string, from, to int64) ([]event.Event, error)
}

// ErrBranchLoop: a chain of branches leads back to itself (a damaged log).
var ErrBranchLoop = errors.New("branches form a loop")

// Projector projects sessions, following branches to their parents, and
// caches each result under (last seq, replace count). The length of the
// history is never the key: a replace can leave it unchanged. It is safe for
// concurrent use.
type Projector struct {
	src Source

	mu    sync.Mutex
	cache map[string]cached
}

type cached struct {
	lastSeq, replaces int64
	proj              projection
	msgs              []provider.Message
}

// NewProjector returns a Projector over src.
func NewProjector(src Source) *Projector {
	return &Projector{src: src, cache: map[string]cached{}}
}

// Messages returns what the model sees of session now. The returned slice
// is shared with the cache: callers must not modify it.
func (p *Projector) Messages(ctx context.Context, session string) ([]provider.Message, error) {
	return p.MessagesAt(ctx, session, -1)
}

// MessagesAt returns what the model saw of session when its log ended at seq
// upTo (-1: now). A request is always built at a known seq, so it can be
// rebuilt later from the log alone. The cache holds the last fold, keyed by
// (seq, replace count); a later seq extends it — a replace is folded like
// any other event — and an earlier one is folded afresh.
func (p *Projector) MessagesAt(ctx context.Context, session string, upTo int64) ([]provider.Message, error) {
	c, err := p.fold(ctx, session, upTo)
	if err != nil {
		return nil, err
	}
	return c.msgs, nil
}

// Entry is a projected message with the event it stands for: its session
// (a branch's history holds its parents' entries too) and seq. A summary
// made by a history.replace carries the replace's From, and in Replace the
// replace's own seq (0 for every other message), so the inspector can say
// which compaction made it.
type Entry struct {
	Session string
	Seq     int64
	Message provider.Message
	Replace int64
}

// EntriesAt is MessagesAt with each message's origin, so a compaction can
// name the seq range it replaces. The slice is the caller's own.
func (p *Projector) EntriesAt(ctx context.Context, session string, upTo int64) ([]Entry, error) {
	c, err := p.fold(ctx, session, upTo)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, len(c.proj.entries))
	for i, en := range c.proj.entries {
		out[i] = Entry{Session: en.session, Seq: en.seq, Message: en.msg, Replace: en.replace}
	}
	return out, nil
}

// fold is the cached projection of session at upTo (-1: now).
func (p *Projector) fold(ctx context.Context, session string, upTo int64) (cached, error) {
	info, err := p.src.Session(ctx, session)
	if err != nil {
		return cached{}, err
	}
	replaces := info.Replaces
	if upTo < 0 || upTo >= info.LastSeq {
		upTo = info.LastSeq
	} else {
		replaces = -1 // not known for a past seq; the seq alone keys it
	}
	p.mu.Lock()
	c, ok := p.cache[session]
	p.mu.Unlock()
	if ok && c.lastSeq == upTo && (replaces < 0 || c.replaces == replaces) {
		return c, nil
	}
	var proj projection
	from := int64(0)
	if ok && c.lastSeq < upTo {
		// Only appends since the cached fold: continue it.
		proj = c.proj.clone()
		from = c.lastSeq + 1
	} else if proj, err = p.base(ctx, info, map[string]bool{}); err != nil {
		return cached{}, err
	}
	evs, err := p.src.ProjectedEvents(ctx, session, from, upTo)
	if err != nil {
		return cached{}, err
	}
	for _, e := range evs {
		if err := proj.apply(e); err != nil {
			return cached{}, err
		}
	}
	c = cached{lastSeq: upTo, replaces: replaces, proj: proj, msgs: proj.messages()}
	p.mu.Lock()
	p.cache[session] = c
	p.mu.Unlock()
	return c, nil
}

// base is the projection a session starts from: empty, or for a branch its
// parent's projection up to the branch point.
func (p *Projector) base(ctx context.Context, info event.SessionSummary, seen map[string]bool) (projection, error) {
	if info.Parent == nil {
		return projection{}, nil
	}
	if seen[info.ID] {
		return projection{}, fmt.Errorf("session %s: %w", info.ID, ErrBranchLoop)
	}
	seen[info.ID] = true
	parent, err := p.src.Session(ctx, info.Parent.Session)
	if err != nil {
		return projection{}, fmt.Errorf("branch %s: parent: %w", info.ID, err)
	}
	proj, err := p.base(ctx, parent, seen)
	if err != nil {
		return projection{}, err
	}
	evs, err := p.src.ProjectedEvents(ctx, parent.ID, 0, info.Parent.Seq)
	if err != nil {
		return projection{}, err
	}
	for _, e := range evs {
		if err := proj.apply(e); err != nil {
			return projection{}, err
		}
	}
	return proj, nil
}
