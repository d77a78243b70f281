package queue_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/runtime"
	"quire/kernel/store"
	"quire/kernel/tool"
	"quire/queue"
	"quire/test/ollamatest"
	"quire/test/testkit"
	"quire/tools/notes"
)

// rootNotes is queue.Notes over one notes folder, as the composition root
// gives it (the folder the user chose).
type rootNotes struct{ root *notes.Root }

func (n rootNotes) Tools(log notes.ChangeLog) []tool.Tool { return notes.Tools(n.root, log) }
func (n rootNotes) Resolve(rel string) (string, error)    { return n.root.Resolve(rel) }

// world is a queue and its workers' kernel over a notes folder.
type world struct {
	Q     *queue.Queue
	K     *testkit.Kernel
	Dir   string // the notes folder
	Notes rootNotes
}

// noteRe finds the note a worker's task names.
var noteRe = regexp.MustCompile(`Organise the note (\S+)\. `)

// script is the fake model's worker: for a task's message it answers with
// calls made by plan (by note), and after the tool results it ends the run.
// plan returning nil ends the run with words only.
func script(plan func(note string) []ollamatest.ToolCall) ollamatest.Option {
	return scriptTurns(func(note string) ollamatest.Turn {
		if calls := plan(note); calls != nil {
			return ollamatest.Turn{ToolCalls: calls}
		}
		return ollamatest.Turn{Content: []string{"I will not propose anything."}}
	})
}

// scriptTurns is script with the whole first turn of each task made by turn.
func scriptTurns(turn func(note string) ollamatest.Turn) ollamatest.Option {
	return ollamatest.WithResponder(func(req api.ChatRequest) (ollamatest.Turn, bool) {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == "tool" {
			return ollamatest.Turn{Content: []string{"Proposed."}}, true
		}
		m := noteRe.FindStringSubmatch(last.Content)
		if m == nil {
			return ollamatest.Turn{}, false
		}
		return turn(m[1]), true
	})
}

// propose is a propose call.
func propose(path string, tags []string, reason string) ollamatest.ToolCall {
	args, _ := json.Marshal(map[string]any{"path": path, "tags": tags, "links": []string{}, "reason": reason})
	return ollamatest.ToolCall{Name: queue.ProposeName, Arguments: args}
}

// fileUnder proposes each note under projects/, tagged "filed".
func fileUnder(note string) []ollamatest.ToolCall {
	return []ollamatest.ToolCall{propose("projects/"+filepath.Base(note), []string{"filed"}, "it is about a project")}
}

// inbox writes n notes in dir/inbox and a projects folder.
func inbox(t testing.TB, dir string, n int) {
	t.Helper()
	for i := range n {
		testkit.WriteOld(t, filepath.Join(dir, "inbox", fmt.Sprintf("n%02d.md", i)), fmt.Sprintf("# Note %d\n\nabout project %d\n", i, i))
	}
	if err := os.MkdirAll(filepath.Join(dir, "projects"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// open builds the world over the database at path and notes folder dir,
// with the fake model's worker script, and starts the workers.
func open(t testing.TB, fake *ollamatest.Server, path, dir string, opts ...queue.Option) *world {
	t.Helper()
	return openStreams(t, fake, path, dir, 2, opts...)
}

// openStreams is open with the workers' kernel taking streams model
// streams at once.
func openStreams(t testing.TB, fake *ollamatest.Server, path, dir string, streams int, opts ...queue.Option) *world {
	t.Helper()
	root, err := notes.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	w := &world{Dir: dir, Notes: rootNotes{root}}
	w.K = testkit.OpenWith(t, fake, path, func(st *store.Store) []runtime.Option {
		q, err := queue.Open(t.Context(), st.DB(), w.Notes, opts...)
		if err != nil {
			t.Fatal(err)
		}
		w.Q = q
		all := queue.ToolsFunc(func() []tool.Tool { return notes.Tools(root, nil) })
		return []runtime.Option{runtime.WithTools(q.WorkerTools(all)), runtime.WithStreams(streams), runtime.WithSessionKind(event.SessionWorker)}
	})
	w.K.Runtime.SetSettings(runtime.Settings{Model: testkit.Model, NumCtx: 8192, Profile: tool.Minimal})
	if err := w.K.Runtime.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := w.Q.Attach(t.Context(), w.K.Runtime); err != nil {
		t.Fatal(err)
	}
	// The queue stops before the kernel it drives (cleanups run last first).
	t.Cleanup(w.Q.Close)
	return w
}

// newWorld is open over a new database, a new notes folder with n inbox
// notes and a fake model playing plan.
func newWorld(t testing.TB, n int, plan func(string) []ollamatest.ToolCall, opts ...queue.Option) *world {
	t.Helper()
	fake := ollamatest.New(t, script(plan))
	fake.AddModel(ollamatest.DefaultModel())
	dir := t.TempDir()
	inbox(t, dir, n)
	return open(t, fake, filepath.Join(t.TempDir(), "quire.db"), dir, opts...)
}

// until waits, on the queue's own stream, until the batch is in one of
// want, and returns it. It checks the batch after the watch is on, so a
// change before cannot be missed; it fails the test after testkit.Patience.
func until(t testing.TB, q *queue.Queue, id string, want ...string) protocol.Batch {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Patience)
	defer cancel()
	stream := q.Watch(ctx)
	r, err := q.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(want, r.Batch.State) {
		return r.Batch
	}
	for p := range stream {
		if p.Batch.ID == id && slices.Contains(want, p.Batch.State) {
			return p.Batch
		}
	}
	t.Fatalf("batch %s never got to %v (last: %+v)", id, want, r.Batch)
	return protocol.Batch{}
}

// reviewing starts a batch over the inbox and waits for its review.
func reviewing(t testing.TB, w *world) (protocol.Batch, protocol.BatchReview) {
	t.Helper()
	b, err := w.Q.Start(t.Context(), "inbox")
	if err != nil {
		t.Fatal(err)
	}
	until(t, w.Q, b.ID, protocol.BatchReviewing)
	r, err := w.Q.Get(t.Context(), b.ID)
	if err != nil {
		t.Fatal(err)
	}
	return b, r
}

// files lists the notes under dir, relative, sorted.
func files(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasPrefix(d.Name(), ".") {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(out)
	return out
}
