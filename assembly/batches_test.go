package assembly

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"

	"quire/config"
	"quire/internal/datadir"
	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/queue"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

var organiseRe = regexp.MustCompile(`Organise the note (\S+)\. `)

// isolationModel answers the two conversations and the workers by what
// each is sent: A remembers a working note, B lists the notes, a worker
// proposes its note under projects/.
func isolationModel(req api.ChatRequest) (ollamatest.Turn, bool) {
	last := req.Messages[len(req.Messages)-1]
	call := func(name string, args any) ollamatest.Turn {
		raw, _ := json.Marshal(args)
		return ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{Name: name, Arguments: raw}}}
	}
	switch {
	case last.Role == "tool":
		return ollamatest.Turn{Content: []string{"Done."}}, true
	case strings.Contains(last.Content, "alpha-A first"):
		return call("remember", map[string]string{"kind": "working", "note": "conclusion", "text": "tea-in-A is the answer"}), true
	case strings.Contains(last.Content, "bravo-B"):
		return call("list_notes", map[string]any{}), true
	}
	if m := organiseRe.FindStringSubmatch(last.Content); m != nil {
		return call(queue.ProposeName, map[string]any{"path": "projects/" + filepath.Base(m[1]), "reason": "a project"}), true
	}
	return ollamatest.Turn{Content: []string{"ok"}}, true
}

