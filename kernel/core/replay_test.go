package core

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"quire/kernel/event"
	"quire/kernel/tool"
)

// longSession drives the loop through a session that takes most paths:
// tools, questions, retries, intents, checkpoints, every kind of ending,
// stray messages, and a run left open waiting for the user.
func longSession(t *testing.T) *loop {
	t.Helper()
	l := newLoop(t)
	caps := capsWith(limits(func(x *event.Limits) { x.MaxSteps = 10; x.LoopRepeats = 3 }))

	// r1: a read and a write, the write allowed; an inject joins step 2,
	// a retry, and a checkpoint that extends the run.
	l.open("r1", "tidy my notes", caps)
	l.send(StreamDelta{RunID: "r1"})
	l.send(StreamFinished{RunID: "r1", Step: 1, Content: "Let me look.", Calls: []tool.Call{call("c1", readTool), call("c2", writeTool)}, PromptTokens: 50, OutputTokens: 12})
	l.result("c1", "three notes")
	l.send(Submitted{Input: inject("j1", "the notes are in notes/")})
	l.send(PermissionAnswered{RunID: "r1", CallIDs: []string{"c2"}, Allowed: true})
	l.send(PermissionAnswered{RunID: "r1", CallIDs: []string{"c1"}, Allowed: true}) // c1 was not asked about: kernel.error
	l.result("c2", "written")
	l.send(StepRetried{RunID: "r1", Step: 2, Attempt: 1, After: time.Second, Reason: "busy"})
	l.send(StreamFinished{RunID: "r1", Step: 2, Content: "Done.", PromptTokens: 80, OutputTokens: 3})
	l.send(CheckpointDone{RunID: "r1", Inputs: []Input{{InputID: "h1", Intent: string(Steer), Text: "the linter failed"}}})
	l.reply("Fixed the lint.")
	l.send(CheckpointDone{RunID: "r1"})

	// r2: a question nobody answers, a steer and a follow-up while
	// streaming, then a cancel; the follow-up opens r3, which fails.
	l.open("r2", "rename the notes", caps)
	l.reply("", call("c3", writeTool))
	l.send(Tick{At: l.now.Add(time.Second)})
	l.send(Tick{At: l.now.Add(permissionWait)})
	l.send(Submitted{Input: steer("s1", "r-s1", "only the drafts", caps)})
	l.send(Submitted{Input: followUp("in-r3", "r3", "and summarise them", caps)})
	l.reply("Understood.")
	l.send(CancelRequested{Cause: "user"})
	l.send(StreamFinished{RunID: "r2", Step: 3, Content: "Renam", Interrupted: true})
	l.send(StreamFailed{RunID: "r2", Step: 3, Class: "cancelled", Message: "late"}) // stray: kernel.error
	l.send(StreamFailed{RunID: "r3", Step: 1, Class: "server", Message: "Ollama is not running."})

	// r4: nothing to do; r5: denied; r6: a loop; r7: too many calls.
	l.open("r4", "   ", caps)
	l.open("r5", strings.Repeat("long ", 100), capsWith(limits(func(x *event.Limits) { x.MaxInputTokens = 50 })))
	l.open("r6", "read it again", caps)
	for i := range 3 {
		id := "c-loop-" + string(rune('a'+i))
		l.reply("", tool.Call{ID: id, Name: readTool.Name, Arguments: []byte(`{"path":"same.md"}`)})
		l.result(id, "same")
	}
	l.open("r7", "read everything", capsWith(limits(func(x *event.Limits) { x.MaxToolCalls = 1 })))
	l.reply("", call("c4", readTool), call("c5", readTool))

	// r8: a cancel that races with a reply that asked for calls; r9: a
	// budget signal; r10: over the budget by its own use.
	l.open("r8", "go", caps)
	l.send(CancelRequested{Cause: "user"})
	l.reply("", call("c6", readTool))
	l.open("r9", "go on", caps)
	l.reply("", call("c7", readTool))
	l.send(BudgetExceeded{RunID: "r9", Message: "The session spent its allowance."})
	l.result("c7", "read")
	l.open("r10", "more", capsWith(limits(func(x *event.Limits) { x.TokenBudget = 1000 })))
	l.send(StreamFinished{RunID: "r10", Step: 1, Calls: []tool.Call{call("c8", readTool)}, PromptTokens: 990, OutputTokens: 20})

	// r11: interrupted by a restart with a call running and one asked.
	l.open("r11", "one more", caps)
	l.reply("", call("c9", readTool), call("c10", writeTool))
	l.send(Interrupted{})
	l.send(Interrupted{})

	// r12: left open, waiting for the user, with an inject queued.
	l.send(Submitted{Input: inject("j2", "use British spelling")})
	l.open("r12", "last one", caps)
	l.reply("", call("c11", readTool), call("c12", shellTool))
	l.result("c11", "ok")
	l.send(Submitted{Input: inject("j3", "and be brief")})
	return l
}

