package cli

import (
	"os"
	"path/filepath"
	"testing"

	"quire/test/crashtest"
)

// Quire killed outright (SIGKILL: no deferred stop runs) while its -ask
// program waits on a child of its own and on a grandchild already
// orphaned from it: the program and both go with Quire, so none is left
// holding what it holds.
func TestAskProgramDiesWithQuire(t *testing.T) {
	fifo := crashtest.Fifo(t)
	script := filepath.Join(t.TempDir(), "ask.sh")
	body := "#!/bin/sh\ncat >/dev/null\nsleep 3600 &\nkid=$!\n" +
		"orphan=$(sleep 3600 >/dev/null 2>&1 & echo $!)\n" + // its subshell has ended: the sleep is nobody's child
		"echo \"$$ $kid $orphan\" >" + fifo + "\nwait\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	crash := crashtest.New(t, askParentEnv, 1)
	quire := crash.Start(script)
	procs := crashtest.Watch(t, quire.Pids(fifo)...)
	if !quire.Kill() {
		t.Fatalf("Quire ended before the kill; its stderr: %s", quire.Stderr())
	}
	procs.WaitGone()
}
