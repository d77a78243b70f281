package runtime_test

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/provider/ollama"
	"quire/kernel/runtime"
	"quire/kernel/store"
	"quire/kernel/tool"
	"quire/test/crashtest"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

var toolKills = flag.Int("kill.runs", 5, "how many times TestKillDuringAToolCall kills the process")

// killChildEnv names the variable that makes this test binary the process
// TestKillDuringAToolCall kills: "db|marker|calls", calls being "one" or "two".
const killChildEnv = "QUIRE_RUNTIME_KILL_CHILD"

// TestMain lets this test binary double as the Quire process that
// TestKillDuringAToolCall kills with SIGKILL.
func TestMain(m *testing.M) { crashtest.Main(m, killChildEnv, killChild) }

// markerTool appends a line naming the call to the marker file (synced, so
// it survives the kill), tells ran that line if ran is not nil, and then,
// if block, never returns.
func markerTool(name, marker string, block bool, ran func(line string)) *fakeTool {
	return &fakeTool{spec: tool.Spec{Name: name, Description: "Append a line to a file.", Effects: tool.WriteFs, Idempotency: tool.Unsafe, Timeout: time.Hour, Parallel: true},
		run: func(_ context.Context, call tool.Call) (tool.Result, error) {
			f, err := os.OpenFile(marker, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				return tool.Result{}, err
			}
			fmt.Fprintf(f, "%s %s\n", name, call.ID)
			f.Sync()
			f.Close()
			if ran != nil {
				ran(name + " " + call.ID)
			}
			if block {
				time.Sleep(time.Hour) // until killed; it ignores ctx
			}
			return tool.Result{Status: tool.Success, Content: "appended"}, nil
		}}
}

