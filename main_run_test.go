package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"quire/config"
	"quire/internal/ollamatest"
	"quire/internal/testkit"
	"quire/kernel/protocol"
)

// runJSON parses `quire run -json`'s stdout: every line one public event
// of the protocol's shape, seqs rising, all of one session.
func runJSON(t *testing.T, out string) []protocol.Event {
	t.Helper()
	var evs []protocol.Event
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e protocol.Event
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			t.Fatalf("a line that is not an event: %q: %v", line, err)
		}
		if e.Visibility != protocol.Public || e.Type == "" || e.Session == "" {
			t.Fatalf("not a public event: %q", line)
		}
		if n := len(evs); n > 0 && (e.Seq <= evs[n-1].Seq || e.Session != evs[n-1].Session) {
			t.Fatalf("event %d (%s) after %d of %s", e.Seq, e.Session, evs[n-1].Seq, evs[n-1].Session)
		}
		evs = append(evs, e)
	}
	return evs
}

func payloadOf(t *testing.T, evs []protocol.Event, typ string) map[string]any {
	t.Helper()
	for _, e := range evs {
		if e.Type == typ {
			var p map[string]any
			json.Unmarshal(e.Payload, &p)
			return p
		}
	}
	return nil
}

// sessionSaid is the session id `quire run` said on stderr.
func sessionSaid(t *testing.T, stderr string) string {
	t.Helper()
	for _, l := range strings.Split(stderr, "\n") {
		if id, ok := strings.CutPrefix(l, "session: "); ok {
			return id
		}
	}
	t.Fatalf("no session on stderr: %q", stderr)
	return ""
}

