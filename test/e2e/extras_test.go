//go:build e2e

package e2e

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"quire/kernel/tool"
	"quire/rag"
)

// What the browser cases add to `quire serve`'s own parts (assembly.Extras):
// two slow read tools, the compaction case's read_log (compaction_test.go)
// and a slow embedder. Everything else the cases use — the note tools on
// the folder the page chooses, the undo change log, the plan tools and
// reminder, memory, search_docs, the asker that leaves a question open for
// the page — is the product's own.

// gardenNotes is what read_file returns: more lines than a card shows at first.
const gardenNotes = "# Garden\n- Water the tomatoes daily\n- Sow basil in May\n- Prune the roses in March\n" +
	"- Mulch the beds before summer\n- Net the strawberries\n- Compost: turn it weekly\n- Order seeds for next year"

// slowPair are the two slow read-only calls of toolPrompt, run in parallel:
// search_garden takes a while, and read_file ends after it, so the page shows
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
	search := caseTool{spec("search_garden", map[string]any{"query": str, "limit": map[string]any{"type": "integer"}}), func(ctx context.Context) (string, error) {
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

// slowEmbedder is the embedder Quire picked (the fake Ollama's embedding
// model) on a slow machine: a text with slowMark takes a while, so the page
// sees the bar count files; one with holdMark waits until its pass is
// stopped, the first time (a later pass that picks it up embeds it).
type slowEmbedder struct {
	rag.Embedder
	held atomic.Bool
}

var errHeld = errors.New("held until the pass is stopped")

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
	return e.Embedder.Embed(ctx, texts)
}

// The words in a document that make its embedding slow, or wait.
const (
	slowMark = "(slowly embedded)"
	holdMark = "(embedded only when stopped)"
)