// Two conversations and two batches at once never see each other's events,
// tools or memory writes: the conversations' feed carries no worker's
// event and the workers' none of a conversation; no worker is offered a
// tool that writes (nor organise_folder), no conversation propose; a
// working note A remembers reaches A's next request (the control) and no
// request of B's or of a worker, and is in A's log alone.
func TestConversationsAndBatchesAreIsolated(t *testing.T) {
	fake := ollamatest.New(t, ollamatest.WithResponder(isolationModel))
	fake.AddModel(ollamatest.DefaultModel())
	notesDir := t.TempDir()
	for i := range 4 {
		testkit.WriteOld(t, filepath.Join(notesDir, "inbox", fmt.Sprintf("i%d.md", i)), "# inbox note\n")
		testkit.WriteOld(t, filepath.Join(notesDir, "later", fmt.Sprintf("l%d.md", i)), "# later note\n")
	}
	p := batchOwner(t, fake, notesDir)
	ctx, stop := context.WithCancel(t.Context())
	defer stop()

	// Every event each feed delivers, by session.
	var mu sync.Mutex
	seen := map[string]map[string]bool{"conversations": {}, "workers": {}}
	var feeds sync.WaitGroup
	for name, k := range map[string]protocol.Kernel{"conversations": p.Kernel(), "workers": p.workers} {
		updates, _ := k.Watch(ctx)
		feeds.Add(1)
		go func() {
			defer feeds.Done()
			for u := range updates {
				mu.Lock()
				for _, e := range u.Events {
					seen[name][e.Session] = true
				}
				mu.Unlock()
			}
		}()
	}

	k := p.Kernel()
	newSession := func(title string) string {
		s, err := protocol.Run[protocol.Session](ctx, k, "", protocol.CreateSession, protocol.CreateSessionPayload{Title: title})
		if err != nil {
			t.Fatal(err)
		}
		return s.ID
	}
	send := func(session, text string) {
		if _, err := protocol.Run[protocol.SendResult](ctx, k, "", protocol.SendMessage, protocol.SendMessagePayload{Session: session, Text: text}); err != nil {
			t.Error(err)
		}
	}
	a, b := newSession("A"), newSession("B")
	batches := p.Batches()
	var first, second protocol.Batch
	var wg sync.WaitGroup
	wg.Go(func() { send(a, "alpha-A first: remember this") })
	wg.Go(func() { send(b, "bravo-B: what is there?") })
	wg.Go(func() {
		var err error
		if first, err = batches.Start(ctx, "inbox"); err != nil {
			t.Error(err)
		}
	})
	wg.Wait()
	asked := testkit.Until(t, k, a, "A's question", func(evs []protocol.Event) bool {
		return evs[len(evs)-1].Type == string(event.PermissionRequested)
	})
	var q event.PermissionRequestedPayload
	json.Unmarshal(asked[len(asked)-1].Payload, &q)
	if _, err := protocol.Run[json.RawMessage](ctx, k, "", protocol.AnswerAsk,
		protocol.AnswerPayload{Session: a, CallIDs: []string{q.Calls[0].ID}, Allowed: true}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitRuns(t, k, a, 1)
	// A's working note is written: now everyone works at once again.
	wg.Go(func() { send(a, "alpha-A again: and now?") })
	wg.Go(func() { send(b, "bravo-B again: and now?") })
	wg.Go(func() {
		var err error
		if second, err = batches.Start(ctx, "later"); err != nil {
			t.Error(err)
		}
	})
	wg.Wait()
	testkit.WaitRuns(t, k, a, 2)
	testkit.WaitRuns(t, k, b, 2)
	workerSessions := map[string]bool{}
	for _, id := range []string{first.ID, second.ID} {
		waitReviewing(t, batches, id)
		r, _ := batches.Get(ctx, id)
		for _, task := range r.Tasks {
			if task.State != protocol.TaskDone {
				t.Fatalf("task %s: %+v", task.Note, task)
			}
			workerSessions[task.Session] = true
		}
	}
	stop()
	feeds.Wait()

	for s := range seen["workers"] {
		if !workerSessions[s] {
			t.Errorf("the workers' feed carried an event of %s, not a worker's", s)
		}
	}
	for s := range seen["conversations"] {
		if workerSessions[s] {
			t.Errorf("the conversations' feed carried an event of the worker session %s", s)
		}
	}
	if len(seen["workers"]) != 8 || !seen["conversations"][a] || !seen["conversations"][b] {
		t.Fatalf("the feeds saw %v", seen)
	}

	// The workers' sessions are marked so: listed as such (the hosts leave
	// them out of the user's chats), and the search over what was said
	// finds only the chats.
	listed, err := k.Sessions(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, s := range listed {
		if workerSessions[s.ID] != (s.Kind == protocol.SessionWorker) {
			t.Errorf("session %s (%s) has kind %q", s.ID, s.Title, s.Kind)
		}
		kinds[s.Kind]++
	}
	if kinds[protocol.SessionWorker] != 8 || kinds[""] != 2 {
		t.Errorf("kinds listed %v, want 8 workers and 2 chats", kinds)
	}
	for _, c := range []struct {
		query string
		want  map[string]bool
	}{{"Organise the note", map[string]bool{}}, {"bravo", map[string]bool{b: true}}} {
		found, err := p.Conversations().Search(t.Context(), c.query, 0)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, h := range found.Hits {
			got[h.Session] = true
		}
		if !maps.Equal(got, c.want) {
			t.Errorf("search %q found sessions %v, want %v", c.query, got, c.want)
		}
	}

	control := false
	for _, r := range fake.Requests() {
		body := string(r.Body)
		var tools []string
		for _, tl := range r.Chat.Tools {
			tools = append(tools, tl.Function.Name)
		}
		user := lastUserText(r.Chat)
		switch {
		case organiseRe.MatchString(user):
			if strings.Contains(body, "tea-in-A") || strings.Contains(body, "alpha-A") || strings.Contains(body, "bravo-B") {
				t.Errorf("a worker was sent a conversation's words: %.300s", body)
			}
			if n := len(organiseRe.FindAllString(body, -1)); n != 1 {
				t.Errorf("a worker's request names %d notes", n)
			}
			for _, name := range tools {
				if name == "remember" || name == "forget" || name == "move_note" || name == queue.OrganiseName || name == "update_todos" {
					t.Errorf("a worker was offered %s (tools %v)", name, tools)
				}
			}
		case strings.Contains(user, "bravo-B"):
			if strings.Contains(body, "tea-in-A") || strings.Contains(body, "alpha-A") || strings.Contains(body, "Organise the note") {
				t.Errorf("B was sent another's words: %.300s", body)
			}
		case strings.Contains(user, "alpha-A again"):
			control = control || strings.Contains(body, "tea-in-A")
		}
		if !organiseRe.MatchString(user) {
			for _, name := range tools {
				if name == queue.ProposeName {
					t.Errorf("a conversation was offered propose")
				}
			}
		}
	}
	if !control {
		t.Fatal("A's own next request did not carry its working note: the isolation checks above prove nothing")
	}
	for s := range workerSessions {
		assertNoMemoryEvents(t, p, s, "") // a worker writes no memory at all
	}
	// B's own working memory (the attempts its run made) is B's; A's note is not in it.
	assertNoMemoryEvents(t, p, b, "tea-in-A")
}

// batchOwner is `quire serve`'s Parts over a new data folder and notesDir,
// with two batch workers, closed when the test ends.
func batchOwner(t *testing.T, fake *ollamatest.Server, notesDir string) *Parts {
	t.Helper()
	settings := config.NewStore(config.Config{DataDir: t.TempDir(), OllamaHost: fake.URL(), Model: "qwen3:4b", NumCtx: 8192,
		NotesDir: notesDir, Profile: "ask", Batch: config.BatchSettings{Workers: 2}})
	p, err := OpenWith(t.Context(), settings, slog.New(slog.DiscardHandler), Owner, Extras{Kind: datadir.Serve})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

func lastUserText(req api.ChatRequest) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			return req.Messages[i].Content
		}
	}
	return ""
}

