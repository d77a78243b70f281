package compact

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"quire/kernel/event"
	"quire/kernel/history"
	"quire/kernel/provider"
)

// WindowSource tells the context length a model was trained for (Ollama's
// /api/show model_info "<arch>.context_length"); zero when unknown.
type WindowSource interface {
	ContextLength(ctx context.Context, model string) (int, error)
}

// WindowFunc adapts a function to WindowSource.
type WindowFunc func(ctx context.Context, model string) (int, error)

func (f WindowFunc) ContextLength(ctx context.Context, model string) (int, error) {
	return f(ctx, model)
}

// fallbackWindow is Ollama's num_ctx when a request sets none, on the
// small machines Quire is for.
const fallbackWindow = 4096

// Input is what the runtime shows a compaction before a step.
type Input struct {
	Session string
	// Request is what would be sent now: system zones, history, tools.
	Request provider.Request
	// History is the history part of Request, each message with its origin.
	History []history.Entry
	// Forced: the model refused the request as longer than its context.
	Forced bool
	// Reported is the prompt_eval_count the model reported for this
	// session's latest reply (zero if none), ReportedSeq that reply's seq.
	Reported    int
	ReportedSeq int64
	// Model is the provider the summary and fact requests go to.
	Model provider.Provider
}

// Compactor decides and makes compactions. It is safe for concurrent use.
type Compactor struct {
	policy Policy
	window WindowSource
	memory WorkingMemory
	log    *slog.Logger
	cal    Calibration

	mu      sync.Mutex
	windows map[string]int         // model -> trained context length
	sent    map[string]sentRequest // session -> the last request it let through
}

type sentRequest struct {
	model    string
	raw      int
	reported int64 // ReportedSeq seen at that time
}

// Option configures a Compactor.
type Option func(*Compactor)

// WithPolicy replaces DefaultPolicy.
func WithPolicy(p Policy) Option { return func(c *Compactor) { c.policy = p } }

// WithWindow sets where the model's trained context length comes from.
func WithWindow(w WindowSource) Option { return func(c *Compactor) { c.window = w } }

// WithWorkingMemory turns on the extract-facts strategy.
func WithWorkingMemory(m WorkingMemory) Option { return func(c *Compactor) { c.memory = m } }

// WithLogger logs decisions and discarded compactions at debug level.
func WithLogger(l *slog.Logger) Option { return func(c *Compactor) { c.log = l } }

