package memory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/provider/ollama"
	"quire/kernel/runtime"
	"quire/kernel/store"
	"quire/kernel/tool"
	"quire/memory"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

// rig is a real kernel (runtime, SQLite file, real Ollama client, fake
// Ollama server) with memory's three facets plugged in.
type rig struct {
	k    *testkit.Kernel
	mem  *memory.Store
	post *testkit.PostRun
	user *user
}

// user answers the permission questions of a rig as the scripted answer
// says (yes unless rigOptions.no) and keeps every question it was asked.
type user struct {
	no        bool
	mu        sync.Mutex
	questions []runtime.Question
}

func (u *user) ask(_ context.Context, q runtime.Question) (runtime.Answer, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.questions = append(u.questions, q)
	return runtime.Answer{Allowed: !u.no}, nil
}

// asked is every question so far.
func (u *user) asked() []runtime.Question {
	u.mu.Lock()
	defer u.mu.Unlock()
	return slices.Clone(u.questions)
}

type rigOptions struct {
	learn bool // the post-run step proposes with the model
	no    bool // the user says no to every question (default: yes)
	tools []tool.Tool
	mem   []memory.Option
}

// rigs numbers the rigs of a test binary, so ids of a reopened database never clash.
var rigs atomic.Int64

type toolset []tool.Tool

func (s toolset) Tools() []tool.Tool { return s }

func newRig(t *testing.T, o rigOptions) *rig {
	t.Helper()
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	return openRig(t, fake, filepath.Join(t.TempDir(), "quire.db"), o)
}

func openRig(t *testing.T, fake *ollamatest.Server, path string, o rigOptions) *rig {
	t.Helper()
	r := &rig{post: &testkit.PostRun{}, user: &user{no: o.no}}
	rigNo := rigs.Add(1)
	var n atomic.Int64
	ids := func() string { return fmt.Sprintf("r%dm%d", rigNo, n.Add(1)) }
	r.k = testkit.OpenWith(t, fake, path, func(st *store.Store) []runtime.Option {
		mem, err := memory.Open(t.Context(), st.DB(), st, append([]memory.Option{memory.WithIDs(ids)}, o.mem...)...)
		if err != nil {
			t.Fatal(err)
		}
		r.mem = mem
		var model *ollama.Provider
		if o.learn {
			u, _ := url.Parse(fake.URL())
			model = ollama.New(u, &http.Client{})
			mem.SetLearning(true)
		}
		if model != nil {
			r.post.Next = mem.Learner(model, testkit.Model, 8192)
		} else {
			r.post.Next = mem.Learner(nil, "", 0)
		}
		return []runtime.Option{runtime.WithFlushEvery(5 * time.Millisecond), runtime.WithTools(mem, toolset(o.tools)), runtime.WithAsker(r.user.ask),
			runtime.WithContributors(mem.Contributor()), runtime.WithSubscribers(r.post)}
	})
	r.mem.Attach(r.k.Runtime)
	return r
}

func (r *rig) chat(t *testing.T) string {
	t.Helper()
	s, err := protocol.Run[protocol.Session](t.Context(), r.k.Runtime, "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return s.ID
}

// say sends text and waits until its run has finished and the post-run
// step (which records searches and proposes memories) is over.
func (r *rig) say(t *testing.T, session, text string) string {
	t.Helper()
	res, err := protocol.Run[protocol.SendResult](t.Context(), r.k.Runtime, "", protocol.SendMessage,
		protocol.SendMessagePayload{Session: session, Text: text})
	if err != nil {
		t.Fatal(err)
	}
	r.k.Wait(t, session, "run "+res.RunID+" to finish", func(evs []event.Event) bool {
		for _, e := range evs {
			if e.Type == event.RunFinished && e.RunID == res.RunID {
				return true
			}
		}
		return false
	})
	r.post.Settled(t, res.RunID)
	return res.RunID
}

func (r *rig) log(t *testing.T, session string) []event.Event {
	t.Helper()
	return r.k.Log(t, session)
}

// items is every item in the memory.
func (r *rig) items(t *testing.T) []memory.Item {
	t.Helper()
	items, err := r.mem.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return items
}

// calling is a scripted reply that calls one tool with JSON arguments.
func calling(id, name, args string) ollamatest.Turn {
	return ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: id, Name: name, Arguments: json.RawMessage(args)}}}
}

func saying(text string) ollamatest.Turn { return ollamatest.Turn{Content: []string{text}} }

// workingZone is the working-memory system message of the n-th chat request
// the fake server received ("" if it had none).
func workingZone(t *testing.T, fake *ollamatest.Server, n int) string {
	t.Helper()
	reqs := fake.Requests()
	if n < 0 {
		n += len(reqs)
	}
	if n < 0 || n >= len(reqs) {
		t.Fatalf("request %d of %d", n, len(reqs))
	}
	for _, m := range reqs[n].Chat.Messages {
		if m.Role == "system" && strings.HasPrefix(m.Content, "Memory\n") {
			return m.Content
		}
	}
	return ""
}
