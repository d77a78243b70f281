// Package longtask is the long-task evaluation of compaction (issue 7 item
// 6): scripted tasks against the fake Ollama server with num_ctx 4096, run
// by the real kernel (runtime, SQLite log, Ollama client) with the real note
// tools, in which a fact the user stated in the first turn must still reach
// the model at the end. Each scenario runs with compaction and without, and
// asserts both outcomes. `go test -v` prints the compaction count, the
// request sizes and the pollution index step by step.
package longtask

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"quire/kernel/compact"
	"quire/kernel/event"
	"quire/kernel/history"
	"quire/kernel/prompt"
	"quire/kernel/protocol"
	"quire/kernel/provider"
	"quire/kernel/runtime"
	"quire/kernel/tool"
	"quire/test/ollamatest"
	"quire/test/testkit"
	"quire/tools/notes"
)

const (
	numCtx   = 4096
	fact     = "the project code name is BLUEBIRD-7"
	codeName = "BLUEBIRD-7"
	identity = "You are Quire, an assistant that helps the user organise their notes."
	request  = "Read every note in the inbox, note-01.md to note-%02d.md, one by one, then tell me the project code name."
)

// reader is the fake model of the scenario: it reads the notes one call
// at a time, then answers; it checks, in the last request it receives,
// that the code name the user gave in the first turn is still there, and
// answers without it if not. Compaction requests (recognised by their own
// system text) get a summary that keeps what the user said and which notes
// were read, as a model asked for one would.
type reader struct {
	notes int

	mu        sync.Mutex
	read      int
	summaries int
	final     *api.ChatRequest
}

func (r *reader) respond(req api.ChatRequest) (ollamatest.Turn, bool) {
	if len(req.Messages) > 0 && strings.HasPrefix(req.Messages[0].Content, "You compact") {
		r.mu.Lock()
		r.summaries++
		r.mu.Unlock()
		return ollamatest.Turn{Content: []string{summarise(req.Messages[len(req.Messages)-1].Content)}}, true
	}
	last := req.Messages[len(req.Messages)-1]
	if last.Role == "user" && strings.Contains(last.Content, "Remember") {
		return ollamatest.Turn{Content: []string{"Noted."}}, true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.read < r.notes {
		r.read++
		return ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{Name: "read_note",
			Arguments: []byte(fmt.Sprintf(`{"path":"note-%02d.md"}`, r.read))}}}, true
	}
	r.final = &req
	for _, m := range req.Messages {
		if strings.Contains(m.Content, codeName) {
			return ollamatest.Turn{Content: []string{"All notes read. The project code name is " + codeName + "."}}, true
		}
	}
	return ollamatest.Turn{Content: []string{"All notes read. I do not know the project code name."}}, true
}

// summarise keeps, from a compaction transcript, what the user said,
// earlier summaries and the list of notes read, and drops tool output.
func summarise(transcript string) string {
	var kept, read []string
	for line := range strings.Lines(transcript) {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "User:"), strings.HasPrefix(line, "Earlier summary:"):
			kept = append(kept, line)
		case strings.HasPrefix(line, "Assistant called read_note"):
			read = append(read, strings.TrimPrefix(line, "Assistant called read_note "))
		}
	}
	if len(read) > 0 {
		kept = append(kept, "Notes read: "+strings.Join(read, ", "))
	}
	return strings.Join(kept, "\n")
}

