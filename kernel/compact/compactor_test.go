package compact_test

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"

	"quire/kernel/compact"
	"quire/kernel/event"
	"quire/kernel/history"
	"quire/kernel/provider"
	"quire/kernel/provider/ollama"
	"quire/test/ollamatest"
)

// model is the real Ollama adapter talking to a fake server that answers
// compaction requests with answer(the transcript it was sent).
func model(t *testing.T, answer func(transcript string) string) (*ollama.Provider, *ollamatest.Server) {
	t.Helper()
	fake := ollamatest.New(t, ollamatest.WithResponder(func(req api.ChatRequest) (ollamatest.Turn, bool) {
		last := req.Messages[len(req.Messages)-1].Content
		return ollamatest.Turn{Content: []string{answer(last)}}, true
	}))
	fake.AddModel(ollamatest.Model{Name: "qwen3:4b", Capabilities: []string{"completion", "tools"}, ContextLength: 2048})
	u, err := url.Parse(fake.URL())
	if err != nil {
		t.Fatal(err)
	}
	return ollama.New(u, nil), fake
}

func entry(seq int64, role provider.Role, text string) history.Entry {
	m := provider.Message{Role: role, Content: text}
	if role == provider.RoleTool {
		m.ToolName = "read_note"
	}
	if role == provider.RoleAssistant && text == "" {
		m.ToolCalls = []provider.ToolCall{{ID: "c", Name: "read_note", Arguments: `{"path":"n.md"}`}}
	}
	return history.Entry{Session: "s", Seq: seq, Message: m}
}

// input is a request whose history is a fact, some chat, the latest
// request and then reads of long notes.
func input(p provider.Provider, reads int, noteRunes int) compact.Input {
	hist := []history.Entry{
		entry(1, provider.RoleUser, "Remember: the code name is BLUEBIRD-7."),
		entry(2, provider.RoleAssistant, "Noted."),
		entry(3, provider.RoleUser, "Read my notes one by one."),
	}
	seq := int64(4)
	for range reads {
		hist = append(hist, entry(seq, provider.RoleAssistant, ""), entry(seq+1, provider.RoleTool, strings.Repeat("note text ", noteRunes/10)))
		seq += 2
	}
	msgs := []provider.Message{{Role: provider.RoleSystem, Content: "You are Quire."}}
	for _, h := range hist {
		msgs = append(msgs, h.Message)
	}
	return compact.Input{Session: "s", History: hist, Model: p,
		Request: provider.Request{Model: "qwen3:4b", ContextLen: 4096, Messages: msgs}}
}

func replaces(t *testing.T, drafts []event.Draft) []event.HistoryReplacePayload {
	t.Helper()
	var out []event.HistoryReplacePayload
	for _, d := range drafts {
		p, ok := d.Payload.(event.HistoryReplacePayload)
		if d.Type != event.HistoryReplace || !ok || p.Compaction == nil {
			t.Fatalf("not a recorded history.replace: %+v", d)
		}
		out = append(out, p)
	}
	return out
}

func TestNothingToDoOnASmallCleanRequest(t *testing.T) {
	t.Parallel()
	p, fake := model(t, func(string) string { return "summary" })
	drafts, err := compact.New().Compact(t.Context(), input(p, 1, 100))
	if err != nil || len(drafts) != 0 || len(fake.Requests()) != 0 {
		t.Fatalf("got %d drafts, %v, %d model calls; want nothing", len(drafts), err, len(fake.Requests()))
	}
}

