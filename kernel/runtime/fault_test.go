package runtime_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/runtime"
	"quire/kernel/tool"
	"quire/test/ollamatest"
	"quire/test/testkit"
	"quire/test/testkit/smalldisk"
)

// gatedServer is a fake Ollama server whose every scripted delay waits for
// the test: each delay asked for is sent on the returned channel, and it
// passes when the test sends on the channel it got.
func gatedServer(t *testing.T) (*ollamatest.Server, <-chan chan time.Time) {
	asked := make(chan chan time.Time, 16)
	fake := ollamatest.New(t, ollamatest.WithTimer(func(time.Duration) <-chan time.Time {
		gate := make(chan time.Time, 1)
		asked <- gate
		return gate
	}))
	fake.AddModel(ollamatest.DefaultModel())
	return fake, asked
}

// grant lets the next delay the fake server asks for pass.
func grant(t *testing.T, asked <-chan chan time.Time) {
	t.Helper()
	select {
	case gate := <-asked:
		gate <- time.Time{}
	case <-time.After(testkit.Patience):
		t.Fatal("the fake server never asked for its next delay")
	}
}

// faultSeen is a log handler that closes seen at the runtime's record of a
// fault (a report the log could not take), so a test knows the fault
// happened without waiting on time.
type faultSeen struct {
	once sync.Once
	seen chan struct{}
}

func (h *faultSeen) Enabled(context.Context, slog.Level) bool { return true }
func (h *faultSeen) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *faultSeen) WithGroup(string) slog.Handler            { return h }
func (h *faultSeen) Handle(_ context.Context, r slog.Record) error {
	if r.Level == slog.LevelError && strings.Contains(r.Message, "could not take a report") {
		h.once.Do(func() { close(h.seen) })
	}
	return nil
}

// wait returns once the fault was recorded.
func (h *faultSeen) wait(t *testing.T, k *testkit.Kernel, session string) {
	t.Helper()
	select {
	case <-h.seen:
	case <-time.After(testkit.Patience):
		t.Fatalf("no fault was recorded; log: %s", testkit.Types(logOf(t, k, session)))
	}
}

// waitStreamed waits until the session's deltas add up to text.
func waitStreamed(t *testing.T, k *testkit.Kernel, session, text string) []event.Event {
	t.Helper()
	return k.Wait(t, session, "the reply so far to be "+text, func(evs []event.Event) bool {
		var got strings.Builder
		for _, p := range only[event.AssistantDeltaPayload](t, evs, event.AssistantDelta) {
			got.WriteString(p.Content)
		}
		return got.String() == text
	})
}

// keeps fails unless evs begins with before, byte for byte.
func keeps(t *testing.T, evs, before []event.Event) {
	t.Helper()
	if len(evs) < len(before) {
		t.Fatalf("%d events, fewer than the %d logged before the fault", len(evs), len(before))
	}
	for i, e := range before {
		a := evs[i]
		if a.Seq != e.Seq || a.Type != e.Type || !bytes.Equal(a.Payload, e.Payload) {
			t.Fatalf("event %d changed after the fault: %s %s, was %s %s", i, a.Type, a.Payload, e.Type, e.Payload)
		}
	}
}

func cancelRun(ctx context.Context, k *testkit.Kernel, session string) error {
	_, err := protocol.Run[struct{}](ctx, k.Runtime, "", protocol.CancelRun, protocol.SessionRef{Session: session})
	return err
}