// inbox writes n notes of about 900 characters each.
func inbox(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	para := "Meeting notes: the quarterly planning covered budgets, hiring, the roadmap and the office move; action items were assigned to each team lead with dates. "
	for i := 1; i <= n; i++ {
		body := fmt.Sprintf("# Note %d\n\n%s\n", i, strings.Repeat(para, 6))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("note-%02d.md", i)), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type noteTools struct{ tools []tool.Tool }

func (n noteTools) Tools() []tool.Tool { return n.tools }

// outcome is what a scenario run produced.
type outcome struct {
	k        *testkit.Kernel
	session  string
	reader   *reader
	finished event.RunFinishedPayload
	answer   string
}

// run plays the scenario: the fact, then the long task over n notes.
func run(t *testing.T, n int, compaction runtime.Option) outcome {
	t.Helper()
	root, err := notes.Open(inbox(t, n))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	rd := &reader{notes: n}
	fake := ollamatest.New(t, ollamatest.WithResponder(rd.respond))
	fake.AddModel(ollamatest.DefaultModel())
	system := prompt.New()
	system.Register(prompt.Fragment{Name: "identity", Priority: prompt.Identity, Text: identity})
	opts := []runtime.Option{runtime.WithPrompt(system), runtime.WithTools(noteTools{notes.Tools(root, notes.NewMemoryLog())})}
	if compaction != nil {
		opts = append(opts, compaction)
	}
	k := testkit.Open(t, fake, filepath.Join(t.TempDir(), "quire.db"), opts...)
	k.Runtime.SetSettings(runtime.Settings{Model: testkit.Model, NumCtx: numCtx, Profile: tool.AskMe,
		Limits: event.Limits{MaxSteps: n + 10, MaxToolCalls: n + 10, TokenBudget: 10_000_000, LoopRepeats: 3, PermissionWaitNS: int64(time.Minute)}})
	s, err := protocol.Run[protocol.Session](t.Context(), k.Runtime, "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "long task"})
	if err != nil {
		t.Fatal(err)
	}
	say := func(text string) event.RunFinishedPayload {
		if _, err := protocol.Run[protocol.SendResult](t.Context(), k.Runtime, "", protocol.SendMessage,
			protocol.SendMessagePayload{Session: s.ID, Text: text}); err != nil {
			t.Fatal(err)
		}
		return waitFinished(t, k, s.ID)
	}
	if f := say("Remember this: " + fact + "."); f.Reason != event.ReasonCompleted {
		t.Fatalf("first turn: %+v", f)
	}
	o := outcome{k: k, session: s.ID, reader: rd, finished: say(fmt.Sprintf(request, n))}
	for _, e := range events(t, k, s.ID) {
		if e.Type == event.AssistantMessage {
			p, _ := event.As[event.AssistantMessagePayload](e)
			o.answer = p.Content
		}
	}
	return o
}

func events(t *testing.T, k *testkit.Kernel, session string) []event.Event {
	t.Helper()
	evs, err := k.Store.Events(t.Context(), session, 0)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// waitFinished waits for the session's latest run to finish (a 60-step run
// takes about a second; the wait is bounded by testkit.Patience).
func waitFinished(t *testing.T, k *testkit.Kernel, session string) event.RunFinishedPayload {
	t.Helper()
	var fins []event.RunFinishedPayload
	k.Wait(t, session, "the run to finish", func(evs []event.Event) bool {
		runs := 0
		fins = fins[:0]
		for _, e := range evs {
			switch e.Type {
			case event.RunStarted:
				runs++
			case event.RunFinished:
				p, _ := event.As[event.RunFinishedPayload](e)
				fins = append(fins, p)
			}
		}
		return runs > 0 && len(fins) == runs
	})
	return fins[len(fins)-1]
}

// loopRequests are the main loop's requests the fake received (not the
// compaction requests), refused ones included.
func loopRequests(fake *ollamatest.Server) []api.ChatRequest {
	var out []api.ChatRequest
	for _, r := range fake.Requests() {
		if len(r.Chat.Messages) > 0 && (r.Chat.Messages[0].Content == compact.SummarisePrompt || r.Chat.Messages[0].Content == compact.FactsPrompt) {
			continue
		}
		out = append(out, r.Chat)
	}
	return out
}

// pollution is the figures of a request as the compactor computes them.
func pollution(req api.ChatRequest) event.Pollution {
	fixed := 0
	var hist []compact.Sized
	for _, m := range req.Messages {
		pm := provider.Message{Role: provider.Role(m.Role), Content: m.Content, ToolName: m.ToolName}
		for _, c := range m.ToolCalls {
			pm.ToolCalls = append(pm.ToolCalls, provider.ToolCall{Name: c.Function.Name, Arguments: c.Function.Arguments.String()})
		}
		if m.Role == "system" {
			fixed += compact.MessageTokens(pm)
			continue
		}
		hist = append(hist, compact.Sized{Entry: history.Entry{Message: pm}, Tokens: compact.MessageTokens(pm)})
	}
	return compact.Measure(fixed, hist, compact.DefaultPolicy.KeepRecent, numCtx, compact.DefaultPolicy.LowValueTokens)
}

func holds(req api.ChatRequest, s string) bool {
	for _, m := range req.Messages {
		if strings.Contains(m.Content, s) {
			return true
		}
	}
	return false
}

// TestLongNoteReadingNeedsCompaction: 60 steps of note reading at num_ctx
// 4096. With compaction every request fits, the run completes, and the
// last request still holds the code name from the first turn (the fake
// model answers with it only if it sees it). Without compaction the same
// task overflows: Ollama refuses the request, and the run ends in error
// before the notes are read.
func TestLongNoteReadingNeedsCompaction(t *testing.T) {
	const n = 60
	t.Run("with compaction", func(t *testing.T) {
		c := compact.New()
		o := run(t, n, runtime.WithCompaction(c))
		// The estimate was calibrated against what the model counted: the
		// fake's template adds a token a message more than the raw estimate,
		// and counts tool declarations as a real tokenizer does JSON (2.5
		// bytes a token, where the raw estimate takes 4), so the factor
		// settles above 1 but well within the calibration's bounds.
		if f := c.Calibration().Factor(testkit.Model); f == 1 || f < 0.9 || f > 2 {
			t.Errorf("calibration factor %v: want one learnt from prompt_eval_count, between 0.9 and 2 for the fake's tokenizer", f)
		} else {
			t.Logf("calibration factor for %s after the run: %.3f", testkit.Model, f)
		}
		if o.finished.Reason != event.ReasonCompleted {
			t.Fatalf("run ended %+v", o.finished)
		}
		if o.reader.read != n || o.reader.final == nil || !holds(*o.reader.final, codeName) {
			t.Fatalf("read %d of %d notes; the final request holds the code name: %v", o.reader.read, n, o.reader.final != nil && holds(*o.reader.final, codeName))
		}
		if !strings.Contains(o.answer, codeName) {
			t.Fatalf("final answer %q lacks the code name", o.answer)
		}
		reqs := loopRequests(o.k.Ollama)
		evs := events(t, o.k, o.session)
		report(t, reqs, evs)
		latest := fmt.Sprintf(request, n)
		for i, req := range reqs {
			if got := ollamatest.EstimateTokens(&req); got > numCtx {
				t.Errorf("request %d has %d tokens, over num_ctx %d", i+1, got, numCtx)
			}
			if i >= 2 && !holdsVerbatimUser(req, latest) {
				t.Errorf("request %d lost the latest request, verbatim, as a user message", i+1)
			}
			if req.Messages[0].Role != "system" || req.Messages[0].Content != identity {
				t.Errorf("request %d: the system zone changed: %q", i+1, req.Messages[0].Content)
			}
		}
		replays(t, o)
		if o.reader.summaries == 0 {
			t.Error("no summary was asked for: the scenario did not exercise summarising")
		}
	})
	t.Run("without compaction", func(t *testing.T) {
		o := run(t, n, nil)
		if o.finished.Reason != event.ReasonError || !strings.Contains(o.finished.Error, "context window") {
			t.Fatalf("run ended %+v; want an error saying the conversation no longer fits", o.finished)
		}
		if o.reader.read >= n || o.reader.final != nil {
			t.Fatalf("read %d of %d notes and reached the end without compaction: the scenario does not overflow", o.reader.read, n)
		}
		reqs := loopRequests(o.k.Ollama)
		last := reqs[len(reqs)-1]
		if got := ollamatest.EstimateTokens(&last); got <= numCtx {
			t.Fatalf("the last request has %d tokens, within num_ctx: it was not refused for its length", got)
		}
		t.Logf("without compaction: %d of %d notes read, then Ollama refused a request of %d tokens (num_ctx %d): %s",
			o.reader.read, n, ollamatest.EstimateTokens(&last), numCtx, o.finished.Error)
	})
}

// replays checks that every request the fake received (refused ones
// included) is rebuilt from the log alone by Runtime.Request.
func replays(t *testing.T, o outcome) {
	t.Helper()
	for i, req := range loopRequests(o.k.Ollama) {
		got, err := o.k.Runtime.Request(t.Context(), o.session, i+1)
		if err != nil {
			t.Fatalf("replay of request %d: %v", i+1, err)
		}
		if a, b := fingerprint(got.Messages), fingerprintAPI(req.Messages); a != b {
			t.Fatalf("replay of request %d differs from what was sent:\nreplayed %s\nsent     %s", i+1, a, b)
		}
	}
}

func holdsVerbatimUser(req api.ChatRequest, text string) bool {
	for _, m := range req.Messages {
		if m.Role == "user" && m.Content == text {
			return true
		}
	}
	return false
}

// fingerprint is a request's messages as text: role, content and calls.
func fingerprint(ms []provider.Message) string {
	var b strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&b, "%s:%q", m.Role, m.Content)
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, " %s%s", c.Name, c.Arguments)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func fingerprintAPI(ms []api.Message) string {
	var b strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&b, "%s:%q", m.Role, m.Content)
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, " %s%s", c.Function.Name, c.Function.Arguments.String())
		}
		b.WriteString("\n")
	}
	return b.String()
}