// TestLongSessionReplays: the facts of a long session reproduce its records
// exactly, fold back to the Model the loop was driven to, and the log keeps
// the invariants. The loop itself checks all of this when the test ends;
// here the session is also checked to have taken the paths it is for.
func TestLongSessionReplays(t *testing.T) {
	l := longSession(t)
	l.wantFinished("r1:completed", "r2:cancelled", "r3:error", "r4:nothing-to-do", "r5:denied", "r6:loop",
		"r7:max-tool-calls", "r8:cancelled", "r9:budget", "r10:budget", "r11:interrupted")
	if l.m.Phase != AwaitingPermission || l.m.Run.ID != "r12" || !slices.Equal(queuedIDs(l.m), []string{"j3"}) {
		t.Fatalf("the session ends %s in run %q with queue %v", l.m.Phase, l.m.Run.ID, queuedIDs(l.m))
	}
	if err := Replay(l.log); err != nil {
		t.Fatal(err)
	}
	if err := Verify(l.log); err != nil {
		t.Fatal(err)
	}
	m, err := Fold(l.log)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m, l.m) {
		t.Fatalf("Fold gives %+v, want %+v", m, l.m)
	}
	if n := len(records[event.KernelErrorPayload](t, l.log, event.KernelError)); n != 2 {
		t.Fatalf("%d kernel.error records, want 2 (the answer not asked for and the late failure)", n)
	}
}

// index finds the nth (from 0) event of type typ, optionally of run runID.
func index(t *testing.T, evs []event.Event, typ event.Type, runID string, nth int) int {
	t.Helper()
	for i, e := range evs {
		if e.Type == typ && (runID == "" || e.RunID == runID) {
			if nth == 0 {
				return i
			}
			nth--
		}
	}
	t.Fatalf("no %s of run %q in the log", typ, runID)
	return -1
}

func without(evs []event.Event, i int) []event.Event {
	return slices.Delete(slices.Clone(evs), i, i+1)
}

func inserted(evs []event.Event, i int, e event.Event) []event.Event {
	return slices.Insert(slices.Clone(evs), i, e)
}

func withPayload(t *testing.T, evs []event.Event, i int, edit func(map[string]any)) []event.Event {
	t.Helper()
	out := slices.Clone(evs)
	var p map[string]any
	if err := json.Unmarshal(out[i].Payload, &p); err != nil {
		t.Fatal(err)
	}
	edit(p)
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	out[i].Payload = b
	return out
}

// TestReplayCatchesARecordThatFactsDoNotGive: any change to the records of
// a log — altered, removed, added — is found.
func TestReplayCatchesARecordThatFactsDoNotGive(t *testing.T) {
	good := longSession(t).log
	cases := []struct {
		name string
		log  func() []event.Event
	}{
		{"a run.finished with another reason", func() []event.Event {
			return withPayload(t, good, index(t, good, event.RunFinished, "r3", 0), func(p map[string]any) { p["reason"] = "completed" })
		}},
		{"a refusal with another status", func() []event.Event {
			return withPayload(t, good, index(t, good, event.ToolRefused, "r11", 0), func(p map[string]any) { p["status"] = "cancelled" })
		}},
		{"a step that consumed other inputs", func() []event.Event {
			return withPayload(t, good, index(t, good, event.StepStarted, "r1", 1), func(p map[string]any) { p["inputIds"] = []string{} })
		}},
		{"a record moved to another run", func() []event.Event {
			out := slices.Clone(good)
			out[index(t, out, event.ToolStarted, "r1", 0)].RunID = "r2"
			return out
		}},
		{"a record with another time", func() []event.Event {
			out := slices.Clone(good)
			i := index(t, out, event.StepStarted, "r2", 0)
			out[i].Time = out[i].Time.Add(time.Millisecond)
			return out
		}},
		{"a step.started removed", func() []event.Event {
			return without(good, index(t, good, event.StepStarted, "r1", 1))
		}},
		{"a permission.requested removed", func() []event.Event {
			return without(good, index(t, good, event.PermissionRequested, "r2", 0))
		}},
		{"the log cut between two records of one fact", func() []event.Event {
			return good[:index(t, good, event.PermissionRequested, "r12", 0)]
		}},
		{"a record removed where the next fact follows", func() []event.Event {
			return without(good, index(t, good, event.RunFinished, "r1", 0))
		}},
		{"a user.message repeated", func() []event.Event {
			i := index(t, good, event.UserMessage, "r1", 0)
			return inserted(good, i+1, good[i])
		}},
		{"a kernel.error added after a fact that gives none", func() []event.Event {
			i := index(t, good, event.AssistantDelta, "r1", 0)
			return inserted(good, i+1, good[index(t, good, event.KernelError, "", 0)])
		}},
		{"a record before any fact", func() []event.Event {
			return inserted(good, 0, good[index(t, good, event.RunStarted, "r1", 0)])
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := Replay(tc.log()); !errors.Is(err, ErrNotReproduced) {
				t.Fatalf("Replay = %v, want ErrNotReproduced", err)
			}
		})
	}
}

