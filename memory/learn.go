package memory

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"quire/kernel/event"
	"quire/kernel/provider"
	"quire/kernel/tool"
)

// Learner is the post-run step (a LifecycleSubscriber). When a run finishes
// it records the searches the run made as working memory (what was tried and
// what came of it, so the next run does not repeat them, seed 002 §5.1), and
// asks the model — with its own prompt, through the provider port — which
// facts and preferences of the run are worth keeping. The runtime calls it
// in its own goroutine, after the run's terminal event: it is never on the
// run's critical path.
type Learner struct {
	s       *Store
	model   provider.Provider // nil: no proposals, searches are still recorded
	name    string
	numCtx  int
	timeout time.Duration
	// Searches are the tools whose calls are recorded as attempts.
	Searches []string
}

// DefaultSearches are the tools whose calls count as attempted paths.
var DefaultSearches = []string{"search_docs", "find_notes", "list_notes"}

// Learner returns the post-run step; model may be nil. Proposals are asked
// for only while learning is on (WithLearning, SetLearning).
func (s *Store) Learner(model provider.Provider, name string, numCtx int) *Learner {
	return &Learner{s: s, model: model, name: name, numCtx: numCtx, timeout: 2 * time.Minute, Searches: DefaultSearches}
}

// RunFinished learns from the run that just finished. Failures are logged:
// memory is a help, never a reason for a run to fail.
//
// The searches need only the run's own events, read from its run.started:
// reading the whole log after every run allocated the conversation's size
// each turn (most of what the window's process allocated over a long
// chat). The whole log is read only to propose, which needs the session's
// reads and the run's frozen model.
func (l *Learner) RunFinished(ctx context.Context, session, runID, reason string) {
	// Quire closing meanwhile (a `quire run` that ended) cancels ctx: no
	// fault to warn a user about.
	warn := func(msg string, args ...any) {
		if ctx.Err() == nil {
			l.s.logger.Warn(msg, args...)
		}
	}
	from, err := l.s.log.LastSeqOf(ctx, session, event.RunStarted, runID)
	if err != nil {
		warn("memory: find the finished run", "session", session, "err", err)
		return
	}
	evs, err := l.s.log.Events(ctx, session, max(from, 0))
	if err != nil {
		warn("memory: read the finished run", "session", session, "err", err)
		return
	}
	if err := l.recordSearches(ctx, session, ofRun(evs, runID)); err != nil {
		warn("memory: record searches", "session", session, "err", err)
	}
	if reason != event.ReasonCompleted || l.model == nil || !l.s.Learning() {
		return
	}
	if from > 0 {
		if evs, err = l.s.log.Events(ctx, session, 0); err != nil {
			warn("memory: read the finished run's conversation", "session", session, "err", err)
			return
		}
	}
	run := ofRun(evs, runID)
	if err := l.propose(ctx, session, runID, evs, run, readContent(evs)); err != nil {
		warn("memory: propose facts and preferences", "session", session, "err", err)
	}
}

// ofRun is the events of run runID among evs.
func ofRun(evs []event.Event, runID string) []event.Event {
	return slices.DeleteFunc(slices.Clone(evs), func(e event.Event) bool { return e.RunID != runID })
}

// recordSearches writes one attempt per search call of the run, citing the
// call and its result, unless the same attempt is already remembered.
func (l *Learner) recordSearches(ctx context.Context, session string, run []event.Event) error {
	calls := map[string]struct {
		seq  int64
		call event.ToolCall
	}{}
	for _, e := range run {
		if e.Type != event.AssistantMessage {
			continue
		}
		p, err := event.As[event.AssistantMessagePayload](e)
		if err != nil {
			return err
		}
		for _, c := range p.ToolCalls {
			calls[c.ID] = struct {
				seq  int64
				call event.ToolCall
			}{e.Seq, c}
		}
	}
	known, err := l.s.Session(ctx, session)
	if err != nil {
		return err
	}
	for _, e := range run {
		if e.Type != event.ToolResult {
			continue
		}
		p, err := event.As[event.ToolResultPayload](e)
		if err != nil {
			return err
		}
		c, ok := calls[p.CallID]
		if !ok || !slices.Contains(l.Searches, p.Name) {
			continue
		}
		text := clip(fmt.Sprintf("%s %s → %s: %s", p.Name, compactJSON(c.call.Arguments), p.Status, firstLine(p.Content)), MaxText)
		if slices.ContainsFunc(known, func(it Item) bool { return it.Text == text }) {
			continue
		}
		if err := l.s.noteWorking(ctx, session, ByAuto, []WorkingItem{{Note: Attempt, Text: text}}, []int64{c.seq, e.Seq}); err != nil {
			return err
		}
		known = append(known, Item{Text: text})
	}
	return nil
}

// proposalPrompt is the proposer's own instruction.
const proposalPrompt = `You choose what an assistant for notes should remember about its user after a conversation.
Reply with one JSON object and nothing else: {"facts": ["..."], "preferences": ["..."]}.
facts: lasting facts about the user's world that the user stated (people, projects, places, where things are kept).
preferences: how the user wants notes named, filed, tagged or written.
At most 3 of each, one short sentence each, written about "the user". Leave out anything under "Already known",
anything only about this one task, and guesses. Use empty lists when nothing is worth keeping.`

// maxTranscript bounds the conversation the proposer reads (characters).
const maxTranscript = 6000