// TestAFullDiskMidStreamEndsTheRunWithItsReason: the file reaches SQLite's
// page limit while a reply streams, so the next batch of the reply cannot
// be appended. The run does not stay "streaming": its work is stopped, a
// Stop while the file is full either ends it (SQLite's limit counts
// pages, and the terminal may fit in the room the last ones have) or says
// the disk is full (never a silent success; TestAFilledDiskMidStream has
// a disk with no room at all), a message that cannot fit is refused as
// protocol.ErrNoSpace, and once there is room the run ends as error with
// the disk-full sentence. Everything logged before the fault is still
// there, byte for byte; the session then works again (and the kit checks
// core.Verify and core.Replay on the log at the end).
func TestAFullDiskMidStreamEndsTheRunWithItsReason(t *testing.T) {
	fake, asked := gatedServer(t)
	logs := &faultSeen{seen: make(chan struct{})}
	k := testkit.Open(t, fake, filepath.Join(t.TempDir(), "quire.db"),
		runtime.WithFlushEvery(5*time.Millisecond), runtime.WithLogger(slog.New(logs)))
	ctx := t.Context()
	big := strings.Repeat("a long paragraph that will not fit ", 3000) // ~100 KB: needs pages the file may not grow
	fake.Script(ollamatest.Turn{Content: []string{"Hello ", "there", big}, Delay: time.Hour})
	sid := chat(t, k)
	say(t, k, sid, "hi", "")
	grant(t, asked) // "Hello "
	grant(t, asked) // "there"
	before := waitStreamed(t, k, sid, "Hello there")

	var pages int64
	if err := k.Store.DB().QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	k.Store.LimitPages(pages)
	grant(t, asked) // the piece that does not fit
	logs.wait(t, k, sid)

	switch err := cancelRun(ctx, k, sid); {
	case err == nil:
		// The terminal fitted in the pages the file had: the Stop ended the run.
		if n := testkit.Count(logOf(t, k, sid), event.RunFinished); n != 1 {
			t.Fatalf("Stop answered nil but the log has %d run.finished", n)
		}
	case errors.Is(err, protocol.ErrNoSpace):
		if n := testkit.Count(logOf(t, k, sid), event.RunFinished); n != 0 {
			t.Fatalf("Stop said the disk is full but the log has %d run.finished", n)
		}
	default:
		t.Fatalf("Stop while the file is full: %v, want nil or protocol.ErrNoSpace", err)
	}

	_, err := protocol.Run[protocol.SendResult](ctx, k.Runtime, "", protocol.SendMessage,
		protocol.SendMessagePayload{Session: sid, Text: big})
	if !errors.Is(err, protocol.ErrNoSpace) {
		t.Fatalf("a message that cannot fit: %v, want protocol.ErrNoSpace", err)
	}

	k.Store.LimitPages(0)
	if err := cancelRun(ctx, k, sid); err != nil {
		t.Fatalf("Stop once there is room: %v", err)
	}
	evs := logOf(t, k, sid)
	fin := finished(t, evs)
	if fin.Reason != event.ReasonError || !strings.HasPrefix(fin.Error, "The disk is full") {
		t.Fatalf("run.finished %+v, want reason error with the disk-full sentence", fin)
	}
	keeps(t, evs, before)
	if strings.Contains(string(evs[len(evs)-1].Payload), "will not fit") {
		t.Fatal("the piece that did not fit reached the log")
	}

	fake.Script(saying("back"))
	say(t, k, sid, "again", "") // a turn without a delay of its own: no gate
	evs = waitRuns(t, k, sid, 2)
	if last := only[event.RunFinishedPayload](t, evs, event.RunFinished)[1]; last.Reason != event.ReasonCompleted {
		t.Fatalf("the next run after the fault finished %+v, want completed", last)
	}
}

// TestAFilledDiskMidStream: the data folder is on a real small filesystem,
// which a ballast file fills while a reply streams. The next piece of the
// reply cannot be written (ENOSPC, SQLITE_FULL): the run's work stops, a
// Stop says the disk is full (protocol.ErrNoSpace) instead of answering
// and doing nothing, and Quire closes without hanging although it can
// write nothing. With the ballast gone, the next start recovers the run as
// interrupted; every event logged before the disk filled is still there,
// the log passes core.Verify and core.Replay (the kit's check), and the
// conversation goes on.
func TestAFilledDiskMidStream(t *testing.T) {
	disk := smalldisk.Mount(t, "4m")
	path := filepath.Join(disk, "quire.db")
	fake, asked := gatedServer(t)
	logs := &faultSeen{seen: make(chan struct{})}
	k := testkit.Open(t, fake, path, runtime.WithFlushEvery(5*time.Millisecond), runtime.WithLogger(slog.New(logs)))
	ctx := t.Context()
	fake.Script(ollamatest.Turn{Content: []string{"Hello ", "there", " and more"}, Delay: time.Hour})
	sid := chat(t, k)
	say(t, k, sid, "hi", "")
	grant(t, asked)
	grant(t, asked)
	before := waitStreamed(t, k, sid, "Hello there")

	free := smalldisk.Fill(t, filepath.Join(disk, "ballast"))
	grant(t, asked) // " and more": its batch has nowhere to go
	logs.wait(t, k, sid)
	if err := cancelRun(ctx, k, sid); !errors.Is(err, protocol.ErrNoSpace) {
		t.Fatalf("Stop on a full disk: %v, want protocol.ErrNoSpace", err)
	}
	k.Close(t) // while the disk is still full: nothing can be written, nothing may hang

	free()
	k = testkit.Open(t, fake, path, runtime.WithFlushEvery(5*time.Millisecond))
	if err := k.Runtime.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	evs := logOf(t, k, sid)
	if fin := finished(t, evs); fin.Reason != event.ReasonInterrupted && !(fin.Reason == event.ReasonError && strings.HasPrefix(fin.Error, "The disk is full")) {
		t.Fatalf("run.finished %+v after the restart, want interrupted (or error with the disk-full sentence)", fin)
	}
	keeps(t, evs, before)
	fake.Script(saying("back"))
	say(t, k, sid, "again", "")
	evs = waitRuns(t, k, sid, 2)
	if last := only[event.RunFinishedPayload](t, evs, event.RunFinished)[1]; last.Reason != event.ReasonCompleted {
		t.Fatalf("the run after the restart finished %+v, want completed", last)
	}
}

