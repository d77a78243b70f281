package main

import (
	"context"
	"log/slog"

	"quire/kernel/compact"
	"quire/kernel/provider/ollama"
)

// compaction is the history compaction the runtime asks before every step
// and on context overflow: the window is num_ctx capped by the model's
// trained context length from Ollama's /api/show. Working memory
// (compact.WithWorkingMemory) is wired in when memory/ provides it.
func compaction(o *ollama.Provider, log *slog.Logger) *compact.Compactor {
	window := compact.WindowFunc(func(ctx context.Context, model string) (int, error) {
		info, err := o.ModelInfo(ctx, model)
		return info.ContextLength, err
	})
	return compact.New(compact.WithWindow(window), compact.WithLogger(log))
}