// readContent reports whether the conversation holds text the user did
// not write: a result from a tool that reads or reaches the network
// (ReadFs or Net, as the run's frozen capabilities declare it), a run that
// offered an MCP server's declaration, or a read inherited by a branch. A
// proposal drawn from it may be that text's, not the user's. The kernel
// folds the same fact for its permission decision (core.Model.Read).
func readContent(evs []event.Event) bool {
	effects := map[string]tool.Effect{}
	for _, e := range evs {
		switch e.Type {
		case event.InputReceived:
			if in, err := event.As[event.InputReceivedPayload](e); err == nil && in.Caps != nil {
				if in.Caps.Read {
					return true // the history a branch inherits was read
				}
				for _, d := range in.Caps.Tools {
					if d.Foreign {
						return true // an MCP server's declaration, in every request
					}
					effects[d.Name] = tool.Effect(d.Effects)
				}
			}
		case event.ToolResult:
			// As kernel/core's Model.Read: a read's or a networked tool's result.
			if p, err := event.As[event.ToolResultPayload](e); err == nil && effects[p.Name]&(tool.ReadFs|tool.Net) != 0 {
				return true
			}
		}
	}
	return false
}

// modelOf is the chat model and context length the run was frozen with
// (the capabilities of the input.received that opened it), so a model chosen in Settings since
// Quire started is the one asked; the Learner's own are for a run whose
// snapshot is not among its events.
func (l *Learner) modelOf(evs []event.Event, runID string) (string, int) {
	for _, e := range evs {
		if e.Type != event.InputReceived {
			continue
		}
		p, err := event.As[event.InputReceivedPayload](e)
		if err == nil && p.RunID == runID && p.Caps != nil && p.Caps.Model != "" {
			return p.Caps.Model, cmp.Or(p.Caps.NumCtx, l.numCtx)
		}
	}
	return l.name, l.numCtx
}

// propose asks the model for facts and preferences of the run. They wait in
// the panel unless the user lets Quire remember without asking and the
// conversation has read nothing (read).
func (l *Learner) propose(ctx context.Context, session, runID string, evs, run []event.Event, read bool) error {
	var lines []string
	var sources []int64
	for _, e := range run {
		switch e.Type {
		case event.UserMessage:
			p, err := event.As[event.UserMessagePayload](e)
			if err != nil {
				return err
			}
			lines = append(lines, "User: "+p.Text)
			sources = append(sources, e.Seq)
		case event.AssistantMessage:
			p, err := event.As[event.AssistantMessagePayload](e)
			if err != nil {
				return err
			}
			if strings.TrimSpace(p.Content) != "" {
				lines = append(lines, "Assistant: "+p.Content)
				sources = append(sources, e.Seq)
			}
		}
	}
	if len(sources) == 0 {
		return nil
	}
	transcript := strings.Join(lines, "\n")
	if len(transcript) > maxTranscript {
		transcript = "…" + transcript[len(transcript)-maxTranscript:]
	}
	all, err := l.s.List(ctx)
	if err != nil {
		return err
	}
	var known []string
	for _, it := range all {
		if it.Kind != Working {
			known = append(known, "- "+it.Text)
		}
	}
	ask := "Already known:\n" + strings.Join(known, "\n") + "\n\nConversation:\n" + transcript
	ctx, cancel := context.WithTimeout(ctx, l.timeout)
	defer cancel()
	name, numCtx := l.modelOf(evs, runID)
	req := provider.Request{Model: name, ContextLen: numCtx, Messages: []provider.Message{
		{Role: provider.RoleSystem, Content: proposalPrompt}, {Role: provider.RoleUser, Content: ask}}}
	text, usage, serr := provider.Collect(ctx, l.model, req)
	// Not a run, but what the model was sent about the user is in the log
	// all the same (model.consulted), before the reply is acted on.
	consulted := event.Consulted(event.ConsultedByLearner, name, numCtx, []event.ConsultedMessage{
		{Role: string(provider.RoleSystem), Content: proposalPrompt}, {Role: string(provider.RoleUser), Content: ask}},
		text, event.Usage(usage), serr)
	if _, err := l.s.append(ctx, session, event.Draft{Type: event.ModelConsulted, Time: l.s.now(), RunID: runID, Payload: consulted}); err != nil {
		return errors.Join(serr, err)
	}
	if serr != nil {
		return serr
	}
	var got struct {
		Facts       []string `json:"facts"`
		Preferences []string `json:"preferences"`
	}
	start, end := strings.Index(text, "{"), strings.LastIndex(text, "}")
	if start < 0 || end < start {
		return fmt.Errorf("the model's proposal is not a JSON object: %q", clip(text, 200))
	}
	if err := json.Unmarshal([]byte(text[start:end+1]), &got); err != nil {
		return fmt.Errorf("the model's proposal is not the JSON asked for: %w", err)
	}
	for _, k := range []struct {
		kind  string
		texts []string
	}{{Fact, got.Facts}, {Preference, got.Preferences}} {
		kind, texts := k.kind, k.texts
		for _, t := range texts[:min(len(texts), 3)] {
			t = strings.TrimSpace(t)
			if t == "" || slices.ContainsFunc(all, func(it Item) bool { return strings.EqualFold(it.Text, t) }) {
				continue
			}
			p := event.MemoryRememberPayload{Kind: kind, Text: clip(t, MaxText), Origin: ByProposal, Pending: read || l.s.Approval()}
			if _, err := l.s.remember(ctx, session, p, sources); err != nil {
				return err
			}
		}
	}
	return nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return clip(s, 120)
}

func compactJSON(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return clip(s, 120)
	}
	b, _ := json.Marshal(v)
	return clip(string(b), 120)
}

// clip cuts s to at most n characters, marking the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