// TestAToolResultTheLogRefusesEndsTheRun: a tool's result that cannot be
// stored (its data holds a value JSON cannot carry) is a fault like a full
// disk: the run does not wait for the lost result forever but ends as error
// with a sentence naming why, and the call, which did run, is marked
// unknown_completion, never run again.
func TestAToolResultTheLogRefusesEndsTheRun(t *testing.T) {
	odd := &fakeTool{spec: tool.Spec{Name: "odd", Effects: tool.ReadFs, Idempotency: tool.Safe, Parallel: true},
		run: func(context.Context, tool.Call) (tool.Result, error) {
			return tool.Result{Status: tool.Success, Content: "measured", Data: map[string]any{"ratio": math.Inf(1)}}, nil
		}}
	k := kit(t, withTools(odd))
	k.Ollama.Script(calling("c1:odd"))
	sid := chat(t, k)
	say(t, k, sid, "measure it", "")
	evs := waitRuns(t, k, sid, 1)
	fin := finished(t, evs)
	if fin.Reason != event.ReasonError || !strings.HasPrefix(fin.Error, "Quire could not save the rest of this request") {
		t.Fatalf("run.finished %+v, want reason error with the could-not-save sentence", fin)
	}
	refused := only[event.ToolRefusedPayload](t, evs, event.ToolRefused)
	if len(refused) != 1 || refused[0].CallID != "c1" || refused[0].Status != string(tool.UnknownCompletion) {
		t.Fatalf("refusals %+v, want c1 as unknown_completion", refused)
	}
	if odd.runs() != 1 {
		t.Fatalf("the tool ran %d times, want once", odd.runs())
	}
}

// TestARecoveryOnAFullDiskEndsTheRunOnceThereIsRoom: Quire starts again
// after a crash while the disk is still full, so the recovery cannot log
// the end of the run the crash left open. Recover says the disk is full;
// once there is room the run is closed, without another restart — it used
// to stay open (listed as answering) until the next start.
func TestARecoveryOnAFullDiskEndsTheRunOnceThereIsRoom(t *testing.T) {
	h := newHarness(t)
	s := hangingRun(t, h)
	disk := smalldisk.Mount(t, "4m")
	crashed := filepath.Join(disk, "quire.db")
	if _, err := h.store.DB().Exec("VACUUM INTO ?", crashed); err != nil { // the run is open in the copy
		t.Fatal(err)
	}
	k := testkit.Open(t, h.fake, crashed, runtime.WithFlushEvery(5*time.Millisecond))
	free := smalldisk.Fill(t, filepath.Join(disk, "ballast"))
	if err := k.Runtime.Recover(t.Context()); !errors.Is(err, event.ErrNoSpace) {
		t.Fatalf("a recovery on a full disk: %v, want event.ErrNoSpace", err)
	}
	if n := testkit.Count(logOf(t, k, s.ID), event.RunFinished); n != 0 {
		t.Fatalf("the full disk took %d run.finished", n)
	}
	free()
	evs := k.WaitRuns(t, s.ID, 1)
	if fin := finished(t, evs); fin.Reason != event.ReasonInterrupted && !(fin.Reason == event.ReasonError && strings.HasPrefix(fin.Error, "The disk is full")) {
		t.Fatalf("run.finished %+v once there was room, want interrupted (or error with the disk-full sentence)", fin)
	}
}
