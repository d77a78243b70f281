package standing_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/runtime"
	"quire/kernel/store"
	"quire/kernel/tool"
	"quire/queue"
	"quire/standing"
	"quire/test/ollamatest"
	"quire/test/testkit"
	"quire/tools/notes"
)

// rootNotes is queue.Notes over one notes folder.
type rootNotes struct{ root *notes.Root }

func (n rootNotes) Tools(log notes.ChangeLog) []tool.Tool { return notes.Tools(n.root, log) }
func (n rootNotes) Resolve(rel string) (string, error)    { return n.root.Resolve(rel) }

// proposer is the composition root's adapter, over the real queue.
type proposer struct{ q *queue.Queue }

func (p proposer) Propose(ctx context.Context, o standing.Order) (protocol.Batch, error) {
	return p.q.StartOrder(ctx, queue.Order{ID: o.ID, Folder: o.Folder, Instruction: o.Instruction, MaxNotes: o.MaxNotes})
}

func (p proposer) Batch(ctx context.Context, id string) (protocol.Batch, bool, error) {
	all, err := p.q.List(ctx)
	for _, b := range all {
		if b.ID == id {
			return b, true, nil
		}
	}
	return protocol.Batch{}, false, err
}

// clock is a settable now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

// world is Quire's standing tasks over a real database, a real queue with
// its workers' kernel (the fake Ollama server as the model) and a notes
// folder with an inbox.
type world struct {
	K     *testkit.Kernel
	Q     *queue.Queue
	St    *standing.Store
	R     *standing.Runner
	Clock *clock
	Dir   string
	ids   int
	idsMu sync.Mutex
}

var noteRe = regexp.MustCompile(`Organise the note (\S+)\. `)

// fileUnder is the fake model's worker: each note goes under projects/.
func fileUnder() ollamatest.Option {
	return ollamatest.WithResponder(func(req api.ChatRequest) (ollamatest.Turn, bool) {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == "tool" {
			return ollamatest.Turn{Content: []string{"Proposed."}}, true
		}
		m := noteRe.FindStringSubmatch(last.Content)
		if m == nil {
			return ollamatest.Turn{}, false
		}
		args, _ := json.Marshal(map[string]any{"path": "projects/" + filepath.Base(m[1]), "tags": []string{"filed"}, "links": []string{}, "reason": "a project"})
		return ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{Name: queue.ProposeName, Arguments: args}}}, true
	})
}

func inbox(t testing.TB, dir string, n int) {
	t.Helper()
	for i := range n {
		testkit.WriteOld(t, filepath.Join(dir, "inbox", fmt.Sprintf("n%02d.md", i)), fmt.Sprintf("# Note %d\n", i))
	}
	if err := os.MkdirAll(filepath.Join(dir, "projects"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// openWorld opens the world over the database at path and the notes at
// dir, its clock at now.
func openWorld(t testing.TB, fake *ollamatest.Server, path, dir string, now time.Time, opts ...standing.RunnerOption) *world {
	t.Helper()
	root, err := notes.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	w := &world{Dir: dir, Clock: &clock{t: now}}
	w.K = testkit.OpenWith(t, fake, path, func(st *store.Store) []runtime.Option {
		q, err := queue.Open(t.Context(), st.DB(), rootNotes{root})
		if err != nil {
			t.Fatal(err)
		}
		w.Q = q
		all := queue.ToolsFunc(func() []tool.Tool { return notes.Tools(root, nil) })
		return []runtime.Option{runtime.WithTools(q.WorkerTools(all)), runtime.WithSessionKind(event.SessionWorker)}
	})
	w.K.Runtime.SetSettings(runtime.Settings{Model: testkit.Model, NumCtx: 8192, Profile: tool.Minimal})
	if err := w.K.Runtime.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := w.Q.Attach(t.Context(), w.K.Runtime); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Q.Close)
	w.St, err = standing.Open(t.Context(), w.K.Store.DB(), w.Clock.Now, w.newID)
	if err != nil {
		t.Fatal(err)
	}
	open := func(ctx context.Context) (string, error) {
		s, err := protocol.Run[protocol.Session](ctx, w.K.Runtime, "standing:log", protocol.CreateSession,
			protocol.CreateSessionPayload{Title: "Standing tasks", Kind: protocol.SessionStanding})
		return s.ID, err
	}
	w.R = standing.NewRunner(w.St, proposer{w.Q}, standing.LogJournal(w.K.Runtime, open, w.Clock.Now),
		append([]standing.RunnerOption{standing.WithClock(w.Clock.Now), standing.WithIDs(w.newID)}, opts...)...)
	return w
}

func (w *world) newID() string {
	w.idsMu.Lock()
	defer w.idsMu.Unlock()
	w.ids++
	return fmt.Sprintf("%d-%d", time.Now().UnixNano(), w.ids)
}

// until waits on the queue's stream until batch id is in one of want.
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
	t.Fatalf("batch %s never got to %v", id, want)
	return protocol.Batch{}
}

// files lists the notes under dir, relative, sorted.
func files(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// firings are the standing.firing events in the log, in order.
func firings(t testing.TB, st *store.Store) []event.StandingFiringPayload {
	t.Helper()
	all, err := st.Sessions(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var out []event.StandingFiringPayload
	for _, s := range all {
		if s.Kind != event.SessionStanding {
			continue
		}
		evs, err := st.EventsOfType(t.Context(), s.ID, event.StandingFiring)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			var p event.StandingFiringPayload
			if err := json.Unmarshal(e.Payload, &p); err != nil {
				t.Fatal(err)
			}
			out = append(out, p)
		}
	}
	return out
}