func TestDropLogsThenSummariseKeepSystemAndLatest(t *testing.T) {
	t.Parallel()
	var asked []string
	var mu sync.Mutex
	p, fake := model(t, func(tx string) string {
		mu.Lock()
		asked = append(asked, tx)
		mu.Unlock()
		return "The user said the code name is BLUEBIRD-7; notes were read."
	})
	in := input(p, 5, 1200) // 5 reads of about 300 tokens: fill about 0.8 of 2048
	window := compact.WindowFunc(func(ctx context.Context, m string) (int, error) {
		info, err := p.ModelInfo(ctx, m)
		return info.ContextLength, err
	})
	drafts, err := compact.New(compact.WithWindow(window)).Compact(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	got := replaces(t, drafts)
	if len(got) == 0 {
		t.Fatal("a request 80% full of long tool logs was not compacted")
	}
	if got[0].Compaction.Strategy != compact.StrategyDropLogs || got[0].Compaction.Trigger != compact.TriggerSize {
		t.Errorf("first compaction %+v; want drop-logs by size", got[0].Compaction)
	}
	for _, r := range got {
		if r.From <= 3 && r.To >= 3 {
			t.Errorf("replace %d..%d covers the latest request (seq 3)", r.From, r.To)
		}
		if r.Compaction.AfterTokens >= r.Compaction.BeforeTokens {
			t.Errorf("replace %d..%d kept although it is not smaller: %+v", r.From, r.To, r.Compaction)
		}
		// The latest request is labelled as the latest from wherever the summary stands.
		label := "(This is the work done so far on the user's latest request, which is the last user message before this summary.)"
		if r.To < 3 {
			label = "(The user's latest request follows this summary, word for word.)"
		}
		if !strings.HasSuffix(r.Summary, label) {
			t.Errorf("replace %d..%d does not say where the latest request is: %q", r.From, r.To, r.Summary)
		}
		if r.Compaction.Figures.Window != 2048 {
			t.Errorf("window %d; want the model's trained 2048 under num_ctx 4096", r.Compaction.Figures.Window)
		}
	}
	_ = fake
	mu.Lock()
	defer mu.Unlock()
	if len(asked) == 0 {
		t.Error("the summariser was never asked")
	}
	for _, tx := range asked {
		if !strings.HasPrefix(tx, "The user's latest request (it stays in the conversation word for word): Read my notes one by one.\n") {
			t.Errorf("the summariser was not told the latest request:\n%.200s", tx)
		}
	}
}

func TestACompactionThatIsNotSmallerIsDiscarded(t *testing.T) {
	t.Parallel()
	p, fake := model(t, func(tx string) string { return strings.Repeat("a very long summary ", 2000) })
	in := input(p, 6, 1200)
	// Only summarising is possible: every output is short enough to keep.
	c := compact.New(compact.WithPolicy(compact.Policy{SizeTrigger: 0.1, Target: 0.01, KeepRecent: 2, LowValueTokens: 1 << 20}))
	drafts, err := c.Compact(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(fake.Requests()) == 0 {
		t.Fatal("the summariser was never asked")
	}
	if len(drafts) != 0 {
		t.Fatalf("a summary longer than what it replaces was kept: %+v", replaces(t, drafts))
	}
}

type notedMemory struct {
	items   []compact.Item
	sources []int64
	fail    error
}

func (m *notedMemory) NoteWorking(_ context.Context, session string, items []compact.Item, sources []int64) error {
	if m.fail != nil {
		return m.fail
	}
	m.items, m.sources = append(m.items, items...), append(m.sources, sources...)
	return nil
}

func TestExtractFactsGoesToWorkingMemory(t *testing.T) {
	t.Parallel()
	p, _ := model(t, func(tx string) string {
		return "```json\n" + `{"items":[{"kind":"fact","text":"the code name is BLUEBIRD-7"},{"kind":"attempt","text":"read n.md: notes"}]}` + "\n```"
	})
	mem := &notedMemory{}
	// Nothing is long enough to drop: facts are tried first.
	c := compact.New(compact.WithWorkingMemory(mem), compact.WithPolicy(compact.Policy{SizeTrigger: 0.1, Target: 0.01, KeepRecent: 2, LowValueTokens: 1 << 20}))
	drafts, err := c.Compact(t.Context(), input(p, 6, 400))
	if err != nil {
		t.Fatal(err)
	}
	var facts *event.HistoryReplacePayload
	for _, r := range replaces(t, drafts) {
		if r.Compaction.Strategy == compact.StrategyExtractFacts && strings.Contains(r.Summary, "BLUEBIRD-7") {
			facts = &r
		}
	}
	if facts == nil {
		t.Fatalf("no extract-facts replace carrying the fact: %+v", replaces(t, drafts))
	}
	if !slices.Contains(mem.items, compact.Item{Kind: "fact", Text: "the code name is BLUEBIRD-7"}) {
		t.Errorf("working memory got %v", mem.items)
	}
	// The span before the latest request is two short messages: facts
	// would not be smaller, so that replace is discarded and nothing of it
	// reaches working memory.
	if !slices.Equal(mem.sources, []int64{4, 5, 6, 7, 8, 9, 10, 11, 12, 13}) || facts.From != 4 || facts.To != 13 {
		t.Errorf("sources %v: want the replaced reads 4..13 only", mem.sources)
	}

	// A working memory that fails: the facts are not claimed as kept, the
	// summary is made instead.
	p2, _ := model(t, func(tx string) string {
		if strings.HasPrefix(tx, "User:") && strings.Contains(tx, "BLUEBIRD") {
			return `{"items":[{"kind":"fact","text":"BLUEBIRD-7"}]}`
		}
		return "short summary"
	})
	broken := compact.New(compact.WithWorkingMemory(&notedMemory{fail: errors.New("disk full")}),
		compact.WithPolicy(compact.Policy{SizeTrigger: 0.1, Target: 0.01, KeepRecent: 2, LowValueTokens: 1 << 20}))
	drafts, err = broken.Compact(t.Context(), input(p2, 6, 400))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range replaces(t, drafts) {
		if r.Compaction.Strategy == compact.StrategyExtractFacts {
			t.Fatalf("facts recorded as kept although working memory failed: %+v", r)
		}
	}
}

func TestCalibratesFromWhatTheModelCounted(t *testing.T) {
	t.Parallel()
	p, _ := model(t, func(string) string { return "s" })
	c := compact.New()
	in := input(p, 1, 100)
	if _, err := c.Compact(t.Context(), in); err != nil {
		t.Fatal(err)
	}
	raw := compact.RequestTokens(in.Request)
	in.Reported, in.ReportedSeq = raw*3/2, 10
	if _, err := c.Compact(t.Context(), in); err != nil {
		t.Fatal(err)
	}
	if f := c.Calibration().Factor("qwen3:4b"); f < 1.4 || f > 1.6 {
		t.Fatalf("factor %v after the model counted 1.5x the estimate", f)
	}
	// The same report again (same seq) is not a new observation.
	in.Reported = raw * 3
	c.Compact(t.Context(), in)
	if f := c.Calibration().Factor("qwen3:4b"); f > 1.6 {
		t.Fatalf("factor %v: a report was counted twice", f)
	}
}

// TestAFailingModelLosesNothing: when the summary request fails (the model
// server refuses it) or answers with nothing, no summary is recorded; the
// cheaper drop-logs compaction still stands, and Compact reports no error
// (the step goes on with what it has).
func TestAFailingModelLosesNothing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		reply ollamatest.Turn
	}{
		{"server error", ollamatest.Turn{Fail: ollamatest.Failure{Kind: ollamatest.FailStatus, Status: 500, Message: "out of memory"}}},
		{"empty answer", ollamatest.Turn{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fake := ollamatest.New(t, ollamatest.WithResponder(func(api.ChatRequest) (ollamatest.Turn, bool) { return tc.reply, true }))
			fake.AddModel(ollamatest.Model{Name: "qwen3:4b", Capabilities: []string{"completion", "tools"}})
			u, _ := url.Parse(fake.URL())
			// Target 0: every strategy is tried; the logs are long enough to drop.
			c := compact.New(compact.WithPolicy(compact.Policy{SizeTrigger: 0.1, Target: 0, KeepRecent: 2, LowValueTokens: 100}))
			drafts, err := c.Compact(t.Context(), input(ollama.New(u, nil), 6, 1200))
			if err != nil {
				t.Fatal(err)
			}
			got := replaces(t, drafts)
			if len(fake.Requests()) == 0 {
				t.Fatal("the summariser was never asked")
			}
			if len(got) != 1 || got[0].Compaction.Strategy != compact.StrategyDropLogs {
				t.Fatalf("want only the drop-logs replace, got %+v", got)
			}
		})
	}
}

