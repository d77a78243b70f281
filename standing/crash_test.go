package standing_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/provider/ollama"
	"quire/kernel/runtime"
	"quire/kernel/store"
	"quire/kernel/tool"
	"quire/queue"
	"quire/standing"
	"quire/test/crashtest"
	"quire/test/ollamatest"
	"quire/test/testkit"
	"quire/tools/notes"
)

const crashChildEnv = "QUIRE_STANDING_CRASH_CHILD" // "db path|notes dir"

// killWithin is how soon after the child's first word each kill lands:
// within a few firings, so a kill catches one at any step.
const killWithin = 40 * time.Millisecond

// TestMain lets the test binary double as the Quire the crash test kills.
func TestMain(m *testing.M) { crashtest.Main(m, crashChildEnv, crashChild) }

// crashChild is Quire firing a standing task again and again: it settles
// what a kill left (Recover), says "ready", then runs the task now, says
// "fired", and cancels the batch so the next run may start.
func crashChild(spec string) {
	dbPath, dir, _ := strings.Cut(spec, "|")
	die := func(what string, err error) { fmt.Fprintln(os.Stderr, what+":", err); os.Exit(3) }
	ctx := context.Background()
	fake, err := ollamatest.Listen("127.0.0.1:0", fileUnder())
	if err != nil {
		die("fake ollama", err)
	}
	fake.AddModel(ollamatest.DefaultModel())
	st, err := store.Open(ctx, dbPath)
	if err != nil {
		die("store", err)
	}
	root, err := notes.Open(dir)
	if err != nil {
		die("notes", err)
	}
	q, err := queue.Open(ctx, st.DB(), rootNotes{root})
	if err != nil {
		die("queue", err)
	}
	u, _ := url.Parse(fake.URL())
	rt := runtime.New(st, ollama.New(u, &http.Client{}), runtime.Settings{Model: testkit.Model, NumCtx: 8192, Profile: tool.Minimal},
		runtime.WithTools(q.WorkerTools(queue.ToolsFunc(func() []tool.Tool { return notes.Tools(root, nil) }))), runtime.WithSessionKind(event.SessionWorker))
	if err := rt.Start(ctx); err != nil {
		die("runtime", err)
	}
	if err := q.Attach(ctx, rt); err != nil {
		die("attach", err)
	}
	n := 0
	newID := func() string { n++; return fmt.Sprintf("%d-%d-%d", os.Getpid(), time.Now().UnixNano(), n) }
	sst, err := standing.Open(ctx, st.DB(), time.Now, newID)
	if err != nil {
		die("standing", err)
	}
	open := func(ctx context.Context) (string, error) {
		s, err := protocol.Run[protocol.Session](ctx, rt, "standing:log", protocol.CreateSession,
			protocol.CreateSessionPayload{Title: "Standing tasks", Kind: protocol.SessionStanding})
		return s.ID, err
	}
	r := standing.NewRunner(sst, proposer{q}, standing.LogJournal(rt, open, time.Now), standing.WithIDs(newID))
	if err := r.Recover(ctx); err != nil {
		die("recover", err)
	}
	// The batch a kill left waiting is answered no, so the task may fire.
	left, err := q.List(ctx)
	if err != nil {
		die("list", err)
	}
	for _, b := range left {
		if b.State == protocol.BatchRunning || b.State == protocol.BatchReviewing {
			if _, err := q.Cancel(ctx, b.ID); err != nil {
				die("cancel", err)
			}
		}
	}
	tasks, err := sst.Tasks(ctx)
	if err != nil {
		die("tasks", err)
	}
	if len(tasks) == 0 {
		t, err := sst.Add(ctx, standing.Task{Name: "file the inbox", Folder: "inbox", Schedule: standing.Schedule{Kind: standing.Lands}})
		if err != nil {
			die("add", err)
		}
		tasks = append(tasks, t)
	}
	out := bufio.NewWriter(os.Stdout)
	say := func(s string) { fmt.Fprintln(out, s); out.Flush() }
	say("ready")
	for range 200 {
		rec, err := r.RunNow(ctx, tasks[0].ID)
		if err != nil {
			die("run now", err)
		}
		say("fired " + rec.Batch)
		if _, err := q.Cancel(ctx, rec.Batch); err != nil {
			die("cancel", err)
		}
	}
	say("finished")
}

// TestKillDuringFiringLeavesNoHalfBatch: killing Quire with SIGKILL while
// it fires, again and again, leaves every batch whole (all the folder's
// notes, or no batch at all), every batch named by a firing, and, once
// the next start settles it, no firing left at its first step: one whose
// batch was made is proposed, one with none interrupted, and the log says
// so.
func TestKillDuringFiringLeavesNoHalfBatch(t *testing.T) {
	dir := t.TempDir()
	notesDir := filepath.Join(dir, "notes")
	inbox(t, notesDir, 3)
	dbPath := filepath.Join(dir, "quire.db")
	spec := dbPath + "|" + notesDir
	crash := crashtest.New(t, crashChildEnv, 4)
	for attempt := 0; crash.Kills() < crash.Want() && attempt < crash.Want()*3; attempt++ {
		child := crash.Start(spec)
		// Each child fires once before its kill's clock starts, so the
		// kills land among firings, not before the first.
		for _, want := range []string{"ready", "fired"} {
			if line, ok := child.Line(); !ok || !strings.HasPrefix(line, want) {
				t.Fatalf("the child said %q, not %s: %s", line, want, child.Stderr())
			}
		}
		crash.Pause(killWithin)
		child.Kill()
	}
	fake := ollamatest.New(t, fileUnder())
	fake.AddModel(ollamatest.DefaultModel())
	w := openWorld(t, fake, dbPath, notesDir, time.Now())
	if err := w.R.Recover(t.Context()); err != nil {
		t.Fatal(err)
	}
	tasks, err := w.St.Tasks(t.Context())
	if err != nil || len(tasks) != 1 {
		t.Fatalf("tasks: %+v %v", tasks, err)
	}
	recs, err := w.St.Firings(t.Context(), tasks[0].ID, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	batches, err := w.Q.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]protocol.Batch{}
	for _, b := range batches {
		if b.Total != 3 {
			t.Errorf("batch %s holds %d of the folder's 3 notes", b.ID, b.Total)
		}
		byID[b.ID] = b
	}
	named := map[string]bool{}
	for _, rec := range recs {
		named[rec.Batch] = true
		_, made := byID[rec.Batch]
		switch {
		case rec.Step == event.FiringProposed && !made, rec.Step == event.FiringInterrupted && made:
			t.Errorf("firing %s is %s, yet its batch made is %v", rec.ID, rec.Step, made)
		case rec.Step != event.FiringProposed && rec.Step != event.FiringInterrupted:
			t.Errorf("firing %s was left %s", rec.ID, rec.Step)
		}
	}
	for id := range byID {
		if !named[id] {
			t.Errorf("batch %s is named by no firing", id)
		}
	}
	if len(recs) == 0 {
		t.Fatal("no firing happened before the kills")
	}
	steps := map[string][]string{}
	for _, p := range firings(t, w.K.Store) {
		steps[p.Firing] = append(steps[p.Firing], p.Step)
	}
	// A kill between the row and its first event leaves the row; the
	// next start's settling is then its event: each firing's last event
	// is where its row stands.
	for _, rec := range recs {
		if s := steps[rec.ID]; len(s) == 0 || s[len(s)-1] != rec.Step {
			t.Errorf("firing %s is %s, its events %v", rec.ID, rec.Step, s)
		}
	}
}