// report prints, with -v, the run step by step: request size, fill and
// pollution index, and each compaction with its trigger and strategy.
func report(t *testing.T, reqs []api.ChatRequest, evs []event.Event) {
	t.Helper()
	var compactions []event.CompactionRecord
	for _, e := range evs {
		if e.Type == event.HistoryReplace {
			p, _ := event.As[event.HistoryReplacePayload](e)
			if p.Compaction != nil {
				compactions = append(compactions, *p.Compaction)
			}
		}
	}
	largest, sum := 0, 0
	for i, req := range reqs {
		tokens := ollamatest.EstimateTokens(&req)
		largest, sum = max(largest, tokens), sum+tokens
		f := pollution(req)
		if i%5 == 0 || i == len(reqs)-1 {
			t.Logf("request %2d: %4d tokens (fill %.2f), %2d messages, pollution index %.2f (top source %q %.2f, duplicates %.2f, long logs %.2f)",
				i+1, tokens, float64(tokens)/numCtx, len(req.Messages), f.Index, f.TopSource, f.TopSourceShare, f.DuplicateRatio, f.LowValueShare)
		}
	}
	byKind := map[string]int{}
	for _, c := range compactions {
		byKind[c.Trigger+"/"+c.Strategy]++
	}
	t.Logf("%d requests, largest %d tokens, mean %d; %d compactions %v", len(reqs), largest, sum/max(len(reqs), 1), len(compactions), byKind)
	for i, c := range compactions {
		if i >= 6 && i < len(compactions)-2 {
			continue // the first few and the last two show the pattern
		}
		t.Logf("compaction %d: %s by %s, index %.2f, fill %.2f, %d -> %d tokens", i+1, c.Strategy, c.Trigger, c.Figures.Index, c.Figures.Fill, c.BeforeTokens, c.AfterTokens)
	}
}