// New returns a Compactor with DefaultPolicy.
func New(opts ...Option) *Compactor {
	c := &Compactor{policy: DefaultPolicy, log: slog.New(slog.DiscardHandler), windows: map[string]int{}, sent: map[string]sentRequest{}}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Calibration is the per-model estimate correction learnt so far.
func (c *Compactor) Calibration() *Calibration { return &c.cal }

// Window is the tokens the model can take: the request's num_ctx, capped
// by the model's trained context when the WindowSource knows it.
func (c *Compactor) Window(ctx context.Context, req provider.Request) int {
	w := req.ContextLen
	if c.window != nil {
		c.mu.Lock()
		n, ok := c.windows[req.Model]
		c.mu.Unlock()
		if !ok {
			var err error
			if n, err = c.window.ContextLength(ctx, req.Model); err != nil {
				c.log.Debug("model context length unknown", "model", req.Model, "err", err)
				n = 0 // asked again next time
			} else {
				c.mu.Lock()
				c.windows[req.Model] = n
				c.mu.Unlock()
			}
		}
		if n > 0 && (w <= 0 || n < w) {
			w = n
		}
	}
	if w <= 0 {
		w = fallbackWindow
	}
	return w
}

// Figures are the pollution figures of in.Request, with the calibrated
// size of each history message.
func (c *Compactor) Figures(ctx context.Context, in Input) (event.Pollution, []Sized, int) {
	f := c.cal.Factor(in.Request.Model)
	fixedRaw := ToolsTokens(in.Request.Tools)
	for _, m := range in.Request.Messages[:len(in.Request.Messages)-len(in.History)] {
		fixedRaw += MessageTokens(m)
	}
	fixed := scale(fixedRaw, f)
	sized := make([]Sized, len(in.History))
	for i, e := range in.History {
		sized[i] = Sized{Entry: e, Tokens: scale(MessageTokens(e.Message), f)}
	}
	return Measure(fixed, sized, c.policy.KeepRecent, c.Window(ctx, in.Request), c.policy.LowValueTokens), sized, fixed
}

// Compact decides whether in.Request needs compacting and, if so, returns
// the history.replace drafts that make it smaller (the caller stamps time
// and run and appends them). No drafts and no error: nothing to do, or
// nothing that would help. A strategy that fails is skipped for the next.
func (c *Compactor) Compact(ctx context.Context, in Input) ([]event.Draft, error) {
	if len(in.History) > len(in.Request.Messages) {
		return nil, fmt.Errorf("compact: %d history messages in a request of %d", len(in.History), len(in.Request.Messages))
	}
	c.calibrate(in)
	fig, sized, fixed := c.Figures(ctx, in)
	d := Decide(fig, c.policy, in.Forced, c.memory != nil)
	if !d.Compact {
		c.remember(in, in.Request)
		return nil, nil
	}
	c.log.Debug("compacting", "session", in.Session, "trigger", d.Trigger, "fill", fig.Fill, "index", fig.Index)
	keep := c.policy.KeepRecent
	if in.Forced {
		keep = min(keep, 2) // the request does not fit at all: keep less
	}
	tokens := fig.Tokens
	if in.Forced {
		// The model counted more than the window holds, whatever the
		// estimate says (a tokenizer that counts more than it): the
		// request must get smaller than the window, not only than itself.
		tokens = max(tokens, fig.Window+1)
	}
	target := c.policy.TargetTokens(fixed, fig.Window)
	var drafts []event.Draft
	made := map[int64]bool{} // spans replaced by this call, by From
	// try replaces sp by strategy and keeps the replace if it makes the
	// request smaller; it reports whether it did.
	try := func(strategy string, sp Span) bool {
		draft, next, items, err := c.apply(ctx, in, strategy, sp, sized, max(target-(tokens-spanTokens(sized, sp)), 0))
		if err != nil {
			if !errors.Is(err, errNothing) {
				c.log.Debug("compaction strategy failed", "session", in.Session, "strategy", strategy, "err", err)
			}
			return false
		}
		after := fixed + sum(next)
		if after >= tokens {
			c.log.Debug("compaction discarded", "session", in.Session, "strategy", strategy, "err", ErrNotSmaller, "before", tokens, "after", after)
			return false
		}
		if items != nil {
			// Written only for a replace that is kept, so every item in
			// working memory stands for history the model no longer sees.
			if err := c.memory.NoteWorking(ctx, in.Session, items, draft.Sources); err != nil {
				c.log.Debug("working memory refused the facts", "session", in.Session, "err", err)
				return false
			}
		}
		p := draft.Payload.(event.HistoryReplacePayload)
		p.Compaction.Trigger, p.Compaction.Figures = d.Trigger, fig
		p.Compaction.BeforeTokens, p.Compaction.AfterTokens = tokens, after
		draft.Payload = p
		drafts = append(drafts, draft)
		sized, tokens = next, after
		made[sp.From] = true
		return true
	}
	for _, strategy := range d.Strategies {
		if tokens <= target {
			break
		}
		spans := Spans(entries(sized), in.Session, keep)
		// From the last span back, so the indexes of earlier ones hold.
		for _, sp := range slices.Backward(spans) {
			if sp.First == sp.Last && sized[sp.First].Tokens <= c.policy.LowValueTokens {
				continue // a short summary alone: nothing worth a model call
			}
			try(strategy, sp)
		}
	}
	// Still too big: one message alone takes too much of the window (a
	// reply that ran away, text where a character is a token), wherever
	// it is — the recent tail too. It is summarised, or else cut, on its
	// own; only the latest user request is never touched.
	// A tool step is cut only when the model refused the request: a result
	// the model has not seen yet is what it asked for, and a request that
	// still fits is better sent whole than with the answer cut.
	for _, sp := range slices.Backward(Oversize(entries(sized), in.Session, sizes(sized), c.oversize(fixed, fig.Window), in.Forced)) {
		if tokens <= target {
			break
		}
		if made[sp.From] {
			continue
		}
		if in.Model == nil || !try(StrategySummarise, sp) {
			try(StrategyCut, sp)
		}
	}
	if len(drafts) > 0 {
		req := in.Request
		req.Messages = append(slices.Clone(req.Messages[:len(req.Messages)-len(in.History)]), messages(sized)...)
		c.remember(in, req)
	}
	return drafts, nil
}

// errNothing: the strategy has nothing to do on this span.
var errNothing = errors.New("nothing to compact in this span")

// apply runs one strategy on one span and returns the replace draft and
// the history as it would be after it.
func (c *Compactor) apply(ctx context.Context, in Input, strategy string, sp Span, sized []Sized, room int) (event.Draft, []Sized, []Item, error) {
	part := sized[sp.First : sp.Last+1]
	es := entries(part)
	var text string
	var dropped []string
	var items []Item
	switch strategy {
	case StrategyDropLogs:
		sizes := make([]int, len(part))
		for i, s := range part {
			sizes[i] = s.Tokens
		}
		text, dropped = dropLogs(es, sizes, c.policy.LowValueTokens)
		if len(dropped) == 0 {
			return event.Draft{}, nil, nil, errNothing
		}
	case StrategyCut:
		// All the room the target leaves the span, but never more than
		// half of what it was: a cut always makes progress.
		text, dropped = cutStub(es, max(min(room, spanTokens(sized, sp)/2), minCutTokens))
		if len(dropped) == 0 {
			return event.Draft{}, nil, nil, errNothing
		}
	case StrategySummarise, StrategyExtractFacts:
		if in.Model == nil {
			return event.Draft{}, nil, nil, errors.New("no model to ask")
		}
		// The transcript, the latest request and the prompt must fit the
		// window with room for the answer.
		budget := max(c.Window(ctx, in.Request)/2-transcriptCap, 100)
		tx := transcript(es, budget)
		if l := Latest(entries(sized)); l >= 0 {
			// What matters in the transcript depends on what the user asked.
			tx = "The user's latest request (it stays in the conversation word for word): " +
				cut(sized[l].Message.Content, transcriptCap) + "\n\nTranscript to compact:\n" + tx
		}
		if strategy == StrategySummarise {
			s, err := ask(ctx, in.Model, in.Request.Model, in.Request.ContextLen, SummarisePrompt, tx)
			if err != nil {
				return event.Draft{}, nil, nil, err
			}
			text = s
		} else {
			answer, err := ask(ctx, in.Model, in.Request.Model, in.Request.ContextLen, FactsPrompt, tx)
			if err != nil {
				return event.Draft{}, nil, nil, err
			}
			if items, err = parseFacts(answer); err != nil {
				return event.Draft{}, nil, nil, err
			}
			text = factsText(items)
		}
	default:
		return event.Draft{}, nil, nil, fmt.Errorf("unknown strategy %q", strategy)
	}
	if Latest(entries(sized)) >= 0 {
		if sp.BeforeLatest {
			text += "\n(The user's latest request follows this summary, word for word.)"
		} else {
			text += "\n(This is the work done so far on the user's latest request, which is the last user message before this summary.)"
		}
	}
	summary := provider.Message{Role: provider.RoleUser, Content: history.SummaryLabel + text}
	next := slices.Concat(sized[:sp.First],
		[]Sized{{Entry: history.Entry{Session: in.Session, Seq: sp.From, Message: summary}, Tokens: scale(MessageTokens(summary), c.cal.Factor(in.Request.Model))}},
		sized[sp.Last+1:])
	draft := event.Draft{Type: event.HistoryReplace, Sources: sources(es, in.Session),
		Payload: event.HistoryReplacePayload{From: sp.From, To: sp.To, Summary: text,
			Compaction: &event.CompactionRecord{Strategy: strategy, Dropped: dropped}}}
	return draft, next, items, nil
}

// calibrate pairs the prompt tokens the model reported with the estimate
// of the request this compactor last let through for the session.
func (c *Compactor) calibrate(in Input) {
	if in.Reported <= 0 {
		return
	}
	c.mu.Lock()
	last, ok := c.sent[in.Session]
	c.mu.Unlock()
	if ok && last.model == in.Request.Model && in.ReportedSeq > last.reported {
		c.cal.Observe(last.model, last.raw, in.Reported)
	}
}

func (c *Compactor) remember(in Input, sent provider.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sent[in.Session] = sentRequest{model: sent.Model, raw: RequestTokens(sent), reported: in.ReportedSeq}
}

// minCutTokens is the least a cut leaves of a span, so it still says
// what was there.
const minCutTokens = 48

// oversize is the size from which one message alone is too much: a
// quarter of the room the size trigger leaves beside the fixed part.
func (c *Compactor) oversize(fixed, window int) int {
	room := int(min(c.policy.SizeTrigger, 1)*float64(window)) - fixed
	return max(room/4, c.policy.LowValueTokens)
}

func spanTokens(s []Sized, sp Span) int { return sum(s[sp.First : sp.Last+1]) }

func sizes(s []Sized) []int {
	out := make([]int, len(s))
	for i, x := range s {
		out[i] = x.Tokens
	}
	return out
}

func entries(s []Sized) []history.Entry {
	out := make([]history.Entry, len(s))
	for i, x := range s {
		out[i] = x.Entry
	}
	return out
}

func messages(s []Sized) []provider.Message {
	out := make([]provider.Message, len(s))
	for i, x := range s {
		out[i] = x.Message
	}
	return out
}

func sum(s []Sized) int {
	n := 0
	for _, x := range s {
		n += x.Tokens
	}
	return n
}

// sources are the seqs of the session's own events a span stands for.
func sources(es []history.Entry, session string) []int64 {
	var out []int64
	for _, e := range es {
		if e.Session == session && !slices.Contains(out, e.Seq) {
			out = append(out, e.Seq)
		}
	}
	slices.Sort(out)
	return out
}