// assertNoMemoryEvents fails when the session's log holds a memory event
// whose payload contains text ("": any memory event).
func assertNoMemoryEvents(t *testing.T, p *Parts, session, text string) {
	t.Helper()
	evs, err := p.Kernel().Events(t.Context(), session, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if strings.HasPrefix(e.Type, "memory.") && strings.Contains(string(e.Payload), text) {
			t.Errorf("session %s holds %s: %s", session, e.Type, e.Payload)
		}
	}
}

// waitReviewing waits on the batch stream until the batch is reviewing.
func waitReviewing(t *testing.T, b interface {
	Get(context.Context, string) (protocol.BatchReview, error)
	Watch(context.Context) <-chan protocol.BatchProgress
}, id string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Patience)
	defer cancel()
	stream := b.Watch(ctx)
	if r, err := b.Get(ctx, id); err == nil && r.Batch.State == protocol.BatchReviewing {
		return
	}
	for p := range stream {
		if p.Batch.ID == id && p.Batch.State == protocol.BatchReviewing {
			return
		}
	}
	t.Fatalf("batch %s never got to review", id)
}

// TestOrganiseIsOfferedOnlyWithANotesFolder: organise_folder organises
// the notes folder, so a conversation with none chosen is not offered it
// (issue 32: it was), and choosing one offers it from the next run on.
func TestOrganiseIsOfferedOnlyWithANotesFolder(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	s := openOwner(t, t.TempDir(), fake.URL())
	defer s.Close()
	sess, err := protocol.Run[protocol.Session](t.Context(), s.Kernel(), "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "o"})
	if err != nil {
		t.Fatal(err)
	}
	send := func(n int) []string {
		if _, err := protocol.Run[protocol.SendResult](t.Context(), s.Kernel(), "", protocol.SendMessage,
			protocol.SendMessagePayload{Session: sess.ID, Text: "organise the folder"}); err != nil {
			t.Fatal(err)
		}
		testkit.WaitRuns(t, s.Kernel(), sess.ID, n)
		return offered(fake, n-1)
	}
	if names := send(1); slices.Contains(names, queue.OrganiseName) {
		t.Fatalf("organise_folder offered with no notes folder (tools: %v)", names)
	}
	if err := s.Settings().SetNotesDir(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if names := send(2); !slices.Contains(names, queue.OrganiseName) {
		t.Fatalf("organise_folder not offered with a notes folder (tools: %v)", names)
	}
}
