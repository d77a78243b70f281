package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"quire/internal/ollamatest"
	"quire/internal/testkit"
)

// pane is `quire chat` in a tmux window of a tmux server of the test's
// own; the test waits on what the pane shows, woken by the pane's output.
type pane struct {
	t       *testing.T
	sock    string
	changed chan struct{}
	stderr  string
}

func (p *pane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", p.sock}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

func (p *pane) screen() string { return p.tmux("capture-pane", "-p", "-t", "chat") }

// until waits for the screen to show want; every change of the pane wakes it.
func (p *pane) until(want string) {
	p.t.Helper()
	deadline := time.After(testkit.Patience)
	for {
		if s := p.screen(); strings.Contains(s, want) {
			return
		}
		select {
		case <-p.changed:
		case <-deadline:
			log, _ := os.ReadFile(p.stderr)
			p.t.Fatalf("the pane never showed %q; it shows:\n%s\nstderr:\n%s", want, p.screen(), log)
		}
	}
}

func (p *pane) keys(keys ...string) { p.tmux(append([]string{"send-keys", "-t", "chat"}, keys...)...) }

// startChat runs this test binary as `quire chat` (TestMain) in tmux, its
// output piped to a FIFO the test reads, so a change of the screen is an
// event, not a moment to guess.
func startChat(t *testing.T, args ...string) *pane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is not installed; `make deps-test` installs it")
	}
	dir := t.TempDir()
	p := &pane{t: t, sock: filepath.Join(dir, "tmux.sock"), changed: make(chan struct{}, 1), stderr: filepath.Join(dir, "stderr")}
	fifo := filepath.Join(dir, "pane")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	quoted := []string{"QUIRE_BENCH_AS_MAIN=1", shellQuote(self), "chat"}
	for _, a := range args {
		quoted = append(quoted, shellQuote(a))
	}
	// The program starts once the pipe is in place, so none of its output
	// is missed; the server is told when it has exited.
	cmd := "tmux -S " + shellQuote(p.sock) + " wait-for go; env " + strings.Join(quoted, " ") + " 2>" + shellQuote(p.stderr) +
		"; tmux -S " + shellQuote(p.sock) + " wait-for -S exited"
	p.tmux("new-session", "-d", "-s", "chat", "-x", "100", "-y", "40", "sh", "-c", cmd)
	t.Cleanup(func() { exec.Command("tmux", "-S", p.sock, "kill-server").Run() })
	// The pane stays, with its last screen, once the program has exited.
	p.tmux("set-option", "-t", "chat", "remain-on-exit", "on")
	p.tmux("pipe-pane", "-O", "-t", "chat", "cat > "+shellQuote(fifo))
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			return
		}
		defer f.Close()
		buf := make([]byte, 4096)
		for {
			if _, err := f.Read(buf); err != nil {
				return
			}
			select {
			case p.changed <- struct{}{}:
			default:
			}
		}
	}()
	p.tmux("wait-for", "-S", "go")
	return p
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// `quire chat` in a real terminal (tmux): a message typed is sent and its
// reply streams in; a permission question is shown whole and answered with
// y, and the write runs; Ctrl-C stops a reply that goes on, and a second
// Ctrl-C quits.
func TestChatInTmux(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	data, notes := t.TempDir(), t.TempDir()
	fake.Script(
		ollamatest.Turn{Content: []string{"Hello", " from", " Quire"}},
		ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{Name: "create_note", Arguments: []byte(`{"path":"plan.md","content":"# Plan\nwater the tomatoes\nthe very last line"}`)}}},
		ollamatest.Turn{Content: []string{"I made plan.md."}},
		ollamatest.Turn{Content: []string{"Thinking", " it over"}, Fail: ollamatest.Failure{Kind: ollamatest.FailHang, After: 1}},
	)
	p := startChat(t, "-data-dir", data, "-ollama-host", fake.URL(), "-notes-dir", notes)
	p.until("/help for commands.")

	p.keys("hi there", "Enter")
	p.until("quire › Hello from Quire")

	p.keys("make a plan", "Enter")
	p.until("Allow? [y/n]")
	for _, line := range []string{"Create plan.md", "water the tomatoes", "the very last line"} {
		if s := p.screen(); !strings.Contains(s, line) {
			t.Fatalf("the question lacks %q:\n%s", line, s)
		}
	}
	p.keys("y")
	p.until("quire › I made plan.md.")
	if b, err := os.ReadFile(filepath.Join(notes, "plan.md")); err != nil || !bytes.Contains(b, []byte("the very last line")) {
		t.Fatalf("the allowed write: %q %v", b, err)
	}

	p.keys("think", "Enter")
	p.until("quire › Thinking")
	p.keys("C-c")
	p.until("(the reply ended: cancelled")
	p.keys("C-c")
	exited := make(chan error, 1)
	go func() { exited <- exec.Command("tmux", "-S", p.sock, "wait-for", "exited").Run() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(testkit.Patience):
		t.Fatalf("quire chat did not quit on the second Ctrl-C:\n%s", p.screen())
	}
}

// `quire chat` with no terminal reads plain lines: a message, the answer
// to its question, then the end of the input, which quits once the reply
// has ended.
func TestChatInLineMode(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	data, notes := t.TempDir(), t.TempDir()
	fake.Script(
		ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{Name: "create_note", Arguments: []byte(`{"path":"plan.md","content":"# Plan\n"}`)}}},
		ollamatest.Turn{Content: []string{"I made ", "plan.md."}},
	)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The answer is typed once the question is shown: the pipe is written
	// only after stdout has said "Allow?".
	cmd := exec.Command(self, "chat", "-data-dir", data, "-ollama-host", fake.URL(), "-notes-dir", notes)
	cmd.Env = append(os.Environ(), "QUIRE_BENCH_AS_MAIN=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// A chat that never asks or never quits is ended, so the reads below end.
	bound := time.AfterFunc(testkit.Patience, func() { cmd.Process.Kill() })
	defer bound.Stop()
	in.Write([]byte("make a plan\n"))
	var said bytes.Buffer
	buf := make([]byte, 4096)
	for !strings.Contains(said.String(), "Allow? [y/n]") {
		n, err := out.Read(buf)
		said.Write(buf[:n])
		if err != nil {
			t.Fatalf("the output ended before the question: %q (%v)", said.String(), err)
		}
	}
	in.Write([]byte("y\n"))
	in.Close()
	rest, _ := io.ReadAll(out)
	said.Write(rest)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("quire chat: %v\n%s", err, said.String())
	}
	for _, want := range []string{"you › make a plan", "  │ + # Plan", "  answered yes", "quire › I made plan.md."} {
		if !strings.Contains(said.String(), want) {
			t.Errorf("the output lacks %q:\n%s", want, said.String())
		}
	}
	if _, err := os.Stat(filepath.Join(notes, "plan.md")); err != nil {
		t.Errorf("the allowed write did not run: %v", err)
	}
}