// TestOverflowAloneKeepsTheTaskGoing: with the proactive triggers off, the
// same task reaches the model's limit; Ollama refuses the request, the
// error chain's overflow handler compacts (forced), and the step is
// retried — only because the history shrank — until the task completes
// with the code name still in the last request.
func TestOverflowAloneKeepsTheTaskGoing(t *testing.T) {
	const n = 30
	off := compact.DefaultPolicy
	off.SizeTrigger, off.PollutionTrigger = 10, 10
	o := run(t, n, runtime.WithCompaction(compact.New(compact.WithPolicy(off))))
	if o.finished.Reason != event.ReasonCompleted || !strings.Contains(o.answer, codeName) {
		t.Fatalf("run ended %+v with %q", o.finished, o.answer)
	}
	var overflows, retries int
	for _, e := range events(t, o.k, o.session) {
		switch e.Type {
		case event.HistoryReplace:
			p, _ := event.As[event.HistoryReplacePayload](e)
			if p.Compaction == nil || p.Compaction.Trigger != compact.TriggerOverflow {
				t.Fatalf("a compaction not made for an overflow: %+v", p.Compaction)
			}
			overflows++
		case event.StepRetried:
			p, _ := event.As[event.StepRetriedPayload](e)
			if !strings.HasPrefix(p.Reason, "compacted the history") {
				t.Fatalf("retried for %q", p.Reason)
			}
			retries++
		}
	}
	refused := 0
	for _, req := range loopRequests(o.k.Ollama) {
		if ollamatest.EstimateTokens(&req) > numCtx {
			refused++
		}
	}
	if overflows == 0 || retries == 0 || refused != retries {
		t.Fatalf("%d overflow compactions, %d retries, %d refused requests: want each refusal compacted and retried", overflows, retries, refused)
	}
	replays(t, o)
	t.Logf("%d notes: %d requests refused by Ollama, each compacted and retried (%d replaces)", n, refused, overflows)
}

// TestOverflowThatCannotBeCompactedSaysSo: a request whose only message is
// the latest user request, longer than the window, cannot be compacted
// (the latest request is never replaced): no replace is made, nothing is
// lost from the log, and the run ends with a sentence saying what to do.
func TestOverflowThatCannotBeCompactedSaysSo(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	k := testkit.Open(t, fake, filepath.Join(t.TempDir(), "quire.db"), runtime.WithCompaction(compact.New()))
	k.Runtime.SetSettings(runtime.Settings{Model: testkit.Model, NumCtx: numCtx})
	s, err := protocol.Run[protocol.Session](t.Context(), k.Runtime, "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "too long"})
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("word ", 5000) // about 6,250 tokens
	if _, err := protocol.Run[protocol.SendResult](t.Context(), k.Runtime, "", protocol.SendMessage,
		protocol.SendMessagePayload{Session: s.ID, Text: long}); err != nil {
		t.Fatal(err)
	}
	f := waitFinished(t, k, s.ID)
	// A first message that alone overflows: the sentence says so and what
	// to do, never "start a new chat" or "compacting … did not help".
	if f.Reason != event.ReasonError || !strings.Contains(f.Error, "Your message is too long for this model's context") ||
		strings.Contains(f.Error, "new chat") || strings.Contains(f.Error, "about 0 more") {
		t.Fatalf("run ended %+v", f)
	}
	kept := false
	for _, e := range events(t, k, s.ID) {
		switch e.Type {
		case event.HistoryReplace:
			t.Fatalf("a replace was made: %s", e.Payload)
		case event.UserMessage:
			p, _ := event.As[event.UserMessagePayload](e)
			kept = kept || p.Text == long
		}
	}
	if !kept {
		t.Fatal("the long message is not in the log as it was sent")
	}
}