func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// `quire run` end to end with the fake Ollama, without an owner (it owns
// the folder itself) and through a running `quire serve` (its local
// channel): the events parse, each close reason has its exit status, the
// headless answers (-approve, -ask) decide, and -session continues.
func TestRunCommand(t *testing.T) {
	createCall := func(path string) ollamatest.Turn {
		return ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{Name: "create_note", Arguments: []byte(`{"path":"` + path + `","content":"# Plan\n"}`)}}}
	}
	list := ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{Name: "list_notes", Arguments: []byte(`{}`)}}}
	done := ollamatest.Turn{Content: []string{"Done", "."}}
	type check func(t *testing.T, notes string, evs []protocol.Event, stdout, stderr string)
	created := func(path string, want bool) check {
		return func(t *testing.T, notes string, _ []protocol.Event, _, _ string) {
			_, err := os.Stat(filepath.Join(notes, path))
			if (err == nil) != want {
				t.Errorf("%s exists: %v, want %v", path, err == nil, want)
			}
		}
	}
	refusedWith := func(reason string) check {
		return func(t *testing.T, _ string, evs []protocol.Event, _, _ string) {
			p := payloadOf(t, evs, "tool.refused")
			if p == nil || !strings.Contains(p["reason"].(string), reason) {
				t.Errorf("the refusal %v does not carry %q", p, reason)
			}
		}
	}
	bin := t.TempDir()
	yes := script(t, bin, "yes.sh", `in=$(cat); case "$in" in *'"descriptions":["Create plan-ask.md'*) echo yes;; *) printf 'no\nnot the question: %s' "$in";; esac`)
	no := script(t, bin, "no.sh", `cat >/dev/null; printf 'no\nnot today'`)
	broken := script(t, bin, "broken.sh", `exit 3`)
	cases := []struct {
		name      string
		args      []string
		turns     []ollamatest.Turn
		code      int
		ownerless bool // flags that only reach a kernel this command opens
		checks    []check
	}{
		{"completed", []string{"-json", "say hello"}, []ollamatest.Turn{{Content: []string{"Hel", "lo"}}}, 0, false, []check{
			func(t *testing.T, _ string, evs []protocol.Event, _, stderr string) {
				if evs[0].Type != "session.created" || evs[1].Type != "input.received" || evs[len(evs)-1].Type != "run.finished" || payloadOf(t, evs, "run.finished")["reason"] != "completed" {
					t.Errorf("the events run from %s to %s", evs[0].Type, evs[len(evs)-1].Type)
				}
				if evs[0].Session != sessionSaid(t, stderr) {
					t.Errorf("the session said is not the events'")
				}
			}}},
		{"text mode", []string{"say hi"}, []ollamatest.Turn{{Content: []string{"Hi", " there"}}}, 0, false, []check{
			func(t *testing.T, _ string, _ []protocol.Event, stdout, _ string) {
				if stdout != "Hi there\n" {
					t.Errorf("stdout %q, want the reply alone", stdout)
				}
			}}},
		{"approve never", []string{"-json", "make a plan"}, []ollamatest.Turn{createCall("plan-never.md"), done}, 0, false,
			[]check{created("plan-never.md", false), refusedWith("allow no writes in a headless run")}},
		{"approve reads", []string{"-json", "-approve", "reads", "make a plan"}, []ollamatest.Turn{createCall("plan-reads.md"), done}, 0, false,
			[]check{created("plan-reads.md", false), refusedWith("allow only reading in a headless run")}},
		{"approve all", []string{"-json", "-approve", "all", "make a plan"}, []ollamatest.Turn{createCall("plan-all.md"), done}, 0, false,
			[]check{created("plan-all.md", true)}},
		{"ask says yes", []string{"-json", "-ask", yes, "make a plan"}, []ollamatest.Turn{createCall("plan-ask.md"), done}, 0, false,
			[]check{created("plan-ask.md", true)}},
		{"ask says no", []string{"-json", "-ask", no, "make a plan"}, []ollamatest.Turn{createCall("plan-no.md"), done}, 0, false,
			[]check{created("plan-no.md", false), refusedWith("The user's reason: not today")}},
		{"ask fails", []string{"-json", "-ask", broken, "-approve", "all", "make a plan"}, []ollamatest.Turn{createCall("plan-broken.md"), done}, 0, false,
			[]check{created("plan-broken.md", false), refusedWith("it failed (exit status 3)")}},
		{"loop", []string{"-json", "list my notes"}, []ollamatest.Turn{list, list, list}, 4, false, nil},
		{"empty", []string{"-json", "say nothing"}, []ollamatest.Turn{{}, {}}, 6, false, nil},
		{"error", []string{"-json", "-model", "missing:1b", "say hello"}, nil, 1, true, []check{
			func(t *testing.T, _ string, evs []protocol.Event, _, _ string) {
				if p := payloadOf(t, evs, "run.finished"); p["reason"] != "error" {
					t.Errorf("the run finished %v", p)
				}
			}}},
		{"no task", []string{"-json"}, nil, 2, false, nil},
		{"a wrong -approve", []string{"-approve", "some", "hello"}, nil, 2, false, nil},
	}
	for _, owner := range []string{"none", "quire serve"} {
		t.Run(owner, func(t *testing.T) {
			fake := ollamatest.New(t)
			fake.AddModel(ollamatest.DefaultModel())
			data, notes := t.TempDir(), t.TempDir()
			cfg := config.Config{DataDir: data, OllamaHost: fake.URL(), Model: "qwen3:4b", NumCtx: config.DefaultNumCtx, NotesDir: notes}
			if owner != "none" {
				startServe(t, cfg)
			}
			flags := []string{"-data-dir", data, "-ollama-host", fake.URL(), "-notes-dir", notes}
			var first string
			for _, c := range cases {
				if c.ownerless && owner != "none" {
					continue
				}
				t.Run(c.name, func(t *testing.T) {
					fake.Script(c.turns...)
					var out, errOut bytes.Buffer
					code := within(t, "quire run", func() int { return run(append(append([]string{"run"}, flags...), c.args...), &out, &errOut) })
					if code != c.code {
						t.Fatalf("exit %d, want %d\nstdout %s\nstderr %s", code, c.code, out.String(), errOut.String())
					}
					if n := fake.Pending(); n != 0 {
						t.Fatalf("%d scripted replies were not asked for", n)
					}
					var evs []protocol.Event
					if c.code != 2 && strings.Contains(strings.Join(c.args, " "), "-json") {
						evs = runJSON(t, out.String())
					}
					for _, ch := range c.checks {
						ch(t, notes, evs, out.String(), errOut.String())
					}
					if first == "" && c.code == 0 {
						first = sessionSaid(t, errOut.String())
					}
				})
			}
			// -session continues a conversation: the new run's events follow
			// the old ones' seqs, and the model is sent the first exchange.
			fake.Script(ollamatest.Turn{Content: []string{"again"}})
			var out, errOut bytes.Buffer
			if code := run(append(append([]string{"run"}, flags...), "-json", "-session", first, "once more"), &out, &errOut); code != 0 {
				t.Fatalf("-session: exit %d: %s", code, errOut.String())
			}
			evs := runJSON(t, out.String())
			if evs[0].Session != first || evs[0].Seq == 0 || sessionSaid(t, errOut.String()) != first {
				t.Fatalf("the continued run starts at %s %d", evs[0].Session, evs[0].Seq)
			}
			reqs := fake.Requests()
			if last := reqs[len(reqs)-1]; !strings.Contains(string(last.Body), "say hello") || !strings.Contains(string(last.Body), "once more") {
				t.Errorf("the continued run's request lacks the conversation: %s", last.Body)
			}
			errOut.Reset()
			if code := run(append(append([]string{"run"}, flags...), "-session", "nope", "hello"), io.Discard, &errOut); code != 1 || !strings.Contains(errOut.String(), `there is no conversation "nope"`) {
				t.Errorf("an unknown -session: exit %d, %q", code, errOut.String())
			}
		})
	}
}

// Ctrl-C cancels a `quire run`: the run ends as cancelled and the exit
// status says so (130), through the owner's channel as without one.
func TestRunCommandCancelledBySIGINT(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	data := t.TempDir()
	fake.Script(ollamatest.Turn{Content: []string{"par", "tial"}, Fail: ollamatest.Failure{Kind: ollamatest.FailHang, After: 1}})
	outR, outW := io.Pipe()
	code := make(chan int, 1)
	go func() {
		code <- run([]string{"run", "-json", "-data-dir", data, "-ollama-host", fake.URL(), "write forever"}, outW, io.Discard)
		outW.Close()
	}()
	sc := bufio.NewScanner(outR)
	var seen []protocol.Event
	for sc.Scan() {
		var e protocol.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		seen = append(seen, e)
		if e.Type == "assistant.delta" && len(seen) > 0 {
			// The command's signal handler is installed (it is streaming).
			syscall.Kill(os.Getpid(), syscall.SIGINT)
			break
		}
	}
	go io.Copy(io.Discard, outR)
	select {
	case c := <-code:
		if c != 130 {
			t.Fatalf("exit %d after Ctrl-C, want 130", c)
		}
	case <-time.After(testkit.Patience):
		t.Fatal("quire run did not end after Ctrl-C")
	}
}