// TestOneOversizeMessageIsCutOrSummarised: one message too long for the
// window, in the recent tail compaction otherwise spares (a reply that ran
// away, Chinese text at a token a character), is replaced on its own: by
// a summary when a model answers, else cut to its head and tail — never
// left, so the chat stays usable. The latest request is never touched.
func TestOneOversizeMessageIsCutOrSummarised(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("季度计划列出了每一项任务。", 300) // about 3,900 tokens
	tests := []struct {
		name         string
		withModel    bool
		forced       bool
		wantStrategy string
	}{
		{"summarised by the model", true, true, compact.StrategySummarise},
		{"cut with no model to ask", false, true, compact.StrategyCut},
		{"cut before a step, not only on an overflow", false, false, compact.StrategyCut},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hist := []history.Entry{
				entry(1, provider.RoleUser, "Write out the plan."),
				entry(2, provider.RoleAssistant, long),
				entry(3, provider.RoleUser, "What is the first task?"),
			}
			in := compact.Input{Session: "s", History: hist, Forced: tt.forced,
				Request: provider.Request{Model: "qwen3:4b", ContextLen: 2048, Messages: messagesOf(hist)}}
			if tt.withModel {
				p, _ := model(t, func(string) string { return "The plan lists the tasks; the first is the budget." })
				in.Model = p
			}
			drafts, err := compact.New().Compact(t.Context(), in)
			if err != nil {
				t.Fatal(err)
			}
			if len(drafts) != 1 {
				t.Fatalf("%d replaces, want 1", len(drafts))
			}
			p := drafts[0].Payload.(event.HistoryReplacePayload)
			if p.From != 2 || p.To != 2 || p.Compaction.Strategy != tt.wantStrategy || p.Compaction.AfterTokens >= p.Compaction.BeforeTokens {
				t.Fatalf("replace %d..%d by %s, %d -> %d tokens; want 2..2 by %s, smaller", p.From, p.To, p.Compaction.Strategy,
					p.Compaction.BeforeTokens, p.Compaction.AfterTokens, tt.wantStrategy)
			}
			if p.Compaction.AfterTokens > 2048*3/4 {
				t.Errorf("after the replace the request is %d tokens, still over the size trigger of a 2048 window", p.Compaction.AfterTokens)
			}
			if tt.wantStrategy == compact.StrategyCut && (!strings.Contains(p.Summary, "event 2") || !strings.HasPrefix(strings.TrimPrefix(p.Summary, "Assistant: (cut to fit the model's context; the log keeps the whole assistant message, 3900 characters, event 2) "), "季度")) {
				t.Errorf("the cut says %q", p.Summary[:min(len(p.Summary), 300)])
			}
		})
	}
}

