package compact

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"quire/kernel/history"
	"quire/kernel/provider"
)

// The compaction prompts: the model is asked in a request of its own, with
// its own system text, never inside the conversation. Exported so a
// stand-in model (the eval set's fake server) can tell these requests apart.
const (
	SummarisePrompt = `You compact a conversation between a user and an assistant that uses tools.
Write a short summary of the transcript you are given, for the assistant to continue from.
Keep, exactly: every fact the user stated, names, numbers, paths, decisions and conclusions, open sub-tasks, and which searches or reads were already made and what they found (so they are not repeated).
Leave out: pleasantries, tool output that led nowhere, repetition.
Write plain sentences or a short list. Do not answer the user and do not invent anything.`

	FactsPrompt = `You extract working memory from a transcript of a user and an assistant that uses tools.
Answer with one JSON object and nothing else:
{"items":[{"kind":"conclusion"|"open"|"attempt"|"fact","text":"..."}]}
conclusion: something established; open: a sub-task not done yet; attempt: a search or read already made, with its outcome; fact: something the user stated.
Keep names, numbers and paths exactly. Do not invent anything.`
)

// Item is one piece of working memory extracted from a span.
type Item struct {
	Kind string `json:"kind"` // conclusion, open, attempt, fact
	Text string `json:"text"`
}

// WorkingMemory keeps what a compaction extracted, per session, with the
// seqs of the events it came from. memory/ implements it; the lead wires it.
type WorkingMemory interface {
	NoteWorking(ctx context.Context, session string, items []Item, sources []int64) error
}

// transcriptCap bounds one message in a transcript for the model, in
// tokens (about 1,200 characters of English): a long tool log or reply is
// cut in the middle, since its head and tail say what it was.
const transcriptCap = 300

// transcript renders entries for a compaction request, within budget
// tokens.
func transcript(entries []history.Entry, budget int) string {
	var b strings.Builder
	for _, e := range entries {
		m := e.Message
		text := m.Content
		if IsSummary(m) {
			text = strings.TrimPrefix(text, history.SummaryLabel)
		}
		text = cut(text, transcriptCap)
		switch m.Role {
		case provider.RoleUser:
			if IsSummary(m) {
				fmt.Fprintf(&b, "Earlier summary: %s\n", text)
			} else {
				fmt.Fprintf(&b, "User: %s\n", text)
			}
		case provider.RoleAssistant:
			if text != "" {
				fmt.Fprintf(&b, "Assistant: %s\n", text)
			}
			for _, c := range m.ToolCalls {
				fmt.Fprintf(&b, "Assistant called %s %s\n", c.Name, c.Arguments)
			}
		case provider.RoleTool:
			fmt.Fprintf(&b, "Result of %s: %s\n", m.ToolName, text)
		}
	}
	return cut(b.String(), budget)
}

// cut keeps the head and tail of text within n tokens (TextTokens),
// marking the cut with how many characters it left out. It always makes
// progress: a text over n comes back shorter, however few n are.
func cut(text string, n int) string {
	if TextTokens(text) <= n {
		return text
	}
	r := []rune(text)
	// The share kept shrinks until head, mark and tail fit: each character
	// is at most a token, so this ends within a few rounds.
	for keep := min(len(r)-1, n*charsPerToken); keep > 0; keep = keep * 3 / 4 {
		half := keep / 2
		out := string(r[:half]) + fmt.Sprintf(" […%d characters…] ", len(r)-2*half) + string(r[len(r)-half:])
		if TextTokens(out) <= n || half == 0 {
			return out
		}
	}
	return fmt.Sprintf("[…%d characters…]", len(r))
}

