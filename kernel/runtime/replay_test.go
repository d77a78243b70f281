package runtime_test

import (
	"errors"
	"testing"

	"quire/kernel/runtime"
	"quire/kernel/store"
	"quire/kernel/tool"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

// rebuiltAsSent checks that every request the fake server received from
// the session is, byte for byte (canonical JSON), Request(n) rebuilt from
// the log.
func rebuiltAsSent(t *testing.T, k *testkit.Kernel, s string) {
	t.Helper()
	rebuiltBy(t, k.Runtime, k, s)
}

// rebuiltBy is rebuiltAsSent for whatever rebuilds requests: the runtime
// that sent them, or a Reader of the same log.
func rebuiltBy(t *testing.T, r testkit.Rebuilder, k *testkit.Kernel, s string) {
	t.Helper()
	testkit.RebuiltAsSent(t, r, s, k.Ollama.Requests())
}

// planChat is a conversation of two runs with a system text and a tool:
// the model reads plan.md, the server is busy once (a retry), the model
// answers, and the user's "thanks" gets a second answer. It returns the
// kernel, the session and the two runs, both finished.
func planChat(t *testing.T) (k *testkit.Kernel, s, run1, run2 string) {
	t.Helper()
	read := &fakeTool{spec: tool.Spec{Name: "read_note", Description: "Read a note.", Effects: tool.ReadFs, Idempotency: tool.Safe,
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []any{"path"}}},
		run: replying("# Plan\nbuy milk")}
	k = kit(t, withTools(read), runtime.WithContributors(contributor{name: "identity", text: "You are Quire."}),
		runtime.WithJitter(func() float64 { return 0 }))
	k.Ollama.Script(
		calling(`c1:read_note:{"path":"plan.md"}`),
		ollamatest.Turn{Fail: ollamatest.Failure{Kind: ollamatest.FailStatus, Status: 503, Message: "busy"}},
		saying("You need milk."),
		saying("Anything else?"),
	)
	s = chat(t, k)
	run1 = say(t, k, s, "what is in my plan?", "")
	waitRuns(t, k, s, 1)
	run2 = say(t, k, s, "thanks", "")
	waitRuns(t, k, s, 2)
	return k, s, run1, run2
}

// TestEveryRequestCanBeRebuiltFromTheLog: for each model call of a run with
// a system text, tools, a tool call, a retry after a busy server and a
// second run, Request(n) rebuilt from the log is byte for byte (canonical
// JSON) the body the fake Ollama server received.
func TestEveryRequestCanBeRebuiltFromTheLog(t *testing.T) {
	k, s, _, _ := planChat(t)
	got := k.Ollama.Requests()
	if len(got) != 4 { // tool call, busy, the retry that answers, the second run
		evs, _ := k.Store.Events(t.Context(), s, 0)
		t.Fatalf("%d model calls: %s", len(got), testkit.Types(evs))
	}
	rebuiltAsSent(t, k, s)
	if _, err := k.Runtime.Request(t.Context(), s, 5); !errors.Is(err, runtime.ErrNoSuchStep) {
		t.Fatalf("a call that never happened: %v", err)
	}

	// A Reader over the same file opened read-only rebuilds the same
	// requests and lists the session as nobody drives it.
	ro, err := store.OpenReadOnly(t.Context(), k.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	reader := runtime.NewReader(ro)
	rebuiltBy(t, reader, k, s)
	list, err := reader.Sessions(t.Context())
	if err != nil || len(list) != 1 || list[0].ID != s || list[0].Status != string(runtime.SessionDetached) || list[0].Running {
		t.Fatalf("a reader's sessions: %+v, %v", list, err)
	}
	want, _ := k.Runtime.Events(t.Context(), s, 0)
	logged, err := reader.Events(t.Context(), s, 0)
	if err != nil || len(logged) != len(want) || logged[len(logged)-1].Seq != want[len(want)-1].Seq {
		t.Fatalf("a reader's events: %d (%v), the runtime's %d", len(logged), err, len(want))
	}
}
