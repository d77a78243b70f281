package ollama

import (
	"context"
	"slices"
	"sync"
)

// Catalog answers what the installed models can do, from /api/show, asking
// Ollama once per model name: a run's start asks about its chat model, and
// each step's compaction asks its context length, so without the cache every
// step would cost a round trip. A failed answer is not kept (the next asks
// again); a model pulled anew under the same name keeps what was first
// answered until Forget. Answers are kept per Ollama address, so moving the
// adapter to another server (SetHost) asks that server afresh. It is safe
// for concurrent use.
type Catalog struct {
	p *Provider

	mu   sync.Mutex
	info map[catalogKey]ModelInfo
}

// catalogKey is a model as one Ollama server names it.
type catalogKey struct{ host, name string }

// NewCatalog returns a catalog over the adapter p.
func NewCatalog(p *Provider) *Catalog { return &Catalog{p: p, info: map[catalogKey]ModelInfo{}} }

// maxListed bounds how many installed models ToolModels asks about.
const maxListed = 32

// ModelInfo is Provider.ModelInfo, answered from the cache after the first
// success.
func (c *Catalog) ModelInfo(ctx context.Context, name string) (ModelInfo, error) {
	key := catalogKey{c.p.Host(), name}
	c.mu.Lock()
	info, ok := c.info[key]
	c.mu.Unlock()
	if ok {
		return info, nil
	}
	info, err := c.p.ModelInfo(ctx, name)
	if err != nil {
		return ModelInfo{}, err
	}
	c.mu.Lock()
	c.info[key] = info
	c.mu.Unlock()
	return info, nil
}

// Capabilities are the model's capabilities as Ollama names them.
func (c *Catalog) Capabilities(ctx context.Context, name string) ([]string, error) {
	info, err := c.ModelInfo(ctx, name)
	return slices.Clone(info.Capabilities), err
}

// ContextLength is the model's trained context length (0: Ollama did not
// say).
func (c *Catalog) ContextLength(ctx context.Context, name string) (int, error) {
	info, err := c.ModelInfo(ctx, name)
	return info.ContextLength, err
}

// ToolModels lists the installed models that can call tools, in /api/tags
// order (most recently modified first); a model Ollama cannot describe is
// left out. The list itself is asked every time: models come and go.
func (c *Catalog) ToolModels(ctx context.Context) ([]string, error) {
	names, err := c.p.Models(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range names[:min(len(names), maxListed)] {
		info, err := c.ModelInfo(ctx, n)
		if err != nil {
			if ctx.Err() != nil {
				return out, nil // what was found in time
			}
			continue
		}
		if slices.Contains(info.Capabilities, "tools") {
			out = append(out, n)
		}
	}
	return out, nil
}

// Forget drops what is known of a model (it was pulled again or deleted),
// under every name Ollama takes for it (Tiny-Text, tiny-text:latest).
func (c *Catalog) Forget(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for known := range c.info {
		if SameModel(known.name, name) {
			delete(c.info, known)
		}
	}
}
