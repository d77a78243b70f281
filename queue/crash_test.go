package queue_test

import (
	"bufio"
	"context"
	"encoding/json"
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
	"quire/test/crashtest"
	"quire/test/ollamatest"
	"quire/test/testkit"
	"quire/tools/notes"
)

const crashChildEnv = "QUIRE_QUEUE_CRASH_CHILD" // "db path|notes dir"

// The crash test's pace: the model takes modelDelay before each answer (a
// note is two answers), and each kill lands within killWithin of the
// child's first word, so a kill catches a task at any step and four kills
// leave most of the batch to do. A faster model or a longer pause lets a
// child finish the batch before its kill, and the kills asked for never
// land.
const (
	modelDelay = 20 * time.Millisecond
	killWithin = 60 * time.Millisecond
)

// TestMain lets the test binary double as the Quire the crash test kills.
func TestMain(m *testing.M) { crashtest.Main(m, crashChildEnv, crashChild) }

// crashChild is Quire with a batch: it starts one over the inbox if the
// database has none, else goes on with the one it has, saying "done" as
// each task ends, and "reviewing" (then exits) when the batch is there.
func crashChild(spec string) {
	dbPath, dir, _ := strings.Cut(spec, "|")
	die := func(what string, err error) { fmt.Fprintln(os.Stderr, what+":", err); os.Exit(3) }
	ctx := context.Background()
	fake, err := ollamatest.Listen("127.0.0.1:0", script(fileUnder), ollamatest.WithDelay(modelDelay))
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
	q, err := queue.Open(ctx, st.DB(), rootNotes{root}, queue.WithWorkers(2))
	if err != nil {
		die("queue", err)
	}
	u, _ := url.Parse(fake.URL())
	rt := runtime.New(st, ollama.New(u, &http.Client{}), runtime.Settings{Model: testkit.Model, NumCtx: 8192, Profile: tool.Minimal},
		runtime.WithTools(q.WorkerTools(queue.ToolsFunc(func() []tool.Tool { return notes.Tools(root, nil) }))), runtime.WithSessionKind(event.SessionWorker))
	if err := rt.Start(ctx); err != nil {
		die("runtime", err)
	}
	out := bufio.NewWriter(os.Stdout)
	stream := q.Watch(ctx)
	if err := q.Attach(ctx, rt); err != nil {
		die("attach", err)
	}
	list, err := q.List(ctx)
	if err != nil {
		die("list", err)
	}
	if len(list) == 0 {
		if _, err := q.Start(ctx, "inbox"); err != nil {
			die("start", err)
		}
	}
	for p := range stream {
		if p.Task != nil && p.Task.State == protocol.TaskDone {
			fmt.Fprintln(out, "done", p.Task.Note)
			out.Flush()
		}
		if p.Batch.State == protocol.BatchReviewing {
			fmt.Fprintln(out, "reviewing")
			out.Flush()
			os.Exit(0)
		}
	}
}

// Killing Quire with SIGKILL in the middle of a batch, again and again,
// and starting it again finishes the batch with every task done exactly
// once: a task done before a kill is not run again, and no note's worker
// ran to a proposal twice (a proposal a killed Quire left in a worker's log
// is taken, not made again).
func TestKilledBatchResumesDoingEachTaskOnce(t *testing.T) {
	dir := t.TempDir()
	inbox(t, filepath.Join(dir, "notes"), 30)
	dbPath := filepath.Join(dir, "quire.db")
	spec := dbPath + "|" + filepath.Join(dir, "notes")
	crash := crashtest.New(t, crashChildEnv, 4)
	for attempt := 0; crash.Kills() < crash.Want() && attempt < crash.Want()*3; attempt++ {
		child := crash.Start(spec)
		line, ok := child.Line()
		if !ok {
			t.Fatalf("the child ended without a word: %s", child.Stderr())
		}
		if line == "reviewing" {
			break // finished before this kill: the batch is through
		}
		crash.Pause(killWithin)
		child.Kill()
	}
	// The last start finishes the batch.
	child := crash.Start(spec)
	for {
		line, ok := child.Line()
		if !ok {
			t.Fatalf("the last start ended before review: %s", child.Stderr())
		}
		if line == "reviewing" {
			break
		}
	}
	testkit.CheckFile(t, dbPath) // every worker's log folds and replays
	st, err := store.Open(t.Context(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.DB().QueryContext(t.Context(), `SELECT input, state, done_count, attempts FROM queue_tasks`)
	if err != nil {
		t.Fatal(err)
	}
	tasks := 0
	for rows.Next() {
		var input, state string
		var done, attempts int
		if err := rows.Scan(&input, &state, &done, &attempts); err != nil {
			t.Fatal(err)
		}
		tasks++
		if state != protocol.TaskDone || done != 1 || attempts < 1 || attempts > queue.MaxAttempts {
			t.Errorf("task %s: %s, done %d times, %d attempts", input, state, done, attempts)
		}
	}
	rows.Close()
	if tasks != 30 {
		t.Fatalf("%d tasks, want 30", tasks)
	}
	// Per note, exactly one worker session holds a proposal.
	sessions, err := st.Sessions(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	proposals := map[string]int{}
	for _, s := range sessions {
		evs, err := st.Events(t.Context(), s.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			if e.Type != event.ToolResult {
				continue
			}
			var r event.ToolResultPayload
			if json.Unmarshal(e.Payload, &r) == nil && r.Name == queue.ProposeName && r.Status == "success" {
				proposals[s.Title]++
			}
		}
	}
	for i := range 30 {
		if n := proposals[fmt.Sprintf("Organise inbox/n%02d.md", i)]; n != 1 {
			t.Errorf("inbox/n%02d.md was proposed for %d times", i, n)
		}
	}
	// More worker sessions than notes: some kills landed mid-run, and the
	// note ran again in a session of its own, to one proposal still.
	t.Logf("%d kills, %d worker sessions for 30 notes", crash.Kills(), len(sessions))
}