// TestVerifyCatchesBrokenRuns: logs that break the run invariants fail
// Verify, whatever Replay says of them.
func TestVerifyCatchesBrokenRuns(t *testing.T) {
	good := longSession(t).log
	cases := []struct {
		name string
		log  func() []event.Event
	}{
		{"a run.finished missing", func() []event.Event {
			return without(good, index(t, good, event.RunFinished, "r1", 0))
		}},
		{"two run.started in a row", func() []event.Event {
			i := index(t, good, event.RunStarted, "r2", 0)
			return inserted(good, i+1, good[i])
		}},
		{"a run finishing with a call unanswered", func() []event.Event {
			// c1's result is gone; r1 still finishes.
			for i, e := range good {
				if e.Type == event.ToolResult && strings.Contains(string(e.Payload), `"c1"`) {
					return without(good, i)
				}
			}
			t.Fatal("no result for c1")
			return nil
		}},
		{"a refusal missing before an interrupted run closes", func() []event.Event {
			return without(good, index(t, good, event.ToolRefused, "r11", 0))
		}},
		{"a second result for a call", func() []event.Event {
			i := index(t, good, event.ToolResult, "r1", 0)
			return inserted(good, i+1, good[i])
		}},
		{"a step outside any run", func() []event.Event {
			return inserted(good, index(t, good, event.RunFinished, "r1", 0)+1, good[index(t, good, event.StepStarted, "r1", 0)])
		}},
		{"a run.finished without a reason", func() []event.Event {
			return withPayload(t, good, index(t, good, event.RunFinished, "r4", 0), func(p map[string]any) { p["reason"] = "" })
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := Verify(tc.log()); !errors.Is(err, ErrBrokenInvariant) {
				t.Fatalf("Verify = %v, want ErrBrokenInvariant", err)
			}
		})
	}
}

// TestFactsReadBackAsTheirMessages: every message, stored as its fact
// event, reads back as the same message; records and plain events are not
// facts.
func TestFactsReadBackAsTheirMessages(t *testing.T) {
	at := t0.Add(time.Minute)
	msgs := []Msg{
		Submitted{At: at, Input: followUp("i1", "r1", "hello", capsWith())},
		StreamDelta{At: at, RunID: "r1"},
		StreamFinished{At: at, RunID: "r1", Step: 2, Content: "hi", Calls: []tool.Call{call("c1", readTool)}, PromptTokens: 3, OutputTokens: 4, Interrupted: true},
		StreamFinished{At: at, RunID: "r1", Step: 3, Calls: []tool.Call{call("c1", readTool), call("c2", writeTool)}, Invalid: map[string]string{"c2": "\"path\" is required"}},
		StreamFailed{At: at, RunID: "r1", Step: 2, Class: "server", Message: "broke"},
		StepRetried{At: at, RunID: "r1", Step: 2, Attempt: 3, After: time.Second, Reason: "busy"},
		ToolFinished{At: at, RunID: "r1", CallID: "c1", Status: "success", Content: "ok"},
		PermissionAnswered{At: at, RunID: "r1", CallIDs: []string{"c1", "c2"}, Allowed: true, Feedback: "fine", ByDefault: true},
		CancelRequested{At: at, Cause: "user"},
		BudgetExceeded{At: at, RunID: "r1", Message: "spent"},
		CheckpointDone{At: at, RunID: "r1", Inputs: []Input{inject("h1", "more")}},
		Tick{At: at},
		Interrupted{At: at},
	}
	for _, msg := range msgs {
		t.Run(msg.name(), func(t *testing.T) {
			enc, err := event.Encode(factOf(msg))
			if err != nil {
				t.Fatal(err)
			}
			got, ok, err := MsgOf(event.Event{Session: "s1", Seq: 1, Type: enc.Type, Time: enc.Time, RunID: enc.RunID, Payload: enc.Payload})
			if err != nil || !ok {
				t.Fatalf("MsgOf: ok %v, err %v", ok, err)
			}
			if !reflect.DeepEqual(got, msg) {
				t.Fatalf("read back\n%+v\nwant\n%+v", got, msg)
			}
		})
	}
	for _, typ := range []event.Type{event.RunStarted, event.KernelError, event.SessionCreated, event.HistoryReplace} {
		if _, ok, err := MsgOf(event.Event{Type: typ, Payload: []byte(`{}`)}); ok || err != nil {
			t.Errorf("%s read as a fact (ok %v, err %v)", typ, ok, err)
		}
	}
}
