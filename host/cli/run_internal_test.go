package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"quire/kernel/protocol"
)

// Every close reason a run can have (kernel/event's) has its exit status;
// the end-to-end test (main_test.go TestRunCommand) reaches those a flag
// can bring about, this one the rest.
func TestExitStatusOfEveryCloseReason(t *testing.T) {
	for reason, want := range map[string]int{
		"completed": 0, "nothing-to-do": 0, "error": 1, "denied": 3,
		"max-steps": 4, "max-tool-calls": 4, "budget": 4, "loop": 4,
		"interrupted": 5, "empty": 6, "cancelled": 130, "a reason Quire does not know yet": 1,
	} {
		if got := exitOf(reason); got != want {
			t.Errorf("%s: exit %d, want %d", reason, got, want)
		}
	}
}

// An -ask program's answer, as each way it can answer reads.
func TestAskProgram(t *testing.T) {
	dir := t.TempDir()
	q := protocol.Question{Session: "s", RunID: "r", Calls: []protocol.QuestionCall{{ID: "c1", Name: "create_note"}}, Descriptions: []string{"Create plan.md"}}
	cases := []struct {
		name, script string
		allowed      bool
		feedback     string
		timeout      time.Duration
	}{
		{"silent success", `cat >/dev/null`, true, "", 0},
		{"yes", `cat >/dev/null; echo YES`, true, "", 0},
		{"it reads the question", `grep -q '"descriptions":\["Create plan.md"\]' && echo yes || echo no`, true, "", 0},
		{"no with a reason", `cat >/dev/null; printf 'no\nnot today\n'`, false, "not today", 0},
		{"no alone", `cat >/dev/null; echo no`, false, "the -ask program said no: no reason given", 0},
		{"exit 1 with no output", `cat >/dev/null; exit 1`, false, "the -ask program said no: it failed (exit status 1)", 0},
		{"something else", `cat >/dev/null; echo maybe`, false, `the -ask program said no: its answer "maybe" is neither yes nor no`, 0},
		{"too much", `cat >/dev/null; head -c 10000 /dev/zero | tr '\0' y`, false, "the -ask program said no: it wrote more than 4096 bytes", 0},
		// A program that never answers is stopped at its bound: a No.
		{"no answer in time", `cat >/dev/null; exec sleep 600`, false, "the -ask program said no: it did not answer within 200ms", 200 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".sh")
			if err := os.WriteFile(path, []byte("#!/bin/sh\n"+c.script+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			timeout := c.timeout
			if timeout == 0 {
				timeout = askTimeout
			}
			a := askProgram(context.Background(), path, q, timeout)
			if a.Allowed != c.allowed || a.Feedback != c.feedback {
				b, _ := json.Marshal(a)
				t.Errorf("answer %s, want allowed %v feedback %q", b, c.allowed, c.feedback)
			}
		})
	}
}
