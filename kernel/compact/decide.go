package compact

import (
	"strings"
	"unicode/utf8"

	"quire/kernel/event"
	"quire/kernel/history"
	"quire/kernel/provider"
)

// Triggers and strategies, as recorded in event.CompactionRecord.
const (
	TriggerSize      = "size"
	TriggerPollution = "pollution"
	TriggerOverflow  = "overflow"

	StrategyDropLogs     = "drop-logs"
	StrategyExtractFacts = "extract-facts"
	StrategySummarise    = "summarise"
	// StrategyCut keeps a message's head and tail (cutStub): the last
	// resort for one message too long for the window, which needs no
	// model and always makes progress.
	StrategyCut = "cut"
)

// Policy is when to compact and what to keep.
type Policy struct {
	// SizeTrigger: compact when the request fills this share of the window.
	SizeTrigger float64
	// PollutionTrigger: compact when the pollution index reaches this...
	PollutionTrigger float64
	// MinFill: ...but only once the request fills at least this share: a
	// small context is cheap however polluted it is.
	MinFill float64
	// Target: a compaction goes on with the next strategy until the
	// history takes no more than this share of the room SizeTrigger leaves
	// it beside the fixed part (system zones and tools), so that the next
	// steps do not trigger again at once.
	Target float64
	// KeepRecent: this many messages at the end stay verbatim (the model's
	// latest step and what it saw).
	KeepRecent int
	// LowValueTokens: a tool output longer than this is a long log, the
	// low-value type drop-logs replaces with a stub line.
	LowValueTokens int
}

// DefaultPolicy: compact at 75% full, or at a pollution index of 0.6 once
// a third full; aim for half; keep the last 4 messages; a tool output over
// 200 tokens is a long log.
var DefaultPolicy = Policy{SizeTrigger: 0.75, PollutionTrigger: 0.6, MinFill: 0.33, Target: 0.5, KeepRecent: 4, LowValueTokens: 200}

// Sized is a history entry with its estimated tokens.
type Sized struct {
	history.Entry
	Tokens int
}

// dupMinRunes: shorter lines (blank, "}", "---") repeat by nature and are
// not duplicated content.
const dupMinRunes = 16

// Measure computes the pollution figures of a request: fixed is the
// estimate of what compaction may not touch (system zones, tools), hist the
// history with each message's estimate, window the tokens the model can
// take. Fill is of the whole request. The shares are of the history's
// tokens except the last recent messages: what the model is working on
// now is kept verbatim whatever it is, so it is not counted as pollution —
// counting it would trigger a compaction that has nothing to remove.
func Measure(fixed int, hist []Sized, recent, window, lowValueTokens int) event.Pollution {
	f := event.Pollution{Tokens: fixed, Window: window}
	for _, h := range hist {
		f.Tokens += h.Tokens
	}
	if window > 0 {
		f.Fill = float64(f.Tokens) / float64(window)
	}
	total := 0
	bySource := map[string]int{}
	low := 0
	seen := map[string]bool{}
	dupChars, allChars := 0, 0
	for _, h := range hist[:max(len(hist)-recent, 0)] {
		total += h.Tokens
		m := h.Message
		if m.Role == provider.RoleTool {
			bySource[m.ToolName] += h.Tokens
			if h.Tokens > lowValueTokens {
				low += h.Tokens
			}
		}
		for line := range strings.Lines(m.Content) {
			line = strings.TrimSpace(line)
			n := utf8.RuneCountInString(line)
			allChars += n
			if n < dupMinRunes {
				continue
			}
			if seen[line] {
				dupChars += n
			}
			seen[line] = true
		}
	}
	if total > 0 {
		for src, n := range bySource {
			share := float64(n) / float64(total)
			if share > f.TopSourceShare || (share == f.TopSourceShare && src < f.TopSource) {
				f.TopSource, f.TopSourceShare = src, share
			}
		}
		f.LowValueShare = float64(low) / float64(total)
	}
	if allChars > 0 {
		f.DuplicateRatio = float64(dupChars) / float64(allChars)
	}
	f.Index = max(f.TopSourceShare, f.DuplicateRatio, f.LowValueShare)
	return f
}

// TargetTokens is the request size a compaction aims for (see Policy.Target).
func (p Policy) TargetTokens(fixed, window int) int {
	room := max(int(min(p.SizeTrigger, 1)*float64(window))-fixed, 0)
	return fixed + int(p.Target*float64(room))
}

// Decision is whether to compact, why, and the strategies to try in order.
type Decision struct {
	Compact    bool
	Trigger    string
	Strategies []string
}

