package runtime_test

import (
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"quire/kernel/core"
	"quire/kernel/event"
	"quire/kernel/provider/ollama"
	"quire/kernel/runtime"
	"quire/kernel/tool"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

// noToolsModel is a chat model Ollama lists without the "tools" capability.
const noToolsModel = "gemma:2b"

// fitKit is a kernel whose chat model is model, over a fake that has it and
// qwen3:4b installed, with one read tool; catalog asks /api/show.
func fitKit(t *testing.T, model string, catalog bool, opts ...runtime.Option) *testkit.Kernel {
	t.Helper()
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.AddModel(ollamatest.Model{Name: noToolsModel})
	read := &fakeTool{spec: tool.Spec{Name: "read_note", Description: "Read a note.", Effects: tool.ReadFs, Idempotency: tool.Safe}, run: replying("text")}
	opts = append(opts, withTools(read))
	if catalog {
		u, err := url.Parse(fake.URL())
		if err != nil {
			t.Fatal(err)
		}
		opts = append(opts, runtime.WithCatalog(ollama.NewCatalog(ollama.New(u, &http.Client{}))))
	}
	k := testkit.Open(t, fake, filepath.Join(t.TempDir(), "quire.db"), opts...)
	k.Runtime.SetSettings(settings(func(s *runtime.Settings) { s.Model = model }))
	return k
}

// capsOf are the capabilities frozen on each input that opened a run.
func capsOf(t *testing.T, evs []event.Event) []event.Capabilities {
	t.Helper()
	var out []event.Capabilities
	for _, in := range only[event.InputReceivedPayload](t, evs, event.InputReceived) {
		if in.Caps != nil {
			out = append(out, *in.Caps)
		}
	}
	return out
}

// TestModelWithoutToolsStillChats: a model whose /api/show lacks "tools"
// is sent no tools (Ollama would refuse them with a 400), and the run's
// snapshot says why, what was withheld and which installed model could, so
// the window can say it and a replay rebuilds the request without tools.
func TestModelWithoutToolsStillChats(t *testing.T) {
	k := fitKit(t, noToolsModel, true)
	k.Ollama.Script(saying("Hello."))
	s := chat(t, k)
	say(t, k, s, "hi", "")
	evs := waitRuns(t, k, s, 1)
	if fin := finished(t, evs); fin.Reason != event.ReasonCompleted {
		t.Fatalf("run finished %+v", fin)
	}
	reqs := requests(k)
	if len(reqs) != 1 || len(reqs[0].Tools) != 0 {
		t.Fatalf("%d requests, the first with %d tools; want one without tools", len(reqs), len(reqs[0].Tools))
	}
	caps := capsOf(t, evs)
	if len(caps) != 1 || caps[0].ToolsOff != event.ToolsOffModel || !slices.Equal(caps[0].Withheld, []string{"read_note"}) ||
		!slices.Equal(caps[0].ToolModels, []string{testkit.Model}) || len(caps[0].Tools) != 0 {
		t.Fatalf("snapshot %+v", caps)
	}
	rebuiltAsSent(t, k, s)

	// The same kernel with a model that can call tools offers them.
	k.Runtime.SetSettings(settings(nil))
	k.Ollama.Script(saying("Hi again."))
	say(t, k, s, "and now?", "")
	evs = waitRuns(t, k, s, 2)
	if reqs := requests(k); len(reqs[1].Tools) != 1 {
		t.Fatalf("a model with tools was offered %d", len(reqs[1].Tools))
	}
	if caps := capsOf(t, evs); caps[1].ToolsOff != "" || len(caps[1].Withheld) != 0 {
		t.Fatalf("the tool model's snapshot %+v", caps[1])
	}
}

// TestRefusedToolsAreDroppedAndRemembered: with nobody to ask about the
// model's capabilities, Ollama's 400 "does not support tools" gets one
// retry of the step without tools, recorded on the step.retried (so the
// replay rebuilds both requests as sent), and later runs freeze no tools
// for that model.
func TestRefusedToolsAreDroppedAndRemembered(t *testing.T) {
	k := fitKit(t, noToolsModel, false)
	k.Ollama.Script(saying("Hello."), saying("Again."))
	s := chat(t, k)
	say(t, k, s, "hi", "")
	evs := waitRuns(t, k, s, 1)
	if fin := finished(t, evs); fin.Reason != event.ReasonCompleted {
		t.Fatalf("run finished %+v: %s", fin, testkit.Types(evs))
	}
	retries := only[event.StepRetriedPayload](t, evs, event.StepRetried)
	if len(retries) != 1 || !retries[0].WithoutTools || !strings.Contains(retries[0].Reason, "cannot use tools") {
		t.Fatalf("retries %+v", retries)
	}
	reqs := requests(k)
	if len(reqs) != 2 || len(reqs[0].Tools) != 1 || len(reqs[1].Tools) != 0 {
		t.Fatalf("%d requests; want the first with tools, the retry without", len(reqs))
	}
	rebuiltAsSent(t, k, s)

	say(t, k, s, "more", "")
	evs = waitRuns(t, k, s, 2)
	if reqs := requests(k); len(reqs) != 3 || len(reqs[2].Tools) != 0 {
		t.Fatalf("the next run sent %d requests, the last with tools: %v", len(reqs), len(reqs) == 3 && len(reqs[2].Tools) > 0)
	}
	if caps := capsOf(t, evs); len(caps) != 2 || caps[1].ToolsOff != event.ToolsOffRefused {
		t.Fatalf("the next run's snapshot %+v", caps)
	}
	rebuiltAsSent(t, k, s)
}

// TestCrashedRunnerIsRetriedOnce: Ollama's runner died before answering
// (a 500 naming it); Ollama starts a new one on the next request, so the
// step is asked once more — and only once.
func TestCrashedRunnerIsRetriedOnce(t *testing.T) {
	crash := ollamatest.Turn{Fail: ollamatest.Failure{Kind: ollamatest.FailStatus, Status: 500, Message: "llama runner process has terminated: exit status 2"}}
	for _, tc := range []struct {
		name   string
		script []ollamatest.Turn
		reason string
		reqs   int
	}{
		{"a crash then an answer", []ollamatest.Turn{crash, saying("Hello.")}, event.ReasonCompleted, 2},
		{"two crashes end the run", []ollamatest.Turn{crash, crash, saying("never")}, event.ReasonError, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := kit(t, runtime.WithJitter(func() float64 { return 0 }))
			k.Ollama.Script(tc.script...)
			s := chat(t, k)
			say(t, k, s, "hi", "")
			evs := waitRuns(t, k, s, 1)
			fin := finished(t, evs)
			if fin.Reason != tc.reason || len(requests(k)) != tc.reqs {
				t.Fatalf("run finished %+v after %d requests", fin, len(requests(k)))
			}
			if tc.reason == event.ReasonError && !strings.Contains(fin.Error, "model runner") {
				t.Fatalf("the failure says %q, not that the runner stopped", fin.Error)
			}
			if failed := only[event.StreamFailedPayload](t, evs, event.StreamFailed); tc.reason == event.ReasonError &&
				(len(failed) != 1 || failed[0].Class != runtime.ClassRunner) {
				t.Fatalf("stream.failed %+v", failed)
			}
		})
	}
}

