package store

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"quire/kernel/event"
	"quire/test/crashtest"
)

var crashKills = flag.Int("crash.kills", 50, "how many times TestCrashLeavesAValidPrefix kills the writer")

const (
	crashChildEnv = "QUIRE_CRASH_CHILD_DB"
	batchSize     = 5
)

// TestMain lets this test binary double as the writer process that the crash
// test kills.
func TestMain(m *testing.M) { crashtest.Main(m, crashChildEnv, crashChild) }

// crashChild appends forever: single user messages and batches of deltas,
// reporting each commit on stdout, until it is killed.
func crashChild(path string) {
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child open:", err)
		os.Exit(3)
	}
	if _, _, err := s.CreateSession(ctx, "crash", "Crash", time.Now(), nil, nil); err != nil && !strings.Contains(err.Error(), "already exists") {
		fmt.Fprintln(os.Stderr, "child create:", err)
		os.Exit(3)
	}
	out := bufio.NewWriter(os.Stdout)
	for n := 0; ; n++ {
		var drafts []event.Draft
		if n%2 == 0 {
			drafts = []event.Draft{{Type: event.UserMessage, Time: time.Now(), Payload: event.UserMessagePayload{Text: fmt.Sprint("single ", n)}}}
		} else {
			run := fmt.Sprintf("batch-%d-%d", os.Getpid(), n)
			for i := range batchSize {
				drafts = append(drafts, event.Draft{Type: event.AssistantDelta, Time: time.Now(), RunID: run,
					Payload: event.AssistantDeltaPayload{Content: fmt.Sprintf("%d/%d", i, batchSize)}})
			}
		}
		if _, err := s.Append(ctx, "crash", drafts...); err != nil {
			fmt.Fprintln(os.Stderr, "child append:", err)
			os.Exit(3)
		}
		fmt.Fprintln(out, n)
		out.Flush()
	}
}

// TestCrashLeavesAValidPrefix kills a writer with SIGKILL at random moments;
// after each kill the log must be a valid prefix — seqs 0..n-1 without a gap,
// every event decodes, no batch torn — and must accept new appends.
func TestCrashLeavesAValidPrefix(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crash.db")
	crash := crashtest.New(t, crashChildEnv, *crashKills)
	var lastLen int
	for kill := range *crashKills {
		child := crash.Start(path)
		// Wait for the first commit, then let it run a random while, so the
		// kill lands anywhere in the append cycle.
		if _, ok := child.Line(); !ok {
			t.Fatalf("kill %d: the writer made no commit: %s", kill, child.Stderr())
		}
		crash.Pause(20 * time.Millisecond)
		if !child.Kill() {
			t.Fatalf("kill %d: the writer, which appends forever, was gone before the kill: %s", kill, child.Stderr())
		}

		n := verifyPrefix(t, kill, path)
		if n <= lastLen {
			t.Fatalf("kill %d: the log did not grow (%d events, was %d)", kill, n, lastLen)
		}
		lastLen = n + 1 // verifyPrefix appended one
	}
	t.Logf("%d kills, %d events in the surviving log", crash.Kills(), lastLen)
}

func verifyPrefix(t *testing.T, kill int, path string) int {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("kill %d: reopen: %v", kill, err)
	}
	defer s.Close()
	evs, err := s.Events(ctx, "crash", 0)
	if err != nil {
		t.Fatalf("kill %d: read: %v", kill, err)
	}
	batches := map[string]int{}
	for i, e := range evs {
		if e.Seq != int64(i) {
			t.Fatalf("kill %d: gap: position %d has seq %d", kill, i, e.Seq)
		}
		if _, err := event.Decode(e); err != nil {
			t.Fatalf("kill %d: event %d does not decode: %v", kill, e.Seq, err)
		}
		if e.Type == event.AssistantDelta {
			batches[e.RunID]++
		}
	}
	for run, count := range batches {
		if count != batchSize {
			t.Fatalf("kill %d: batch %s is torn: %d of %d events", kill, run, count, batchSize)
		}
	}
	sess, err := s.Session(ctx, "crash")
	if err != nil || sess.LastSeq != int64(len(evs)-1) {
		t.Fatalf("kill %d: index says last seq %d, log has %d events (%v)", kill, sess.LastSeq, len(evs), err)
	}
	added, err := s.Append(ctx, "crash", event.Draft{Type: event.UserMessage, Time: time.Now(), Payload: event.UserMessagePayload{Text: "after the crash"}})
	if err != nil || added[0].Seq != int64(len(evs)) {
		t.Fatalf("kill %d: append after reopen: %v", kill, err)
	}
	return len(evs)
}
