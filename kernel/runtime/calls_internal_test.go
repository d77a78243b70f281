package runtime

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/provider"
)

// msg is a request message from an event, for the diff's table.
func msg(role, text string, ev event.Type, seq int64) protocol.CallMessage {
	return protocol.CallMessage{Role: role, Content: text, Origin: protocol.CallOrigin{Event: string(ev), Seq: seq}}
}

func zone(name, text string) protocol.CallMessage {
	return protocol.CallMessage{Role: "system", Content: text, Origin: protocol.CallOrigin{Event: string(event.ContextText), Zone: name}}
}

func summary(seq, from, to int64) protocol.CallMessage {
	return protocol.CallMessage{Role: "user", Content: "summary", Origin: protocol.CallOrigin{Event: string(event.HistoryReplace), Seq: seq, From: from, To: to}}
}

// TestDiffCallsSaysWhatChanged: message by message, what the inspector
// says changed from one call's request to the next.
func TestDiffCallsSaysWhatChanged(t *testing.T) {
	hot := 0.2
	tests := []struct {
		name      string
		prev, cur []protocol.CallMessage
		prevReq   provider.Request
		curReq    provider.Request
		changes   []protocol.CallChange
		removed   []int // ReplacedBy of each removed message
		system    bool
		options   []string
		toolsIn   []string
		toolsOut  []string
	}{
		{name: "the same request (a retry)",
			prev:    []protocol.CallMessage{zone("system", "You are Quire."), msg("user", "hi", event.UserMessage, 3)},
			cur:     []protocol.CallMessage{zone("system", "You are Quire."), msg("user", "hi", event.UserMessage, 3)},
			changes: []protocol.CallChange{protocol.ChangeSame, protocol.ChangeSame}},
		{name: "a reply and a tool result added",
			prev:    []protocol.CallMessage{msg("user", "hi", event.UserMessage, 3)},
			cur:     []protocol.CallMessage{msg("user", "hi", event.UserMessage, 3), msg("assistant", "", event.AssistantMessage, 6), msg("tool", "x", event.ToolResult, 9)},
			changes: []protocol.CallChange{protocol.ChangeSame, protocol.ChangeAdded, protocol.ChangeAdded}},
		{name: "the system text refreshed",
			prev:    []protocol.CallMessage{zone("system", "You are Quire."), zone("memory", "Ada"), msg("user", "hi", event.UserMessage, 3)},
			cur:     []protocol.CallMessage{zone("system", "You are Quire."), zone("memory", "Ada likes tea"), msg("user", "hi", event.UserMessage, 3)},
			changes: []protocol.CallChange{protocol.ChangeSame, protocol.ChangeChanged, protocol.ChangeSame}, system: true},
		{name: "a zone gone",
			prev:    []protocol.CallMessage{zone("system", "You are Quire."), zone("memory", "Ada")},
			cur:     []protocol.CallMessage{zone("system", "You are Quire.")},
			changes: []protocol.CallChange{protocol.ChangeSame}, removed: []int{-1}, system: true},
		{name: "a compaction replaced the first turn",
			prev:    []protocol.CallMessage{msg("user", "hi", event.UserMessage, 3), msg("assistant", "hello", event.AssistantMessage, 6), msg("user", "more", event.UserMessage, 9)},
			cur:     []protocol.CallMessage{summary(12, 3, 6), msg("user", "more", event.UserMessage, 9)},
			changes: []protocol.CallChange{protocol.ChangeAdded, protocol.ChangeSame}, removed: []int{0, 0}},
		{name: "a later compaction over a summary",
			prev:    []protocol.CallMessage{summary(12, 3, 6), msg("user", "more", event.UserMessage, 9)},
			cur:     []protocol.CallMessage{summary(15, 3, 9)},
			changes: []protocol.CallChange{protocol.ChangeAdded}, removed: []int{0, 0}},
		{name: "a message simply gone (a branch of another history)",
			prev:    []protocol.CallMessage{msg("user", "hi", event.UserMessage, 3)},
			cur:     []protocol.CallMessage{msg("user", "other", event.UserMessage, 4)},
			changes: []protocol.CallChange{protocol.ChangeAdded}, removed: []int{-1}},
		{name: "options and tools",
			prevReq: provider.Request{Model: "a", ContextLen: 8192, Tools: []provider.ToolSpec{{Name: "read_note"}, {Name: "search_docs"}}},
			curReq:  provider.Request{Model: "b", ContextLen: 4096, Temperature: &hot, Tools: []provider.ToolSpec{{Name: "read_note"}, {Name: "write_note"}}},
			options: []string{"model", "num_ctx", "temperature"}, toolsIn: []string{"write_note"}, toolsOut: []string{"search_docs"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prev := protocol.Call{Summary: protocol.CallSummary{N: 1}, Messages: tc.prev}
			cur := protocol.Call{Summary: protocol.CallSummary{N: 2}, Messages: append([]protocol.CallMessage(nil), tc.cur...)}
			d := diffCalls(prev, cur, tc.prevReq, tc.curReq)
			if d.Previous != 1 {
				t.Errorf("previous %d", d.Previous)
			}
			added, changed := 0, 0
			for i, m := range cur.Messages {
				if m.Change != tc.changes[i] {
					t.Errorf("message %d: %s, want %s", i, m.Change, tc.changes[i])
				}
				added += b2i(m.Change == protocol.ChangeAdded)
				changed += b2i(m.Change == protocol.ChangeChanged)
			}
			if d.Added != added || d.Changed != changed {
				t.Errorf("counts %d added %d changed, the messages say %d and %d", d.Added, d.Changed, added, changed)
			}
			if len(d.Removed) != len(tc.removed) {
				t.Fatalf("removed %+v, want %d", d.Removed, len(tc.removed))
			}
			for i, r := range d.Removed {
				if r.ReplacedBy != tc.removed[i] {
					t.Errorf("removed %d replaced by %d, want %d", i, r.ReplacedBy, tc.removed[i])
				}
			}
			if d.SystemChanged != tc.system {
				t.Errorf("system changed %v, want %v", d.SystemChanged, tc.system)
			}
			if strings.Join(d.OptionsChanged, ",") != strings.Join(tc.options, ",") ||
				strings.Join(d.ToolsAdded, ",") != strings.Join(tc.toolsIn, ",") || strings.Join(d.ToolsRemoved, ",") != strings.Join(tc.toolsOut, ",") {
				t.Errorf("options %v tools +%v -%v", d.OptionsChanged, d.ToolsAdded, d.ToolsRemoved)
			}
		})
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestBoundKeepsACallsDetailSmall: a request of megabytes is shown cut —
// each text at MaxShownText on a character boundary, the last
// MaxShownMessages messages — and says so.
func TestBoundKeepsACallsDetailSmall(t *testing.T) {
	long := strings.Repeat("é", protocol.MaxShownText) // two bytes each: twice the bound
	tests := []struct {
		name      string
		messages  int
		text      string
		truncated bool
	}{
		{"small", 3, "hello", false},
		{"a long tool output", 3, long, true},
		{"too many messages", protocol.MaxShownMessages + 5, "x", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := protocol.Call{Reply: &protocol.CallReply{Content: tc.text}}
			for i := 0; i < tc.messages; i++ {
				c.Messages = append(c.Messages, protocol.CallMessage{Content: tc.text, Origin: protocol.CallOrigin{Seq: int64(i)}})
			}
			bound(&c)
			if c.Truncated != tc.truncated {
				t.Fatalf("truncated %v, want %v", c.Truncated, tc.truncated)
			}
			if len(c.Messages) > protocol.MaxShownMessages || c.Shown != tc.messages-len(c.Messages) {
				t.Fatalf("%d messages shown from %d", len(c.Messages), c.Shown)
			}
			if last := c.Messages[len(c.Messages)-1]; last.Origin.Seq != int64(tc.messages-1) {
				t.Fatalf("the last message shown is #%d, want the request's last", last.Origin.Seq)
			}
			for _, m := range c.Messages {
				if len(m.Content) > protocol.MaxShownText || !utf8.ValidString(m.Content) || m.Cut != (len(tc.text) > protocol.MaxShownText) {
					t.Fatalf("a message of %d bytes (valid %v, cut %v)", len(m.Content), utf8.ValidString(m.Content), m.Cut)
				}
			}
			if r := c.Reply; len(r.Content) > protocol.MaxShownText || r.Cut != (len(tc.text) > protocol.MaxShownText) {
				t.Fatalf("the reply: %d bytes, cut %v", len(r.Content), r.Cut)
			}
		})
	}
}

// ev is an event of a log for spans' table: run r1 unless run is given.
func ev(t *testing.T, seq int64, typ event.Type, payload any, run ...string) event.Event {
	t.Helper()
	b, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	r := "r1"
	if len(run) > 0 {
		r = run[0]
	}
	return event.Event{Session: "s", Seq: seq, Type: typ, RunID: r, Time: time.Unix(0, seq*int64(time.Millisecond)), Payload: b}
}

// TestSpansSayWhatAnsweredEachCall: each step.started or step.retried is
// a call, answered by the reply, failure, retry or end of its own run
// that comes next, or still open.
func TestSpansSayWhatAnsweredEachCall(t *testing.T) {
	started := func(seq int64, step int, run ...string) event.Event {
		return ev(t, seq, event.StepStarted, event.StepStartedPayload{Step: step}, run...)
	}
	reply := func(seq int64, run ...string) event.Event {
		return ev(t, seq, event.AssistantMessage, event.AssistantMessagePayload{Content: "ok", Usage: event.Usage{PromptTokens: 42}}, run...)
	}
	tests := []struct {
		name     string
		log      []event.Event
		outcomes []string
		replies  []int64
	}{
		{"a reply", []event.Event{started(1, 1), ev(t, 2, event.AssistantDelta, event.AssistantDeltaPayload{Content: "o"}), reply(3)},
			[]string{protocol.CallReplied}, []int64{3}},
		{"a retry, then the reply", []event.Event{started(1, 1), ev(t, 2, event.StepRetried, event.StepRetriedPayload{Step: 1, Attempt: 1, Reason: "busy"}), reply(3)},
			[]string{protocol.CallRetried, protocol.CallReplied}, []int64{-1, 3}},
		{"the chain gave up", []event.Event{started(1, 1), ev(t, 2, event.StreamFailed, event.StreamFailedPayload{Step: 1, Class: "server", Message: "down"}),
			ev(t, 3, event.RunFinished, event.RunFinishedPayload{Reason: "error"})},
			[]string{protocol.CallFailed}, []int64{2}},
		{"stopped before any answer", []event.Event{started(1, 1), ev(t, 2, event.RunFinished, event.RunFinishedPayload{Reason: "cancelled"})},
			[]string{protocol.CallEnded}, []int64{-1}},
		{"still streaming", []event.Event{started(1, 1), ev(t, 2, event.AssistantDelta, event.AssistantDeltaPayload{Content: "o"})},
			[]string{protocol.CallOpen}, []int64{-1}},
		{"another run's reply answers only its own call", []event.Event{started(1, 1, "r2"), started(2, 1), reply(3, "r2")},
			[]string{protocol.CallReplied, protocol.CallOpen}, []int64{3, -1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := spans(tc.log)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.outcomes) {
				t.Fatalf("%d calls, want %d", len(got), len(tc.outcomes))
			}
			for i, sp := range got {
				if sp.N != i+1 || sp.Outcome != tc.outcomes[i] || sp.ReplySeq != tc.replies[i] {
					t.Errorf("call %d: n %d, %s, reply #%d; want %s, reply #%d", i+1, sp.N, sp.Outcome, sp.ReplySeq, tc.outcomes[i], tc.replies[i])
				}
				if sp.Outcome == protocol.CallReplied && sp.PromptTokens != 42 {
					t.Errorf("call %d: prompt tokens %d", i+1, sp.PromptTokens)
				}
			}
		})
	}
}