// TestEmptyReplyGetsANoteThenASentence: a reply with nothing in it (the
// real Ollama's answer to a call of a tool the request did not offer) is
// asked again with a note, which the log holds as a user.message, so the
// second request is rebuilt as sent; a second empty reply ends the run as
// "empty" with a sentence instead of a silent success.
func TestEmptyReplyGetsANoteThenASentence(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script []ollamatest.Turn
		reason string
	}{
		{"answered after the note", []ollamatest.Turn{{}, saying("Here it is.")}, event.ReasonCompleted},
		{"empty twice", []ollamatest.Turn{{}, {}}, event.ReasonEmpty},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := kit(t)
			k.Ollama.Script(tc.script...)
			s := chat(t, k)
			say(t, k, s, "hi", "")
			evs := waitRuns(t, k, s, 1)
			fin := finished(t, evs)
			if fin.Reason != tc.reason {
				t.Fatalf("run finished %+v: %s", fin, testkit.Types(evs))
			}
			if tc.reason == event.ReasonEmpty && !strings.Contains(fin.Error, "returned nothing") {
				t.Fatalf("the empty run says %q", fin.Error)
			}
			reqs := requests(k)
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			last := reqs[1].Messages[len(reqs[1].Messages)-1]
			if last.Role != "user" || last.Content != core.EmptyReplyNote {
				t.Fatalf("the second request ends with %+v, want the note", last)
			}
			rebuiltAsSent(t, k, s)
		})
	}
}

