package runtime_test

import (
	"context"
	"errors"
	"testing"

	"quire/kernel/compact"
	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/provider/ollama"
	"quire/kernel/runtime"
	"quire/kernel/store"
)

// TestInspectorReadsEachCallFromTheLog: the inspector lists the calls as
// `quire replay -request N` numbers them (a retry is a call of its own),
// each with the request Request(n) rebuilds (the same bytes), every
// message's origin (the system zone's context.text, the user.message, the
// assistant.message with the tool call, the tool.result), the estimate
// against the window, what answered it, and the diff from the call before
// — and a Reader of the file read-only says the same.
func TestInspectorReadsEachCallFromTheLog(t *testing.T) {
	k, s, run1, run2 := planChat(t)
	evs := logOf(t, k, s)

	ro, err := store.OpenReadOnly(t.Context(), k.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	for name, r := range map[string]callReader{"runtime": k.Runtime, "reader": runtime.NewReader(ro)} {
		t.Run(name, func(t *testing.T) {
			list, err := r.Calls(t.Context(), s, "")
			if err != nil {
				t.Fatal(err)
			}
			type row struct {
				run           string
				step, attempt int
				outcome       string
			}
			want := []row{{run1, 1, 0, protocol.CallReplied}, {run1, 2, 0, protocol.CallRetried}, {run1, 2, 1, protocol.CallReplied}, {run2, 1, 0, protocol.CallReplied}}
			if list.Total != len(want) || len(list.Calls) != len(want) {
				t.Fatalf("%d calls (total %d), want %d: %+v", len(list.Calls), list.Total, len(want), list.Calls)
			}
			for i, c := range list.Calls {
				if w := want[i]; c.N != i+1 || c.RunID != w.run || c.Step != w.step || c.Attempt != w.attempt || c.Outcome != w.outcome {
					t.Errorf("call %d: %+v, want %+v", i+1, c, w)
				}
			}
			if only, err := r.Calls(t.Context(), s, run2); err != nil || len(only.Calls) != 1 || only.Calls[0].N != 4 {
				t.Fatalf("the calls of the second run: %+v, %v", only, err)
			}

			for n := 1; n <= len(want); n++ {
				got, err := r.Call(t.Context(), s, n)
				if err != nil {
					t.Fatal(err)
				}
				rebuilt, err := k.Runtime.Request(t.Context(), s, n)
				if err != nil {
					t.Fatal(err)
				}
				a, _ := ollama.RequestJSON(got.Request)
				b, _ := ollama.RequestJSON(rebuilt)
				if string(a) != string(b) {
					t.Fatalf("call %d's request is not Request(%d):\n%s\n%s", n, n, a, b)
				}
				if len(got.Call.Messages) != len(rebuilt.Messages) || got.Call.Tokens.Total != compact.RequestTokens(rebuilt) ||
					got.Call.Tokens.Window != rebuilt.ContextLen || !got.Call.Tokens.Estimate {
					t.Fatalf("call %d: %d messages, tokens %+v; the request has %d, estimate %d", n, len(got.Call.Messages), got.Call.Tokens,
						len(rebuilt.Messages), compact.RequestTokens(rebuilt))
				}
			}

			third, err := r.Call(t.Context(), s, 3)
			if err != nil {
				t.Fatal(err)
			}
			origins := []struct {
				event event.Type
				seq   int64
			}{
				{event.ContextText, seqOf(t, evs, event.ContextText, 0)},
				{event.UserMessage, seqOf(t, evs, event.UserMessage, 0)},
				{event.AssistantMessage, seqOf(t, evs, event.AssistantMessage, 0)},
				{event.ToolResult, seqOf(t, evs, event.ToolResult, 0)},
			}
			if len(third.Call.Messages) != len(origins) {
				t.Fatalf("call 3 has %d messages: %+v", len(third.Call.Messages), third.Call.Messages)
			}
			for i, o := range origins {
				if got := third.Call.Messages[i].Origin; got.Event != string(o.event) || got.Seq != o.seq {
					t.Errorf("message %d comes from %s #%d, want %s #%d", i, got.Event, got.Seq, o.event, o.seq)
				}
			}
			if z := third.Call.Messages[0].Origin; z.Zone == "" || z.Hash == "" {
				t.Errorf("the system message names no zone or hash: %+v", z)
			}
			if m := third.Call.Messages[3]; m.ToolName != "read_note" || m.Content != "# Plan\nbuy milk" {
				t.Errorf("the tool result: %+v", m)
			}
			if len(third.Call.Tools) != 1 || third.Call.Tools[0].Name != "read_note" || third.Call.Tokens.Tools != third.Call.Tools[0].Tokens {
				t.Errorf("tools %+v, tokens %+v", third.Call.Tools, third.Call.Tokens)
			}
			if rp := third.Call.Reply; rp == nil || rp.Content != "You need milk." || rp.Seq != third.Call.Summary.ReplySeq || rp.TotalNS < 0 {
				t.Errorf("call 3's reply: %+v", rp)
			}
			// A retry asks again for what failed: nothing changed.
			if d := third.Call.Diff; d == nil || d.Previous != 2 || d.Added != 0 || len(d.Removed) != 0 || d.SystemChanged {
				t.Errorf("call 3 against call 2: %+v", d)
			}
			second, err := r.Call(t.Context(), s, 2)
			if err != nil {
				t.Fatal(err)
			}
			if f := second.Call.Failure; f == nil || f.RetrySeq != seqOf(t, evs, event.StepRetried, 0) || second.Call.Reply != nil {
				t.Errorf("call 2's failure: %+v", f)
			}
			// The second run adds the reply and the user's "thanks".
			fourth, err := r.Call(t.Context(), s, 4)
			if err != nil {
				t.Fatal(err)
			}
			d := fourth.Call.Diff
			if d == nil || d.Added != 2 || len(d.Removed) != 0 {
				t.Fatalf("call 4 against call 3: %+v", d)
			}
			n := len(fourth.Call.Messages)
			if fourth.Call.Messages[n-2].Change != protocol.ChangeAdded || fourth.Call.Messages[n-1].Change != protocol.ChangeAdded ||
				fourth.Call.Messages[n-1].Content != "thanks" || fourth.Call.Messages[1].Change != protocol.ChangeSame {
				t.Fatalf("call 4's changes: %+v", fourth.Call.Messages)
			}
			if _, err := r.Call(t.Context(), s, 5); !errors.Is(err, protocol.ErrNotFound) || !errors.Is(err, runtime.ErrNoSuchStep) {
				t.Fatalf("a call that never happened: %v", err)
			}
			if _, err := r.Calls(t.Context(), "no-such-session", ""); !errors.Is(err, protocol.ErrNotFound) {
				t.Fatalf("the calls of no session: %v", err)
			}
		})
	}
}

// callReader is what the inspector reads calls through: a Runtime, or a
// Reader of the same file.
type callReader interface {
	Calls(ctx context.Context, session, run string) (protocol.CallList, error)
	Call(ctx context.Context, session string, n int) (runtime.Inspected, error)
}

// TestInspectorNamesTheCompactionThatMadeASummary: after a compaction
// replaced the first turn, the next call's first message is the summary,
// from the history.replace (its seq, the range it stands for, the
// strategy), and the diff says the first call's message was replaced by it
// (the reply it also stands for came after that call).
func TestInspectorNamesTheCompactionThatMadeASummary(t *testing.T) {
	c := firstTurnSummarised()
	k := kit(t, runtime.WithCompaction(c))
	s := chat(t, k)
	say(t, k, s, "hello", "")
	waitRuns(t, k, s, 1)
	say(t, k, s, "what did I say?", "")
	evs := waitRuns(t, k, s, 2)

	got, err := k.Runtime.Call(t.Context(), s, 2)
	if err != nil {
		t.Fatal(err)
	}
	replace := seqOf(t, evs, event.HistoryReplace, 0)
	first, reply := seqOf(t, evs, event.UserMessage, 0), seqOf(t, evs, event.AssistantMessage, 0)
	o := got.Call.Messages[0].Origin
	if o.Event != string(event.HistoryReplace) || o.Seq != replace || o.From != first || o.To != reply || o.Strategy != compact.StrategySummarise {
		t.Fatalf("the summary's origin: %+v (replace #%d over %d..%d)", o, replace, first, reply)
	}
	if got.Call.BuiltAt != replace {
		t.Fatalf("built at %d, want the replace's seq %d", got.Call.BuiltAt, replace)
	}
	d := got.Call.Diff
	if d == nil || len(d.Removed) != 1 || d.Removed[0].Origin.Seq != first || d.Added != 2 {
		t.Fatalf("diff %+v", d)
	}
	for _, m := range d.Removed {
		if m.ReplacedBy != 0 {
			t.Fatalf("removed %+v is not replaced by the summary (message 0)", m)
		}
	}
}

// TestInspectorNamesTheParentOfABranchsMessages: a branch's first call
// carries its parent's history; the inspector names those messages by the
// parent's session and seqs, and the branch's own message by its own.
func TestInspectorNamesTheParentOfABranchsMessages(t *testing.T) {
	k := kit(t)
	root := chat(t, k)
	say(t, k, root, "hi", "")
	parent := waitRuns(t, k, root, 1)
	b, err := protocol.Run[protocol.Session](t.Context(), k.Runtime, "", protocol.CreateSession,
		protocol.CreateSessionPayload{Title: "branch", Parent: root, ParentSeq: parent[len(parent)-1].Seq})
	if err != nil {
		t.Fatal(err)
	}
	say(t, k, b.ID, "and then?", "")
	own := waitRuns(t, k, b.ID, 1)

	got, err := k.Runtime.Call(t.Context(), b.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []protocol.CallOrigin{
		{Event: string(event.UserMessage), Seq: seqOf(t, parent, event.UserMessage, 0), Session: root},
		{Event: string(event.AssistantMessage), Seq: seqOf(t, parent, event.AssistantMessage, 0), Session: root},
		{Event: string(event.UserMessage), Seq: seqOf(t, own, event.UserMessage, 0)},
	}
	if len(got.Call.Messages) != len(want) {
		t.Fatalf("%d messages: %+v", len(got.Call.Messages), got.Call.Messages)
	}
	for i, w := range want {
		if o := got.Call.Messages[i].Origin; o.Event != w.Event || o.Seq != w.Seq || o.Session != w.Session {
			t.Errorf("message %d from %+v, want %+v", i, o, w)
		}
	}
	if got.Call.Diff != nil {
		t.Errorf("the branch's first call has no call before it in its session: %+v", got.Call.Diff)
	}
}
