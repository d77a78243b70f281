package runtime_test

import (
	"errors"
	"strings"
	"testing"

	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/runtime"
	"quire/kernel/store"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

// seqOf is the seq of the n-th (0-based) event of type typ in evs.
func seqOf(t *testing.T, evs []event.Event, typ event.Type, n int) int64 {
	t.Helper()
	for _, e := range evs {
		if e.Type == typ {
			if n == 0 {
				return e.Seq
			}
			n--
		}
	}
	t.Fatalf("no such %s in %s", typ, testkit.Types(evs))
	return 0
}

// sentAsRebuilt checks that the fake server's requests from index from on
// are, byte for byte (canonical JSON), requests 1.. of session rebuilt from
// the log by r: the runtime, or a Reader as `quire replay -request N` uses.
func sentAsRebuilt(t *testing.T, r testkit.Rebuilder, k *testkit.Kernel, session string, from int) {
	t.Helper()
	sent := k.Ollama.Requests()[from:]
	if len(sent) == 0 {
		t.Fatal("no request was sent")
	}
	testkit.RebuiltAsSent(t, r, session, sent)
}

// twoTurns is a conversation "hi" → "hello", "what is 2+2?" → "4".
func twoTurns(t *testing.T, k *testkit.Kernel) (string, []event.Event) {
	t.Helper()
	s := chat(t, k)
	k.Ollama.Script(saying("hello"), saying("4"))
	say(t, k, s, "hi", "")
	waitRuns(t, k, s, 1)
	say(t, k, s, "what is 2+2?", "")
	return s, waitRuns(t, k, s, 2)
}

// TestEditAndRegenerateBranchFromJustBeforeTheMessage: editing the second
// user message, or regenerating its reply, makes a branch whose history is
// the parent's before that message and whose first input is the edited (or
// the same) text; the model sees exactly that, each request of the branch is
// rebuilt from the logs as sent, and the parent's log is not touched.
func TestEditAndRegenerateBranchFromJustBeforeTheMessage(t *testing.T) {
	for _, c := range []struct {
		name      string
		typ       string
		payload   func(evs []event.Event) any
		wantTitle string
		wantLast  string
	}{
		{"edit", protocol.EditMessage, func(evs []event.Event) any {
			return protocol.EditMessagePayload{Session: evs[0].Session, Seq: seqOf(t, evs, event.UserMessage, 1), Text: "what is 3+3?"}
		}, "what is 3+3?", "user:what is 3+3?"},
		{"regenerate", protocol.Regenerate, func(evs []event.Event) any {
			return protocol.RegeneratePayload{Session: evs[0].Session, Seq: seqOf(t, evs, event.AssistantMessage, 1)}
		}, "branch 2", "user:what is 2+2?"},
	} {
		t.Run(c.name, func(t *testing.T) {
			k := kit(t)
			root, evs := twoTurns(t, k)
			userSeq := seqOf(t, evs, event.UserMessage, 1)
			before := len(k.Ollama.Requests())
			k.Ollama.Script(saying("6"))
			res, err := protocol.Run[protocol.BranchResult](t.Context(), k.Runtime, "", c.typ, c.payload(evs))
			if err != nil {
				t.Fatal(err)
			}
			b := res.Session
			if b.Parent != root || b.ParentSeq != userSeq-1 || b.Title != c.wantTitle || res.RunID == "" {
				t.Fatalf("branch %+v (run %q), want parent %s at %d titled %q", b, res.RunID, root, userSeq-1, c.wantTitle)
			}
			bevs := waitRuns(t, k, b.ID, 1)
			if f := finished(t, bevs); f.Reason != event.ReasonCompleted {
				t.Fatalf("the branch's run ended %+v", f)
			}
			reqs := requests(k)[before:]
			want := "user:hi | assistant:hello | " + c.wantLast
			if len(reqs) != 1 || transcript(reqs[0]) != want {
				t.Fatalf("the branch's model saw %d requests, first %q, want %q", len(reqs), transcript(reqs[0]), want)
			}
			sentAsRebuilt(t, k.Runtime, k, b.ID, before)
			// `quire replay` reads the file with a Reader, nothing running.
			ro, err := store.OpenReadOnly(t.Context(), k.Path)
			if err != nil {
				t.Fatal(err)
			}
			defer ro.Close()
			sentAsRebuilt(t, runtime.NewReader(ro), k, b.ID, before)
			if after := logOf(t, k, root); len(after) != len(evs) {
				t.Fatalf("the parent's log went from %d to %d events", len(evs), len(after))
			}
		})
	}
}

// TestABranchCommandRepeatedWithItsKeyMakesOneBranch: the same edit sent
// twice with one idempotency key returns the same branch and run, and only
// one branch exists; the key reused for another edit is a conflict.
func TestABranchCommandRepeatedWithItsKeyMakesOneBranch(t *testing.T) {
	k := kit(t)
	root, evs := twoTurns(t, k)
	k.Ollama.Script(saying("6"))
	p := protocol.EditMessagePayload{Session: root, Seq: seqOf(t, evs, event.UserMessage, 1), Text: "what is 3+3?"}
	first, err := protocol.Run[protocol.BranchResult](t.Context(), k.Runtime, "edit-1", protocol.EditMessage, p)
	if err != nil {
		t.Fatal(err)
	}
	again, err := protocol.Run[protocol.BranchResult](t.Context(), k.Runtime, "edit-1", protocol.EditMessage, p)
	if err != nil {
		t.Fatal(err)
	}
	if again.Session.ID != first.Session.ID || again.RunID != first.RunID {
		t.Fatalf("the repeat made %s/%s, the first %s/%s", again.Session.ID, again.RunID, first.Session.ID, first.RunID)
	}
	waitRuns(t, k, first.Session.ID, 1)
	list, err := k.Runtime.Sessions(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Fatalf("%d sessions after a repeated edit, want the parent and one branch", len(list))
	}
	if got := testkit.Count(logOf(t, k, first.Session.ID), event.InputReceived); got != 1 {
		t.Fatalf("the branch holds %d inputs, want 1", got)
	}
	p.Text = "what is 4+4?"
	if _, err := protocol.Run[protocol.BranchResult](t.Context(), k.Runtime, "edit-1", protocol.EditMessage, p); !errors.Is(err, protocol.ErrIdempotencyConflict) {
		t.Fatalf("another edit under the same key: %v, want a conflict", err)
	}
}

// TestAKeyOfABranchCommandIsNotReusedByAnother: one idempotency key names
// one command, whichever of an edit and another command came first — a
// message sent under an edit's key, or an edit under a message's key, is a
// conflict that changes nothing (the edit's writes kept only keys derived
// from its own, so the other command was carried out as new).
func TestAKeyOfABranchCommandIsNotReusedByAnother(t *testing.T) {
	for _, editFirst := range []bool{true, false} {
		name := map[bool]string{true: "edit then send", false: "send then edit"}[editFirst]
		t.Run(name, func(t *testing.T) {
			k := kit(t)
			root, evs := twoTurns(t, k)
			k.Ollama.Script(saying("6"), saying("7"))
			edit := protocol.EditMessagePayload{Session: root, Seq: seqOf(t, evs, event.UserMessage, 1), Text: "what is 3+3?"}
			send := protocol.SendMessagePayload{Session: root, Text: "and 5+2?"}
			var firstRun string
			if editFirst {
				b, err := protocol.Run[protocol.BranchResult](t.Context(), k.Runtime, "key-1", protocol.EditMessage, edit)
				if err != nil {
					t.Fatal(err)
				}
				waitRuns(t, k, b.Session.ID, 1)
				_, err = protocol.Run[protocol.SendResult](t.Context(), k.Runtime, "key-1", protocol.SendMessage, send)
				if !errors.Is(err, protocol.ErrIdempotencyConflict) {
					t.Fatalf("a message under the edit's key: %v, want a conflict", err)
				}
			} else {
				r, err := protocol.Run[protocol.SendResult](t.Context(), k.Runtime, "key-1", protocol.SendMessage, send)
				if err != nil {
					t.Fatal(err)
				}
				firstRun = r.RunID
				waitRuns(t, k, root, 3)
				_, err = protocol.Run[protocol.BranchResult](t.Context(), k.Runtime, "key-1", protocol.EditMessage, edit)
				if !errors.Is(err, protocol.ErrIdempotencyConflict) {
					t.Fatalf("an edit under the message's key: %v, want a conflict", err)
				}
			}
			list, err := k.Runtime.Sessions(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if want := map[bool]int{true: 2, false: 1}[editFirst]; len(list) != want {
				t.Fatalf("%d sessions, want %d", len(list), want)
			}
			if want := map[bool]int{true: 2, false: 3}[editFirst]; testkit.Count(logOf(t, k, root), event.InputReceived) != want {
				t.Fatalf("the conversation holds %d inputs, want %d (run %s)", testkit.Count(logOf(t, k, root), event.InputReceived), want, firstRun)
			}
		})
	}
}

// TestBranchCommandsRefuseWhatTheyCannotDo: an edit of a reply, a
// regenerate of a user message, an empty edit and a continue of a
// completed run are refused with the protocol's kind, and none of them
// makes a branch or adds an input.
func TestBranchCommandsRefuseWhatTheyCannotDo(t *testing.T) {
	k := kit(t)
	root, evs := twoTurns(t, k)
	reply, user := seqOf(t, evs, event.AssistantMessage, 1), seqOf(t, evs, event.UserMessage, 1)
	for _, c := range []struct {
		name    string
		typ     string
		payload any
		want    error
	}{
		{"edit a reply", protocol.EditMessage, protocol.EditMessagePayload{Session: root, Seq: reply, Text: "x"}, protocol.ErrBadPayload},
		{"edit to nothing", protocol.EditMessage, protocol.EditMessagePayload{Session: root, Seq: user, Text: "  "}, protocol.ErrBadPayload},
		{"edit past the end", protocol.EditMessage, protocol.EditMessagePayload{Session: root, Seq: 999, Text: "x"}, protocol.ErrBadPayload},
		{"regenerate a user message", protocol.Regenerate, protocol.RegeneratePayload{Session: root, Seq: user}, protocol.ErrBadPayload},
		{"edit in no conversation", protocol.EditMessage, protocol.EditMessagePayload{Session: "nope", Seq: user, Text: "x"}, protocol.ErrNotFound},
		{"continue a completed run", protocol.ContinueRun, protocol.SessionRef{Session: root}, protocol.ErrConflict},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := protocol.Run[struct{}](t.Context(), k.Runtime, "", c.typ, c.payload); !errors.Is(err, c.want) {
				t.Fatalf("%s: %v, want %v", c.name, err, c.want)
			}
		})
	}
	list, err := k.Runtime.Sessions(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || len(logOf(t, k, root)) != len(evs) {
		t.Fatalf("refused commands left %d sessions and %d events (had %d)", len(list), len(logOf(t, k, root)), len(evs))
	}
}

// TestContinueAsksTheModelInTheLog: after a reply stopped mid-way, continue
// opens a run in the same session whose input is of kind continue; the
// model's request holds the cut reply then runtime.ContinueText as a user
// message, as the log rebuilds it.
func TestContinueAsksTheModelInTheLog(t *testing.T) {
	k := kit(t)
	s := chat(t, k)
	k.Ollama.Script(hanging("Once upon"))
	say(t, k, s, "tell me a story", "")
	waitType(t, k, s, event.AssistantDelta)
	if err := runCmd(t, k.Runtime, protocol.CancelRun, protocol.SessionRef{Session: s}); err != nil {
		t.Fatal(err)
	}
	waitRuns(t, k, s, 1)
	k.Ollama.Script(saying(" a time."))
	res, err := protocol.Run[protocol.SendResult](t.Context(), k.Runtime, "go-on", protocol.ContinueRun, protocol.SessionRef{Session: s})
	if err != nil {
		t.Fatal(err)
	}
	evs := waitRuns(t, k, s, 2)
	ins := only[event.InputReceivedPayload](t, evs, event.InputReceived)
	ums := only[event.UserMessagePayload](t, evs, event.UserMessage)
	if last := ins[len(ins)-1]; last.Kind != event.KindContinue || last.Text != runtime.ContinueText || last.RunID != res.RunID {
		t.Fatalf("the continue's input %+v, want kind continue for run %s", last, res.RunID)
	}
	if last := ums[len(ums)-1]; last.Kind != event.KindContinue {
		t.Fatalf("the continue's user message %+v has no kind continue", last)
	}
	reqs := requests(k)
	want := "user:tell me a story | assistant:Once upon | user:" + runtime.ContinueText
	if got := transcript(reqs[len(reqs)-1]); got != want {
		t.Fatalf("the continue's request %q, want %q", got, want)
	}
	rebuiltAsSent(t, k, s)
	again, err := protocol.Run[protocol.SendResult](t.Context(), k.Runtime, "go-on", protocol.ContinueRun, protocol.SessionRef{Session: s})
	if err != nil || again.RunID != res.RunID {
		t.Fatalf("the continue repeated with its key: %+v, %v; want run %s", again, err, res.RunID)
	}
}

// TestARegenerateOfAContinuedReplyContinuesAgain: the run a continue opened
// is asked again on its branch as a continue — the model told the same
// words, the user message kind continue — not as the user's own message.
func TestARegenerateOfAContinuedReplyContinuesAgain(t *testing.T) {
	k := kit(t)
	s := chat(t, k)
	k.Ollama.Script(hanging("Once upon"))
	say(t, k, s, "tell me a story", "")
	waitType(t, k, s, event.AssistantDelta)
	if err := runCmd(t, k.Runtime, protocol.CancelRun, protocol.SessionRef{Session: s}); err != nil {
		t.Fatal(err)
	}
	waitRuns(t, k, s, 1)
	k.Ollama.Script(saying(" a time."))
	if _, err := protocol.Run[protocol.SendResult](t.Context(), k.Runtime, "", protocol.ContinueRun, protocol.SessionRef{Session: s}); err != nil {
		t.Fatal(err)
	}
	evs := waitRuns(t, k, s, 2)
	k.Ollama.Script(saying(" a long time."))
	before := len(requests(k))
	b, err := protocol.Run[protocol.BranchResult](t.Context(), k.Runtime, "", protocol.Regenerate,
		protocol.RegeneratePayload{Session: s, Seq: seqOf(t, evs, event.AssistantMessage, 1)})
	if err != nil {
		t.Fatal(err)
	}
	bevs := waitRuns(t, k, b.Session.ID, 1)
	ums := only[event.UserMessagePayload](t, bevs, event.UserMessage)
	if len(ums) != 1 || ums[0].Kind != event.KindContinue || ums[0].Text != runtime.ContinueText {
		t.Fatalf("the branch's user messages %+v, want one continue", ums)
	}
	reqs := requests(k)
	want := "user:tell me a story | assistant:Once upon | user:" + runtime.ContinueText
	if got := transcript(reqs[len(reqs)-1]); got != want {
		t.Fatalf("the regenerated continue's request %q, want %q", got, want)
	}
	sentAsRebuilt(t, k.Runtime, k, b.Session.ID, before)
}

// TestAConversationWithBranchesIsNotDeleted: deleting a conversation a
// branch starts from is refused as a conflict and both stay readable, its
// open run untouched; once the branch is deleted, the parent can be.
func TestAConversationWithBranchesIsNotDeleted(t *testing.T) {
	k := kit(t)
	root, evs := twoTurns(t, k)
	k.Ollama.Script(saying("6"))
	b, err := protocol.Run[protocol.BranchResult](t.Context(), k.Runtime, "", protocol.EditMessage,
		protocol.EditMessagePayload{Session: root, Seq: seqOf(t, evs, event.UserMessage, 1), Text: "what is 3+3?"})
	if err != nil {
		t.Fatal(err)
	}
	waitRuns(t, k, b.Session.ID, 1)
	if err := runCmd(t, k.Runtime, protocol.DeleteSession, protocol.SessionRef{Session: root}); !errors.Is(err, protocol.ErrConflict) || !errors.Is(err, event.ErrHasBranches) {
		t.Fatalf("deleting a parent: %v, want a conflict naming its branches", err)
	}
	if _, err := k.Runtime.Request(t.Context(), b.Session.ID, 1); err != nil {
		t.Fatalf("the branch after a refused delete of its parent: %v", err)
	}
	if err := runCmd(t, k.Runtime, protocol.DeleteSession, protocol.SessionRef{Session: b.Session.ID}); err != nil {
		t.Fatal(err)
	}
	if err := runCmd(t, k.Runtime, protocol.DeleteSession, protocol.SessionRef{Session: root}); err != nil {
		t.Fatalf("deleting a parent without branches: %v", err)
	}
}

// TestBranchesOfABranchesFirstMessageAreSiblings: editing, or regenerating
// the reply to, the first message of a branch makes a branch of the same
// point as that branch (the histories before the message are the same), so
// the switcher counts them together; a branch's later message branches from
// the branch itself.
func TestBranchesOfABranchesFirstMessageAreSiblings(t *testing.T) {
	k := kit(t)
	root, evs := twoTurns(t, k)
	point := seqOf(t, evs, event.UserMessage, 1) - 1
	k.Ollama.Script(saying("6"), saying("8"), saying("6 again"), saying("ok"), saying("later"))
	edit := func(session string, seq int64, text string) protocol.Session {
		t.Helper()
		r, err := protocol.Run[protocol.BranchResult](t.Context(), k.Runtime, "", protocol.EditMessage,
			protocol.EditMessagePayload{Session: session, Seq: seq, Text: text})
		if err != nil {
			t.Fatal(err)
		}
		waitRuns(t, k, r.Session.ID, 1)
		return r.Session
	}
	b1 := edit(root, point+1, "what is 3+3?")
	b1evs := logOf(t, k, b1.ID)
	b2 := edit(b1.ID, seqOf(t, b1evs, event.UserMessage, 0), "what is 4+4?")
	r3, err := protocol.Run[protocol.BranchResult](t.Context(), k.Runtime, "", protocol.Regenerate,
		protocol.RegeneratePayload{Session: b1.ID, Seq: seqOf(t, b1evs, event.AssistantMessage, 0)})
	if err != nil {
		t.Fatal(err)
	}
	b3 := r3.Session
	waitRuns(t, k, b3.ID, 1)
	for _, b := range []protocol.Session{b2, b3} {
		if b.Parent != root || b.ParentSeq != point {
			t.Fatalf("branch %q leaves %s at %d, want the root %s at %d", b.Title, b.Parent, b.ParentSeq, root, point)
		}
	}
	if b3.Title != "branch 4" {
		t.Fatalf("the third sibling branch is titled %q, want branch 4 (the original counts as 1)", b3.Title)
	}
	say(t, k, b1.ID, "and then?", "")
	b1evs = waitRuns(t, k, b1.ID, 2)
	nested := edit(b1.ID, seqOf(t, b1evs, event.UserMessage, 1), "and after that?")
	if nested.Parent != b1.ID || nested.ParentSeq != seqOf(t, b1evs, event.UserMessage, 1)-1 {
		t.Fatalf("an edit of a branch's second message leaves %s at %d, want the branch %s", nested.Parent, nested.ParentSeq, b1.ID)
	}
}

// TestContinueAfterACrash: a run a crash left open is closed as interrupted
// at the next start, and continue then asks the model with the part of the
// reply written before the crash (the deltas the log kept) followed by
// runtime.ContinueText, as the log rebuilds it.
func TestContinueAfterACrash(t *testing.T) {
	h := newHarness(t)
	s := hangingRun(t, h)
	h2 := attach(t, h.fake, crashCopy(t, h))
	if err := h2.rt.Recover(t.Context()); err != nil {
		t.Fatal(err)
	}
	if f := finished(t, logOf(t, h2.k, s.ID)); f.Reason != event.ReasonInterrupted {
		t.Fatalf("the crashed run ended %+v, want interrupted", f)
	}
	before := len(h.fake.Requests())
	h.fake.Script(saying("tial."))
	if _, err := protocol.Run[protocol.SendResult](t.Context(), h2.rt, "", protocol.ContinueRun, protocol.SessionRef{Session: s.ID}); err != nil {
		t.Fatal(err)
	}
	h2.waitFinished(t, s.ID, 2)
	reqs := requests(h2.k)[before:]
	want := "user:q | assistant:par | user:" + runtime.ContinueText
	if len(reqs) != 1 || transcript(reqs[0]) != want {
		t.Fatalf("after a crash the continue sent %d requests, first %q, want %q", len(reqs), transcript(reqs[0]), want)
	}
	sentAsRebuilt(t, h2.rt, h2.k, s.ID, 0) // the crashed request and the continue: only this session used the fake
}

// TestContinueNeedsAReplyToContinue: a run that failed before the model
// wrote anything has nothing to continue, so the continue is refused
// saying to send the message again (issue 32: it was accepted); a reply
// the server cut at its num_predict may be continued.
func TestContinueNeedsAReplyToContinue(t *testing.T) {
	for _, tc := range []struct {
		name  string
		turn  ollamatest.Turn
		taken bool
	}{
		{"a failure before any reply", ollamatest.Turn{Fail: ollamatest.Failure{Kind: ollamatest.FailStatus, Status: 400, Message: "invalid message"}}, false},
		{"a reply cut off by a failure", ollamatest.Turn{Content: []string{"Once ", "upon"}, Fail: ollamatest.Failure{Kind: ollamatest.FailErrorLine, After: 2, Message: "CUDA error"}}, true},
		{"a reply cut at its length limit", ollamatest.Turn{Content: []string{"Once ", "upon"}, DoneReason: "length"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := kit(t)
			s := chat(t, k)
			k.Ollama.Script(tc.turn)
			say(t, k, s, "tell me a story", "")
			waitRuns(t, k, s, 1)
			k.Ollama.Script(saying(" a time."))
			_, err := protocol.Run[protocol.SendResult](t.Context(), k.Runtime, "", protocol.ContinueRun, protocol.SessionRef{Session: s})
			if tc.taken {
				if err != nil {
					t.Fatalf("the continue was refused: %v", err)
				}
				waitRuns(t, k, s, 2)
				return
			}
			if !errors.Is(err, runtime.ErrNothingToContinue) || !strings.Contains(err.Error(), "wrote nothing") {
				t.Fatalf("continue after a run with no reply: %v; want ErrNothingToContinue saying the model wrote nothing", err)
			}
		})
	}
}
