package runtime_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/runtime"
	"quire/kernel/tool"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

// A checkpoint hook that returns text extends the run by one step whose
// request carries it; when the hook has nothing more, the run completes.
func TestCheckpointExtendsTheRun(t *testing.T) {
	var hooked atomic.Int32
	hook := func(_ context.Context, session, runID string) ([]string, error) {
		if hooked.Add(1) == 1 {
			return []string{"continue with the todo"}, nil
		}
		return nil, nil
	}
	k := kit(t, runtime.WithCheckpoint(hook))
	s := chat(t, k)
	run := say(t, k, s, "plan my day", "")
	evs := waitRuns(t, k, s, 1)

	if fin := finished(t, evs); fin.Reason != event.ReasonCompleted {
		t.Fatalf("run finished %+v", fin)
	}
	if n := testkit.Count(ofRun(evs, run), event.StepStarted); n != 2 || hooked.Load() != 2 {
		t.Fatalf("%d steps and %d checkpoints, want 2 and 2: %s", n, hooked.Load(), testkit.Types(evs))
	}
	users := only[event.UserMessagePayload](t, evs, event.UserMessage)
	if len(users) != 2 || users[1].Text != "continue with the todo" || users[1].Intent != "steer" {
		t.Fatalf("user messages %+v", users)
	}
	reqs := requests(k)
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if last.Role != "user" || last.Content != "continue with the todo" {
		t.Fatalf("second request: %s", transcript(reqs[1]))
	}
}

// A hook that panics is a failed hook: the hooks after it still run and
// the run goes on.
func TestPanickingCheckpointHookIsAFailedHook(t *testing.T) {
	var later atomic.Int32
	k := kit(t, runtime.WithCheckpoint(
		func(context.Context, string, string) ([]string, error) { panic("hook bug") },
		func(context.Context, string, string) ([]string, error) {
			if later.Add(1) == 1 {
				return []string{"one more thing"}, nil
			}
			return nil, nil
		},
	))
	s := chat(t, k)
	say(t, k, s, "hi", "")
	evs := waitRuns(t, k, s, 1)
	if fin := finished(t, evs); fin.Reason != event.ReasonCompleted || later.Load() != 2 {
		t.Fatalf("run finished %+v; the later hook ran %d times", fin, later.Load())
	}
	if users := only[event.UserMessagePayload](t, evs, event.UserMessage); len(users) != 2 || users[1].Text != "one more thing" {
		t.Fatalf("user messages %+v", users)
	}
}

// Cancelling while the checkpoint runs ends the run once, as cancelled —
// also when a hook ignores its context: it is abandoned after the cleanup
// bound, like a tool, and Close does not wait for it.
func TestCancelDuringCheckpoint(t *testing.T) {
	for _, c := range []struct {
		name    string
		ignores bool
	}{{"hook stops", false}, {"hook ignores the cancel", true}} {
		t.Run(c.name, func(t *testing.T) {
			const cleanup = 100 * time.Millisecond
			started, start := signal()
			release, unblock := signal()
			var sawCause atomic.Value
			hook := func(ctx context.Context, session, runID string) ([]string, error) {
				start()
				if c.ignores {
					<-release
					return []string{"too late"}, nil
				}
				<-ctx.Done()
				sawCause.Store(context.Cause(ctx).Error())
				return []string{"too late"}, ctx.Err()
			}
			k := kit(t, runtime.WithCheckpoint(hook), runtime.WithCleanup(cleanup))
			t.Cleanup(unblock)
			s := chat(t, k)
			say(t, k, s, "hi", "")
			<-started
			if err := runCmd(t, k.Runtime, protocol.CancelRun, protocol.SessionRef{Session: s}); err != nil {
				t.Fatal(err)
			}
			// A hook that ignores the cancel is released only when the test
			// ends, so the run can end only by abandoning it.
			evs := waitRuns(t, k, s, 1)
			fin := finished(t, evs)
			if fin.Reason != event.ReasonCancelled || !strings.Contains(fin.Error, "stopped by the user") {
				t.Fatalf("run finished %+v", fin)
			}
			if !c.ignores && sawCause.Load() != "stopped by the user" {
				t.Fatalf("the hook saw cause %v", sawCause.Load())
			}
			if n := testkit.Count(evs, event.StepStarted); n != 1 {
				t.Fatalf("the cancelled checkpoint started another step: %s", testkit.Types(evs))
			}
			// Closing does not wait for a hook that ignores the cancel: only
			// the end of the test would release it.
			closed := make(chan struct{})
			go func() { k.Runtime.Close(); close(closed) }()
			select {
			case <-closed:
			case <-time.After(testkit.Patience):
				unblock()
				<-closed
				t.Fatal("Close waited for a checkpoint hook that ignores its context")
			}
			if n := testkit.Count(logOf(t, k, s), event.RunFinished); n != 1 {
				t.Fatalf("%d run.finished after Close", n)
			}
		})
	}
}