func messagesOf(hist []history.Entry) []provider.Message {
	out := make([]provider.Message, len(hist))
	for i, e := range hist {
		out[i] = e.Message
	}
	return out
}

// A note read in the current request so long that it alone overflows the
// window (a note in a script where a character is a token) is cut with the
// call that read it, so the chat goes on: the call and its result stay
// together, the latest request is never touched.
func TestOneOversizeToolResultInTheTailIsCutWithItsCall(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("季度计划列出了每一项任务。", 300) // about 3,900 tokens
	hist := []history.Entry{
		entry(1, provider.RoleUser, "Read my plan and tell me the first task."),
		entry(2, provider.RoleAssistant, ""),
		entry(3, provider.RoleTool, long),
	}
	in := compact.Input{Session: "s", History: hist, Forced: true,
		Request: provider.Request{Model: "qwen3:4b", ContextLen: 2048, Messages: messagesOf(hist)}}
	drafts, err := compact.New().Compact(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(drafts) != 1 {
		t.Fatalf("%d replaces, want 1: the chat would stop with \"compacting did not make it smaller\"", len(drafts))
	}
	p := drafts[0].Payload.(event.HistoryReplacePayload)
	if p.From != 2 || p.To != 3 || p.Compaction.Strategy != compact.StrategyCut || p.Compaction.AfterTokens >= p.Compaction.BeforeTokens {
		t.Fatalf("replace %d..%d by %s, %d -> %d tokens; want the step 2..3 cut, smaller", p.From, p.To, p.Compaction.Strategy,
			p.Compaction.BeforeTokens, p.Compaction.AfterTokens)
	}
	// Before a step, with no refusal, the result the model asked for is
	// sent whole if the request can still be made smaller otherwise.
	in.Forced = false
	in.Request.ContextLen = 8192
	if drafts, err := compact.New().Compact(t.Context(), in); err != nil || len(drafts) != 0 {
		t.Fatalf("a request that fits cut its own read: %d replaces, %v", len(drafts), err)
	}
}
