package main

import (
	"context"
	"log/slog"
	"strings"

	"quire/kernel/compact"
	"quire/kernel/provider/ollama"
	"quire/memory"
)

// compaction is the history compaction the runtime asks before every step
// and on context overflow: the window is num_ctx capped by the model's
// trained context length from Ollama's /api/show. Facts it extracts go to
// the session's working memory when memory/ opened (mem may be nil).
func compaction(o *ollama.Provider, mem *memory.Store, log *slog.Logger) *compact.Compactor {
	window := compact.WindowFunc(func(ctx context.Context, model string) (int, error) {
		info, err := o.ModelInfo(ctx, model)
		return info.ContextLength, err
	})
	opts := []compact.Option{compact.WithWindow(window), compact.WithLogger(log)}
	if mem != nil {
		opts = append(opts, compact.WithWorkingMemory(workingMemory{mem}))
	}
	return compact.New(opts...)
}

// workingMemory files what compaction extracted as the session's working
// memory. Compaction's "fact" is a conclusion reached in this session (not a
// long-term fact the user has not seen), and a text over memory's limit is
// clipped rather than losing the whole extraction.
type workingMemory struct{ m *memory.Store }

func (w workingMemory) NoteWorking(ctx context.Context, session string, items []compact.Item, sources []int64) error {
	notes := make([]memory.WorkingItem, 0, len(items))
	for _, it := range items {
		note := it.Kind
		if note != memory.OpenTask && note != memory.Attempt {
			note = memory.Conclusion
		}
		text := []rune(strings.TrimSpace(it.Text))
		if len(text) == 0 {
			continue
		}
		if len(text) > memory.MaxText {
			text = append(text[:memory.MaxText-1], '…')
		}
		notes = append(notes, memory.WorkingItem{Note: note, Text: string(text)})
	}
	if len(notes) == 0 {
		return nil
	}
	return w.m.NoteWorking(ctx, session, notes, sources)
}