// cutStub is the cut strategy's text for a span: each message's text kept
// at its head and tail within capTokens, saying which event holds the
// whole. No model call: it is the strategy that always makes a span
// smaller, for a single message too long for the window (a reply that ran
// away, a pasted text).
func cutStub(entries []history.Entry, capTokens int) (stub string, dropped []string) {
	var b strings.Builder
	per := max(capTokens/max(len(entries), 1), 16)
	for _, e := range entries {
		m := e.Message
		text := m.Content
		if IsSummary(m) {
			text = strings.TrimPrefix(text, history.SummaryLabel)
		}
		short := cut(text, per)
		if short != text {
			what := fmt.Sprintf("%s message, %d characters, event %d", m.Role, utf8.RuneCountInString(text), e.Seq)
			dropped = append(dropped, what)
			short = fmt.Sprintf("(cut to fit the model's context; the log keeps the whole %s) %s", what, short)
		}
		switch m.Role {
		case provider.RoleUser:
			fmt.Fprintf(&b, "User: %s\n", short)
		case provider.RoleAssistant:
			if short != "" {
				fmt.Fprintf(&b, "Assistant: %s\n", short)
			}
			for _, c := range m.ToolCalls {
				fmt.Fprintf(&b, "Assistant called %s %s\n", c.Name, cut(c.Arguments, per))
			}
		case provider.RoleTool:
			fmt.Fprintf(&b, "Result of %s: %s\n", m.ToolName, short)
		}
	}
	return strings.TrimRight(b.String(), "\n"), dropped
}

// ask sends one compaction request and returns the model's whole answer.
func ask(ctx context.Context, p provider.Provider, model string, numCtx int, system, user string) (string, error) {
	req := provider.Request{Model: model, ContextLen: numCtx, Messages: []provider.Message{
		{Role: provider.RoleSystem, Content: system},
		{Role: provider.RoleUser, Content: user},
	}}
	var out strings.Builder
	err := p.Stream(ctx, req, func(c provider.Chunk) error {
		out.WriteString(c.Content)
		return nil
	})
	if err != nil {
		return "", err
	}
	text := strings.TrimSpace(out.String())
	if text == "" {
		return "", ErrEmptyReply
	}
	return text, nil
}

// dropLogs is the stub for a span: what was said stays word for word, each
// long tool output becomes a line saying what it was and where the whole
// is; short outputs stay. No model call.
func dropLogs(entries []history.Entry, sizes []int, lowValueTokens int) (stub string, dropped []string) {
	var b strings.Builder
	for i, e := range entries {
		m := e.Message
		switch m.Role {
		case provider.RoleUser:
			if IsSummary(m) {
				b.WriteString(strings.TrimPrefix(m.Content, history.SummaryLabel) + "\n")
			} else {
				fmt.Fprintf(&b, "User: %s\n", m.Content)
			}
		case provider.RoleAssistant:
			if m.Content != "" {
				fmt.Fprintf(&b, "Assistant: %s\n", m.Content)
			}
			for _, c := range m.ToolCalls {
				fmt.Fprintf(&b, "Assistant called %s %s\n", c.Name, c.Arguments)
			}
		case provider.RoleTool:
			if sizes[i] > lowValueTokens {
				what := fmt.Sprintf("%s output, %d characters, event %d", m.ToolName, utf8.RuneCountInString(m.Content), e.Seq)
				dropped = append(dropped, what)
				fmt.Fprintf(&b, "[dropped: %s; the whole output is kept in the log]\n", what)
			} else {
				fmt.Fprintf(&b, "Result of %s: %s\n", m.ToolName, m.Content)
			}
		}
	}
	return strings.TrimRight(b.String(), "\n"), dropped
}

// parseFacts reads the model's JSON answer. Models often wrap JSON in a
// code fence or a sentence, so the object is taken from the first "{" to
// the last "}" and then decoded strictly.
func parseFacts(answer string) ([]Item, error) {
	i, j := strings.Index(answer, "{"), strings.LastIndex(answer, "}")
	if i < 0 || j < i {
		return nil, ErrBadFacts
	}
	var v struct {
		Items []Item `json:"items"`
	}
	if err := json.Unmarshal([]byte(answer[i:j+1]), &v); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadFacts, err)
	}
	var out []Item
	for _, it := range v.Items {
		it.Text = strings.TrimSpace(it.Text)
		switch it.Kind {
		case "conclusion", "open", "attempt", "fact":
		default:
			it.Kind = "fact"
		}
		if it.Text != "" {
			out = append(out, it)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no items", ErrBadFacts)
	}
	return out, nil
}

// factsText is how extracted items read in the history.
func factsText(items []Item) string {
	var b strings.Builder
	b.WriteString("Working memory noted from this part of the conversation:\n")
	for _, it := range items {
		fmt.Fprintf(&b, "- %s: %s\n", it.Kind, it.Text)
	}
	return strings.TrimRight(b.String(), "\n")
}