// A settings change while a run is going affects only later runs: the
// capabilities are frozen when the run starts.
func TestSettingsChangeMidRunAffectsOnlyLaterRuns(t *testing.T) {
	const other = "llama3.2:1b"
	wait, started, unblock := waiting(t)
	k := kit(t, withTools(wait))
	k.Ollama.AddModel(ollamatest.Model{Name: other, Capabilities: []string{"completion", "tools"}})
	k.Ollama.Script(calling("c1:wait"), ollamatest.Turn{Content: []string{"first ", "run ", "done"}, Delay: 10 * time.Millisecond})
	s := chat(t, k)
	first := say(t, k, s, "one", "")
	<-started
	k.Runtime.SetSettings(settings(func(st *runtime.Settings) { st.Model = other }))
	unblock()
	evs := waitRuns(t, k, s, 1)
	if fin := finished(t, evs); fin.Reason != event.ReasonCompleted {
		t.Fatalf("run finished %+v", fin)
	}
	second := say(t, k, s, "two", "")
	evs = waitRuns(t, k, s, 2)

	var models []string
	for _, r := range requests(k) {
		models = append(models, r.Model)
	}
	if want := []string{testkit.Model, testkit.Model, other}; !slices.Equal(models, want) {
		t.Fatalf("request models %v, want %v", models, want)
	}
	for _, c := range []struct{ run, model string }{{first, testkit.Model}, {second, other}} {
		started := only[event.RunStartedPayload](t, ofRun(evs, c.run), event.RunStarted)
		msgs := only[event.AssistantMessagePayload](t, ofRun(evs, c.run), event.AssistantMessage)
		if len(started) != 1 || started[0].Model != c.model {
			t.Fatalf("run %s started %+v, want model %s", c.run, started, c.model)
		}
		for _, m := range msgs {
			if m.Model != c.model {
				t.Fatalf("run %s: a reply of %s, want %s", c.run, m.Model, c.model)
			}
		}
	}
}

type contributor struct {
	name, text string
	err        error
}

func (c contributor) Name() string { return c.name }
func (c contributor) Contribute(context.Context, string) (string, error) {
	return c.text, c.err
}

// A contributor's text is the system message of every request of the run,
// and is frozen in the log with the input that opened the run; a failing
// contributor is left out.
func TestContributorsTextIsTheSystemMessage(t *testing.T) {
	k := kit(t, runtime.WithContributors(
		contributor{name: "memory", text: "The user's name is Ada."},
		contributor{name: "broken", err: errors.New("index missing")},
		contributor{name: "empty"},
		contributor{name: "clock", text: "Today is Monday."},
	))
	s := chat(t, k)
	say(t, k, s, "hi", "")
	evs := waitRuns(t, k, s, 1)
	want := "memory\nThe user's name is Ada.\n\nclock\nToday is Monday."
	req := requests(k)[0]
	if req.Messages[0].Role != "system" || req.Messages[0].Content != want || req.Messages[1].Role != "user" {
		t.Fatalf("request: %s", transcript(req))
	}
	in := only[event.InputReceivedPayload](t, evs, event.InputReceived)
	texts := only[event.ContextTextPayload](t, evs, event.ContextText)
	if len(in) != 1 || in[0].Caps == nil || len(texts) != 1 || len(texts[0].Zones) != 1 || texts[0].Zones[0].Text != want ||
		texts[0].Zones[0].Zone != "working-memory" || in[0].Caps.System != texts[0].Hash ||
		strings.Join(in[0].Caps.Contributors, ",") != "memory,clock" {
		t.Fatalf("input.received %+v, context.text %+v", in, texts)
	}
	// An unchanged system text is stored once, however many runs send it.
	say(t, k, s, "again", "")
	evs = waitRuns(t, k, s, 2)
	if texts := only[event.ContextTextPayload](t, evs, event.ContextText); len(texts) != 1 {
		t.Fatalf("%d context.text events for one unchanged text", len(texts))
	}
}

type lifecycle struct {
	mu   sync.Mutex
	got  []string
	done chan struct{}
}

func (l *lifecycle) RunFinished(_ context.Context, session, runID, reason string) {
	l.mu.Lock()
	l.got = append(l.got, session+"/"+runID+"/"+reason)
	l.mu.Unlock()
	l.done <- struct{}{}
}

// A lifecycle subscriber hears each finished run with its reason.
func TestLifecycleSubscriberHearsRunFinished(t *testing.T) {
	l := &lifecycle{done: make(chan struct{}, 8)}
	k := kit(t, runtime.WithSubscribers(l))
	s := chat(t, k)
	ok := say(t, k, s, "hi", "")
	<-l.done
	k.Runtime.SetSettings(settings(func(st *runtime.Settings) { st.Model = "absent:1b" }))
	failed := say(t, k, s, "again", "")
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	want := []string{s + "/" + ok + "/" + event.ReasonCompleted, s + "/" + failed + "/" + event.ReasonError}
	if !slices.Equal(l.got, want) {
		t.Fatalf("heard %v, want %v", l.got, want)
	}
}

// Two tools with one name are refused at start-up, not when the model
// first calls one.
func TestDuplicateToolNamesFailAtStart(t *testing.T) {
	a := &fakeTool{spec: tool.Spec{Name: "search", Effects: tool.ReadFs}, run: replying("a")}
	b := &fakeTool{spec: tool.Spec{Name: "search", Effects: tool.Net}, run: replying("b")}
	k := kit(t, withTools(a), withTools(b))
	if err := k.Runtime.Start(t.Context()); !errors.Is(err, runtime.ErrDuplicateTool) || !strings.Contains(err.Error(), `"search"`) {
		t.Fatalf("Start: %v, want ErrDuplicateTool naming the tool", err)
	}
	s := chat(t, k)
	if _, err := submit(t, k.Runtime, s, "hi"); !errors.Is(err, runtime.ErrDuplicateTool) {
		t.Fatalf("submit: %v", err)
	}
}
