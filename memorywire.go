package main

import (
	"context"
	"log/slog"

	"quire/config"
	"quire/host/httpapi"
	"quire/kernel/runtime"
	"quire/memory"
)

// openMemory opens the memory index over the database and returns the
// runtime options that plug it in: the remember / forget tools, the
// working-memory zone and the post-run learner (which asks the chat model).
// Memory that cannot be opened is left off with a warning.
func (s *services) openMemory(ctx context.Context, emb memory.Embedder, log *slog.Logger) []runtime.Option {
	mem, err := memory.Open(ctx, s.store.DB(), s.store, memory.WithEmbedder(emb),
		memory.WithApproval(s.cfg.MemoryApproval), memory.WithLearning(s.cfg.MemoryLearn),
		memory.WithSettingsSaver(s.saveMemorySettings), memory.WithLogger(log))
	if err != nil {
		log.Error("memory could not be opened; the assistant will not remember", "err", err)
		return nil
	}
	s.mem = mem
	return []runtime.Option{runtime.WithTools(mem), runtime.WithContributors(mem.Contributor()),
		runtime.WithSubscribers(mem.Learner(s.ollama, s.cfg.Model, s.cfg.NumCtx))}
}

// memoryPanel is the memory panel's backend, or nil (a nil interface, not a
// nil pointer) when memory could not be opened: hosts then say so.
func (s *services) memoryPanel() httpapi.Memory {
	if s.mem == nil {
		return nil
	}
	return s.mem
}

// saveMemorySettings keeps the memory panel's settings in settings.json.
func (s *services) saveMemorySettings(approval, learn bool) error {
	saved, err := config.ReadSettings(s.cfg.DataDir)
	if err != nil {
		return err
	}
	saved.MemoryApproval, saved.MemoryLearn = approval, learn
	return config.WriteSettings(s.cfg.DataDir, saved)
}