// TestContextIsCappedAtTheTrainedLength: Ollama runs a model trained for
// 2,048 tokens with num_ctx 2,048 whatever is asked, so the run freezes
// 2,048 (and the trained length) in its snapshot, sends it, and the overflow
// sentence counts against it and does not suggest a longer context (Settings
// cannot give more); a replay rebuilds the request from the snapshot.
func TestContextIsCappedAtTheTrainedLength(t *testing.T) {
	// A message too long for either context: tools too big for it would
	// be left out of the run (fitTools) rather than overflow.
	long := strings.Repeat("a very long message. ", 2000)
	for _, tc := range []struct {
		name    string
		catalog bool
		numCtx  int // the num_ctx frozen and sent
		trained int
		holds   string
		raise   bool // the sentence suggests raising the context length
	}{
		{"the catalog says the trained length", true, 2048, 2048, "the context holds 2048.", false},
		{"nobody says it", false, 8192, 0, "the context holds 8192.", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := fitKit(t, "small:2k", tc.catalog)
			m := ollamatest.DefaultModel()
			m.Name, m.ContextLength = "small:2k", 2048
			k.Ollama.AddModel(m)
			s := chat(t, k)
			say(t, k, s, long, "")
			evs := waitRuns(t, k, s, 1)
			caps := capsOf(t, evs)
			if len(caps) != 1 || caps[0].NumCtx != tc.numCtx || caps[0].Trained != tc.trained {
				t.Fatalf("%d snapshots, the first with numCtx %d, trained %d; want numCtx %d, trained %d",
					len(caps), caps[0].NumCtx, caps[0].Trained, tc.numCtx, tc.trained)
			}
			reqs := requests(k)
			if len(reqs) != 1 || reqs[0].Options["num_ctx"] != float64(tc.numCtx) {
				t.Fatalf("%d requests, options %v; want num_ctx %d", len(reqs), reqs[0].Options, tc.numCtx)
			}
			fin := finished(t, evs)
			if fin.Reason != event.ReasonError || !strings.Contains(fin.Error, tc.holds) ||
				strings.Contains(fin.Error, "raise the context length") != tc.raise {
				t.Fatalf("run finished %+v", fin)
			}
			rebuiltAsSent(t, k, s)
		})
	}
}

// TestToolsThatDoNotFitAreLeftOut: when the tool declarations would take
// more than their share of a small context, the run keeps the tools its
// request needs and names the rest in its snapshot (the window says
// which), instead of a first message refused with "too little room"; and
// the sizes are what the server counted for the model, learnt from its
// prompt_eval_count, not the four-characters-a-token guess alone.
func TestToolsThatDoNotFitAreLeftOut(t *testing.T) {
	mk := func(name string, effects tool.Effect) *fakeTool {
		return &fakeTool{spec: tool.Spec{Name: name, Description: strings.Repeat("What this tool does, at length. ", 12), Effects: effects}, run: replying("done")}
	}
	tools := []*fakeTool{mk("move_note", tool.WriteFs), mk("tag_note", tool.WriteFs), mk("read_file", tool.ReadFs),
		mk("delete_note", tool.WriteFs), mk("remember", tool.WriteMemory), mk("fetch_page", tool.Net)}
	var opts []runtime.Option
	for _, tl := range tools {
		opts = append(opts, withTools(tl))
	}
	k := kit(t, opts...)
	// Each declaration is about 120 tokens by the raw estimate: 40% of a
	// 1,024-token context holds three of the seven (with the kit's own).
	k.Runtime.SetSettings(settings(func(s *runtime.Settings) { s.NumCtx = 1024 }))
	s := chat(t, k)
	say(t, k, s, "Please move the plan into the archive.", "")
	evs := waitRuns(t, k, s, 1)
	caps := capsOf(t, evs)[0]
	offered := func(c event.Capabilities) []string {
		var out []string
		for _, d := range c.Tools {
			out = append(out, d.Name)
		}
		return out
	}
	if !slices.Contains(offered(caps), "move_note") || len(caps.LeftOut) == 0 || slices.Contains(caps.LeftOut, "move_note") {
		t.Fatalf("offered %v, left out %v; want move_note offered and some left out", offered(caps), caps.LeftOut)
	}
	if len(caps.Tools)+len(caps.LeftOut) != len(tools) {
		t.Fatalf("offered %v and left out %v; want every tool in one of them", offered(caps), caps.LeftOut)
	}
	if fin := finished(t, evs); fin.Reason != event.ReasonCompleted {
		t.Fatalf("run finished %+v", fin)
	}
	if got := len(requests(k)[0].Tools); got != len(caps.Tools) {
		t.Fatalf("the request declared %d tools, the snapshot offers %d", got, len(caps.Tools))
	}

	// The server counts this model's prompts at three times the guess:
	// the next run, knowing it, offers fewer.
	k.Ollama.Script(ollamatest.Turn{Content: []string{"Moved."}, PromptEvalCount: 3 * ollamatest.EstimateTokens(&requests(k)[0])})
	say(t, k, s, "Move the notes into the archive again.", "")
	say(t, k, s, "And once more: move the notes.", "")
	evs = waitRuns(t, k, s, 3)
	all := capsOf(t, evs)
	if last := all[len(all)-1]; len(last.Tools) >= len(caps.Tools) || !slices.Contains(offered(last), "move_note") {
		t.Fatalf("after the server counted more: offered %v (before: %v); want fewer, move_note still among them", offered(last), offered(caps))
	}
}