// killChild is a Quire process: a runtime over the database, its own fake
// Ollama server scripted to call the tools, one session and one message.
// It prints the session id, then "ran <tool> <call id>" once a tool has
// written its marker line and "result <payload>" for each tool result it
// logs, and waits to be killed.
func killChild(spec string) {
	fail := func(what string, err error) {
		fmt.Fprintln(os.Stderr, "kill child:", what+":", err)
		os.Exit(3)
	}
	parts := strings.Split(spec, "|")
	db, marker, calls := parts[0], parts[1], parts[2]
	ctx := context.Background()
	fake, err := ollamatest.Listen("127.0.0.1:0")
	if err != nil {
		fail("fake ollama", err)
	}
	fake.AddModel(ollamatest.DefaultModel())
	if calls == "two" {
		fake.Script(calling(`q1:quick_append:{"line":"quick"}`, `b1:append_line:{"line":"slow"}`))
	} else {
		fake.Script(calling(`b1:append_line:{"line":"slow"}`))
	}
	st, err := store.Open(ctx, db)
	if err != nil {
		fail("open store", err)
	}
	u, _ := url.Parse(fake.URL())
	out := make(chan string, 16)
	ran := func(line string) { out <- "ran " + line }
	rt := runtime.New(st, ollama.New(u, &http.Client{}), runtime.Settings{Model: testkit.Model, NumCtx: 8192, Profile: tool.Write},
		withTools(markerTool("quick_append", marker, false, ran), markerTool("append_line", marker, true, ran)),
		runtime.WithFlushEvery(5*time.Millisecond))
	if err := rt.Start(ctx); err != nil {
		fail("start", err)
	}
	rt.Subscribe(func(u protocol.Update) {
		for _, e := range u.Events {
			if e.Type == string(event.ToolResult) {
				out <- fmt.Sprintf("result %s", e.Payload)
			}
		}
	})
	s, err := protocol.Run[protocol.Session](ctx, rt, "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "killed"})
	if err != nil {
		fail("create session", err)
	}
	fmt.Println(s.ID)
	if _, err := protocol.Run[protocol.SendResult](ctx, rt, "", protocol.SendMessage, protocol.SendMessagePayload{Session: s.ID, Text: "append two lines"}); err != nil {
		fail("send", err)
	}
	for {
		select {
		case line := <-out:
			fmt.Println(line)
		case <-time.After(time.Minute):
			os.Exit(4) // the parent is gone: do not linger
		}
	}
}

// TestKillDuringAToolCall kills Quire with SIGKILL while a tool call runs,
// then starts Quire again over the same database: the run closes as
// interrupted, the call that was running gets an unknown_completion result
// and is never run again, a call that had finished keeps its result, and
// the session takes new messages.
func TestKillDuringAToolCall(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "quire.db")
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	crash := crashtest.New(t, killChildEnv, *toolKills)
	for kill := range *toolKills {
		calls := "one"
		if kill%2 == 1 {
			calls = "two"
		}
		marker := filepath.Join(dir, fmt.Sprintf("marker-%d.txt", kill))
		session := runAndKill(t, crash, kill, db, marker, calls)

		k := testkit.Open(t, fake, db, runtime.WithFlushEvery(5*time.Millisecond),
			withTools(markerTool("quick_append", marker, false, nil), markerTool("append_line", marker, false, nil)))
		if err := k.Runtime.Start(t.Context()); err != nil {
			t.Fatalf("kill %d: start after the kill: %v", kill, err)
		}
		evs := logOf(t, k, session)
		fin := finished(t, evs)
		if fin.Reason != event.ReasonInterrupted {
			t.Fatalf("kill %d: run finished %+v: %s", kill, fin, testkit.Types(evs))
		}
		refused := refusals(t, evs)
		if r, ok := refused["b1"]; !ok || r.Status != string(tool.UnknownCompletion) {
			t.Fatalf("kill %d: the running call's result %+v (refused %v)", kill, r, ok)
		}
		results := only[event.ToolResultPayload](t, evs, event.ToolResult)
		switch calls {
		case "one":
			if len(results) != 0 || len(refused) != 1 {
				t.Fatalf("kill %d: results %+v, refusals %+v", kill, results, refused)
			}
		case "two":
			if len(results) != 1 || results[0].CallID != "q1" || results[0].Status != string(tool.Success) || len(refused) != 1 {
				t.Fatalf("kill %d: the finished call lost its result: results %+v, refusals %+v", kill, results, refused)
			}
		}

		// The session takes a new message, and the model is told what
		// became of the interrupted call; nothing runs the call again.
		say(t, k, session, "did it work?", "")
		evs = waitRuns(t, k, session, 2)
		fins := only[event.RunFinishedPayload](t, evs, event.RunFinished)
		if fins[1].Reason != event.ReasonCompleted {
			t.Fatalf("kill %d: the run after recovery finished %+v", kill, fins[1])
		}
		reqs := requests(k)
		last := reqs[len(reqs)-1]
		if !strings.Contains(transcript(last), "may or may not have taken effect") {
			t.Fatalf("kill %d: the model was not told about the interrupted call: %s", kill, transcript(last))
		}
		lines := markerLines(t, marker)
		slices.Sort(lines) // the two calls ran at once
		want := []string{"append_line b1"}
		if calls == "two" {
			want = []string{"append_line b1", "quick_append q1"}
		}
		if strings.Join(lines, "\n") != strings.Join(want, "\n") {
			t.Fatalf("kill %d: the marker has %q, want %q: a call ran again or never", kill, lines, want)
		}
		k.Close(t)
	}
}

// runAndKill starts a Quire process over db, waits until the blocking call
// has started (and, with two calls, the quick one has its result in the
// log), kills it with SIGKILL and returns its session id.
func runAndKill(t *testing.T, crash *crashtest.Crash, kill int, db, marker, calls string) string {
	t.Helper()
	child := crash.Start(db + "|" + marker + "|" + calls)
	session := ""
	quickDone := calls != "two"
	blocked := false
	for session == "" || !quickDone || !blocked {
		line, ok := child.Line()
		if !ok {
			t.Fatalf("kill %d: the Quire process exited early: %s", kill, child.Stderr())
		}
		switch {
		case session == "":
			session = line
		case line == "ran append_line b1":
			blocked = true
		case strings.HasPrefix(line, "result ") && strings.Contains(line, `"callId":"q1"`):
			quickDone = true
		}
	}
	if !child.Kill() {
		t.Fatalf("kill %d: the Quire process was gone before the kill: %s", kill, child.Stderr())
	}
	return session
}

func markerLines(t *testing.T, marker string) []string {
	t.Helper()
	b, err := os.ReadFile(marker)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	text := strings.TrimSuffix(string(b), "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}