// Decide reads the figures. forced means the model already refused the
// request as too long. Long logs are dropped first (no model call, nothing
// said is lost); then what remains is turned into facts in working memory
// when there is one, or summarised.
func Decide(f event.Pollution, p Policy, forced, workingMemory bool) Decision {
	var d Decision
	switch {
	case forced:
		d.Trigger = TriggerOverflow
	case f.Window > 0 && f.Fill >= p.SizeTrigger:
		d.Trigger = TriggerSize
	case f.Window > 0 && f.Fill >= p.MinFill && f.Index >= p.PollutionTrigger:
		d.Trigger = TriggerPollution
	default:
		return d
	}
	d.Compact = true
	if f.LowValueShare > 0 {
		d.Strategies = append(d.Strategies, StrategyDropLogs)
	}
	if workingMemory {
		d.Strategies = append(d.Strategies, StrategyExtractFacts)
	}
	d.Strategies = append(d.Strategies, StrategySummarise)
	return d
}

// Span is a run of history entries that may be replaced together: indexes
// First..Last into the history, whose events are seqs From..To.
type Span struct {
	First, Last int
	From, To    int64
	// BeforeLatest: the span ends just before the latest user request (the
	// request follows the summary); otherwise it comes after it.
	BeforeLatest bool
}

// IsSummary reports whether a history message stands for replaced history.
func IsSummary(m provider.Message) bool {
	return m.Role == provider.RoleUser && strings.HasPrefix(m.Content, history.SummaryLabel)
}

// Latest is the index of the latest user request in hist (a user message
// that is not a summary), or -1.
func Latest(hist []history.Entry) int {
	for i := len(hist) - 1; i >= 0; i-- {
		if hist[i].Message.Role == provider.RoleUser && !IsSummary(hist[i].Message) {
			return i
		}
	}
	return -1
}

// Spans are the parts of session's history a compaction may replace: the
// session's own entries (a branch's parent history is not its to replace)
// before the latest user request, and those after it except the last
// keepRecent. Each span starts at a user or assistant message and ends
// where the next message is not a tool result, so an assistant message is
// never separated from the results of its calls. A span may be a single
// earlier summary (a stub grown long can be summarised).
func Spans(hist []history.Entry, session string, keepRecent int) []Span {
	own := 0
	for own < len(hist) && hist[own].Session != session {
		own++
	}
	latest := Latest(hist)
	tailStart := max(len(hist)-keepRecent, 0)
	var out []Span
	add := func(first, last int, before bool) {
		for first <= last && hist[first].Message.Role == provider.RoleTool {
			first++
		}
		for last >= first && last+1 < len(hist) && hist[last+1].Message.Role == provider.RoleTool {
			last--
		}
		if first > last {
			return
		}
		for i := first + 1; i <= last; i++ {
			if hist[i].Seq < hist[i-1].Seq {
				return // not in seq order: a range of seqs would not be this span
			}
		}
		out = append(out, Span{First: first, Last: last, From: hist[first].Seq, To: hist[last].Seq, BeforeLatest: before})
	}
	if latest < 0 {
		add(own, tailStart-1, false)
		return out
	}
	if latest >= own {
		add(own, min(latest, tailStart)-1, true)
	}
	add(max(latest+1, own), tailStart-1, false)
	return out
}

// Oversize are the parts of session's history that a compaction may
// replace on their own because a message in them takes more than over
// tokens (sizes[i] is hist[i]'s): a user message that is not the latest
// request, an assistant message that called no tool, or a tool step — the
// assistant message that called tools with all their results, which stay
// together — one of whose results is that big (a long note read, a note
// in a script where a character is a token). Unlike Spans, the recent
// tail is not spared: a message too long for the window leaves a chat
// unusable wherever it is. Tool steps are among them only with toolSteps
// (the model refused the request as too long).
func Oversize(hist []history.Entry, session string, sizes []int, over int, toolSteps bool) []Span {
	latest := Latest(hist)
	var out []Span
	covered := -1 // the last entry of the tool step added last
	for i, e := range hist {
		m := e.Message
		if e.Session != session || i == latest || i <= covered || sizes[i] <= over {
			continue
		}
		switch {
		case m.Role == provider.RoleUser || (m.Role == provider.RoleAssistant && len(m.ToolCalls) == 0):
			out = append(out, Span{First: i, Last: i, From: e.Seq, To: e.Seq, BeforeLatest: latest > i})
		case m.Role == provider.RoleTool && toolSteps:
			first, last, ok := toolStep(hist, session, i)
			if !ok || latest >= first && latest <= last {
				continue
			}
			out = append(out, Span{First: first, Last: last, From: hist[first].Seq, To: hist[last].Seq, BeforeLatest: latest > first})
			covered = last
		}
	}
	return out
}

// toolStep is the tool step the result hist[i] belongs to: from the
// assistant message that called the tools to its last result, all of
// session's own; ok is false when the results do not follow their call.
func toolStep(hist []history.Entry, session string, i int) (first, last int, ok bool) {
	first = i
	for first > 0 && hist[first].Message.Role == provider.RoleTool {
		first--
	}
	last = i
	for last+1 < len(hist) && hist[last+1].Message.Role == provider.RoleTool {
		last++
	}
	if hist[first].Message.Role != provider.RoleAssistant || len(hist[first].Message.ToolCalls) == 0 {
		return 0, 0, false
	}
	for k := first; k <= last; k++ {
		if hist[k].Session != session {
			return 0, 0, false
		}
	}
	return first, last, true
}
