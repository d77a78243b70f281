//go:build unix

package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"quire/kernel/protocol"
	"quire/test/testkit"
)

// An -ask program stopped at its bound is stopped whole: a process it
// started (a pipeline, a command run in the background) ends with it,
// instead of living on after the run answered No. The background sleep
// holds a FIFO open for writing, so the read ends only when it is gone.
func TestAskProgramStoppedWhole(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "held")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	script := filepath.Join(dir, "ask.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ncat >/dev/null\nsleep 600 >"+fifo+" &\nwait\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	closed := make(chan error, 1)
	go func() {
		f, err := os.Open(fifo) // until the sleep opens it for writing
		if err != nil {
			closed <- err
			return
		}
		defer f.Close()
		_, err = io.Copy(io.Discard, f) // until every writer is gone
		closed <- err
	}()
	q := protocol.Question{Session: "s", Calls: []protocol.QuestionCall{{ID: "c1", Name: "create_note"}}}
	a := askProgram(context.Background(), script, q, 200*time.Millisecond)
	if a.Allowed {
		t.Fatalf("a program stopped at its bound answered Yes")
	}
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(testkit.Patience):
		t.Fatalf("the -ask program's background process still runs %s after its answer", testkit.Patience)
	}
}
