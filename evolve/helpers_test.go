package evolve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"quire/evolve"
	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/provider"
	"quire/kernel/provider/ollama"
	"quire/kernel/runtime"
	"quire/kernel/store"
	"quire/kernel/tool"
	"quire/memory"
	"quire/test/ollamatest"
	"quire/test/testkit"
	"quire/tools/notes"
)

// rig is a real kernel (runtime, SQLite file, real Ollama client, fake
// Ollama server) with the real note tools over a notes folder and evolve's
// facets plugged in, as the composition root plugs them.
type rig struct {
	k     *testkit.Kernel
	evo   *evolve.Store
	mem   *memory.Store // its remember tool writes the preferences said again
	post  *testkit.PostRun
	user  *user
	notes string
	// folder is the notes folder the store is told is chosen now.
	folder atomic.Pointer[string]
}

// user answers every permission question Yes (or No with a reason, while
// no is set) and keeps each question.
type user struct {
	mu        sync.Mutex
	no        string // "" : yes; else the reason of a no
	questions []runtime.Question
	// during, when set, runs while the run waits for the answer: what the
	// user does mid-reply.
	during func()
}

func (u *user) ask(_ context.Context, q runtime.Question) (runtime.Answer, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.questions = append(u.questions, q)
	if u.during != nil {
		u.during()
	}
	if u.no != "" {
		return runtime.Answer{Allowed: false, Feedback: u.no}, nil
	}
	return runtime.Answer{Allowed: true}, nil
}

func (u *user) asked() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.questions)
}

func (u *user) sayNo(reason string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.no = reason
}

type toolset []tool.Tool

func (s toolset) Tools() []tool.Tool { return s }

var rigs atomic.Int64

// newRig makes a notes folder holding files (path → text) and a kernel
// over a new database.
func newRig(t testing.TB, files map[string]string, learn bool) *rig {
	t.Helper()
	r := &rig{post: &testkit.PostRun{}, user: &user{}, notes: t.TempDir()}
	for p, text := range files {
		full := filepath.Join(r.notes, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := notes.Open(r.notes)
	if err != nil {
		t.Fatal(err)
	}
	r.folder.Store(&r.notes)
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	no := rigs.Add(1)
	var n atomic.Int64
	ids := func() string { return fmt.Sprintf("c%d-%d", no, n.Add(1)) }
	r.k = testkit.OpenWith(t, fake, filepath.Join(t.TempDir(), "quire.db"), func(st *store.Store) []runtime.Option {
		open := func(ctx context.Context) (string, error) {
			s, err := protocol.Run[protocol.Session](ctx, r.k.Runtime, "evolution:log", protocol.CreateSession,
				protocol.CreateSessionPayload{Title: "Evolution", Kind: protocol.SessionEvolution})
			return s.ID, err
		}
		mem, err := memory.Open(t.Context(), st.DB(), st)
		if err != nil {
			t.Fatal(err)
		}
		r.mem = mem
		r.evo = evolve.New(st, open, func() string { return *r.folder.Load() }, evolve.WithIDs(ids), evolve.WithLearning(learn))
		u, _ := url.Parse(fake.URL())
		r.post.Next = r.evo.Observer().WithProposer(ollama.New(u, &http.Client{}), testkit.Model, 8192)
		return []runtime.Option{runtime.WithFlushEvery(5 * time.Millisecond), runtime.WithAsker(r.user.ask),
			runtime.WithTools(toolset(notes.Tools(root, nil)), mem),
			runtime.WithContributors(r.evo.Contributor()), runtime.WithSubscribers(r.post)}
	})
	r.evo.SetWriter(r.k.Runtime)
	r.mem.Attach(r.k.Runtime)
	return r
}

func (r *rig) chat(t testing.TB) string {
	t.Helper()
	s, err := protocol.Run[protocol.Session](t.Context(), r.k.Runtime, "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return s.ID
}

// say sends text and waits until its run has finished and been observed.
func (r *rig) say(t testing.TB, session, text string) string {
	t.Helper()
	res, err := protocol.Run[protocol.SendResult](t.Context(), r.k.Runtime, "", protocol.SendMessage,
		protocol.SendMessagePayload{Session: session, Text: text})
	if err != nil {
		t.Fatal(err)
	}
	r.k.Wait(t, session, "run "+res.RunID+" to finish", func(evs []event.Event) bool {
		return slices.ContainsFunc(evs, func(e event.Event) bool { return e.Type == event.RunFinished && e.RunID == res.RunID })
	})
	r.post.Settled(t, res.RunID)
	return res.RunID
}

// signals are the session's evolution.signal payloads, in order.
func (r *rig) signals(t *testing.T, session string) []event.EvolutionSignalPayload {
	t.Helper()
	var out []event.EvolutionSignalPayload
	for _, e := range r.k.Log(t, session) {
		if e.Type == event.EvolutionSignal {
			p, err := event.As[event.EvolutionSignalPayload](e)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, p)
		}
	}
	return out
}

func calling(id, name, args string) ollamatest.Turn {
	return ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: id, Name: name, Arguments: json.RawMessage(args)}}}
}

func saying(text string) ollamatest.Turn { return ollamatest.Turn{Content: []string{text}} }

// system is the system text of a request: its system messages, joined.
func system(msgs []provider.Message) string {
	var parts []string
	for _, m := range msgs {
		if m.Role == provider.RoleSystem {
			parts = append(parts, m.Content)
		}
	}
	return strings.Join(parts, "\n")
}

// sent is the system text of the n-th chat request the fake server got
// (from 1).
func sent(t *testing.T, fake *ollamatest.Server, n int) string {
	t.Helper()
	reqs := fake.Requests()
	if n < 1 || n > len(reqs) {
		t.Fatalf("request %d of %d", n, len(reqs))
	}
	var parts []string
	for _, m := range reqs[n-1].Chat.Messages {
		if m.Role == "system" {
			parts = append(parts, m.Content)
		}
	}
	return strings.Join(parts, "\n")
}

// replayed is the system text of call n of session rebuilt from the log
// alone, as `quire replay SESSION -request N` rebuilds it.
func (r *rig) replayed(t *testing.T, session string, n int) string {
	t.Helper()
	req, err := runtime.NewReader(r.k.Store).Request(t.Context(), session, n)
	if err != nil {
		t.Fatal(err)
	}
	return system(req.Messages)
}

func exists(t *testing.T, path string) bool {
	t.Helper()
	_, err := os.Stat(path)
	return err == nil
}
