//go:build e2e

package e2e

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"quire/kernel/event"
	"quire/kernel/provider/ollama"
	"quire/kernel/runtime"
	"quire/kernel/store"
	"quire/kernel/tool"
	"quire/tools/notes"
	"quire/tools/todo"
)

// The backend's parts that package main assembles for `quire serve` and the
// cases need too: the note tools on the folder the user chooses (a setting
// the page changes), the plan tools, and an asker that leaves a question
// open for the page to answer. They follow wire.go and notes.go; once the
// composition root is a package of its own, the test takes them from there.

// notesFolder is the notes folder setting and the note tools on it.
type notesFolder struct {
	store *store.Store

	mu   sync.Mutex
	dir  string
	root *notes.Root
}

func (n *notesFolder) Tools() []tool.Tool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.root == nil {
		return nil
	}
	return notes.Tools(n.root, changeLog{n.store})
}

func (n *notesFolder) NotesDir() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.dir
}

func (n *notesFolder) SetNotesDir(dir string) error {
	var root *notes.Root
	if dir != "" {
		r, err := notes.Open(dir)
		if err != nil {
			return fmt.Errorf("the notes folder %s cannot be used: %w", dir, err)
		}
		root = r
	}
	n.mu.Lock()
	old := n.root
	n.root, n.dir = root, dir
	n.mu.Unlock()
	if old != nil {
		old.Close()
	}
	return nil
}

// changeLog finds a note change in the event log, for undo.
type changeLog struct{ store *store.Store }

func (c changeLog) Change(ctx context.Context, id string) (notes.Change, error) {
	sessions, err := c.store.Sessions(ctx)
	if err != nil {
		return notes.Change{}, err
	}
	for _, s := range sessions {
		evs, err := c.store.EventsOfType(ctx, s.ID, event.ToolResult)
		if err != nil {
			return notes.Change{}, err
		}
		for _, e := range evs {
			if p, err := event.As[event.ToolResultPayload](e); err == nil {
				if ch, ok := notes.DecodeChange(p.Data); ok && ch.ID == id {
					return ch, nil
				}
			}
		}
	}
	return notes.Change{}, fmt.Errorf("%w: no change %s in the log", notes.ErrNotFound, id)
}

type todoTools struct{}

func (todoTools) Tools() []tool.Tool { return todo.Tools() }

// askInPage leaves a permission question open until the page answers it
// (protocol.AnswerAsk) or the run ends, as `quire serve` does.
func askInPage(ctx context.Context, _ runtime.Question) (runtime.Answer, error) {
	<-ctx.Done()
	return runtime.Answer{}, context.Cause(ctx)
}

// gardenNotes is what read_file returns: more lines than a card shows at first.
const gardenNotes = "# Garden\n- Water the tomatoes daily\n- Sow basil in May\n- Prune the roses in March\n" +
	"- Mulch the beds before summer\n- Net the strawberries\n- Compost: turn it weekly\n- Order seeds for next year"

// slowPair are the two slow read-only calls of toolPrompt, run in parallel:
// search_notes takes a while, and read_file ends after it, so the page shows
// both running, then the second done first, and has time to send a steer or
// a follow-up meanwhile.
type slowPair struct{ searched chan struct{} }

const slowCall = 1500 * time.Millisecond

func newSlowPair() slowPair { return slowPair{searched: make(chan struct{}, 1)} }

func (p slowPair) Tools() []tool.Tool {
	spec := func(name string, props map[string]any) tool.Spec {
		return tool.Spec{Name: name, Description: "A slow read for the browser cases.", Effects: tool.ReadFs, Idempotency: tool.Safe, Parallel: true,
			Parameters: map[string]any{"type": "object", "properties": props}}
	}
	str := map[string]any{"type": "string"}
	search := caseTool{spec("search_notes", map[string]any{"query": str, "limit": map[string]any{"type": "integer"}}), func(ctx context.Context) (string, error) {
		if err := pause(ctx, slowCall); err != nil {
			return "", err
		}
		select {
		case p.searched <- struct{}{}:
		default:
		}
		return "garden.md:2: - Water the tomatoes daily", nil
	}}
	read := caseTool{spec("read_file", map[string]any{"path": str}), func(ctx context.Context) (string, error) {
		select {
		case <-p.searched:
		case <-ctx.Done():
			return "", context.Cause(ctx)
		}
		if err := pause(ctx, slowCall*2/3); err != nil {
			return "", err
		}
		return gardenNotes, nil
	}}
	return []tool.Tool{read, search}
}

// pause is how long a slow tool works; a cancel ends it.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

type caseTool struct {
	spec tool.Spec
	run  func(ctx context.Context) (string, error)
}

func (c caseTool) Spec() tool.Spec { return c.spec }
func (c caseTool) Run(ctx context.Context, _ tool.Call) (tool.Result, error) {
	out, err := c.run(ctx)
	if err != nil {
		return tool.Result{Status: tool.Cancelled, Content: "Stopped before it finished."}, nil
	}
	return tool.Result{Status: tool.Success, Content: out}, nil
}

// embedModel is the embedding model the fake Ollama has, so documents get
// meaning search as with a real Ollama.
const embedModel = "nomic-embed-text"

// slowEmbedder is the Ollama embedder (wire.go's) on a slow machine: a text
// with slowMark takes a while, so the page sees the bar count files; one with
// holdMark waits until its pass is stopped, the first time (a later pass that
// picks it up embeds it).
type slowEmbedder struct {
	p    *ollama.Provider
	held atomic.Bool
}

var errHeld = errors.New("held until the pass is stopped")

func (e *slowEmbedder) Name() string { return "ollama:" + embedModel }
func (e *slowEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	for _, t := range texts {
		switch {
		case strings.Contains(t, holdMark) && !e.held.Swap(true):
			<-ctx.Done()
			return nil, fmt.Errorf("%w: %w", errHeld, context.Cause(ctx))
		case strings.Contains(t, slowMark):
			if err := pause(ctx, time.Second); err != nil {
				return nil, err
			}
		}
	}
	return e.p.Embed(ctx, embedModel, texts)
}

// The words in a document that make its embedding slow, or wait.
const (
	slowMark = "(slowly embedded)"
	holdMark = "(embedded only when stopped)"
)
