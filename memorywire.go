package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"quire/config"
	"quire/kernel/protocol"
	"quire/kernel/runtime"
	"quire/memory"
)

// errNoMemory: the database could not be opened, so nothing is remembered.
var errNoMemory = fmt.Errorf("memory is not available because Quire's database could not be opened (%w); see the health checks", protocol.ErrConflict)

// openMemory opens the memory index over the database and returns the
// runtime options that plug it in: the remember / forget tools, the
// working-memory zone and the post-run learner (which asks the chat model).
// Memory that cannot be opened is left off with a warning.
func (s *services) openMemory(ctx context.Context, emb memory.Embedder, log *slog.Logger) []runtime.Option {
	mem, err := memory.Open(ctx, s.store.DB(), s.store, memory.WithEmbedder(emb),
		memory.WithApproval(s.cfg.MemoryApproval), memory.WithLearning(s.cfg.MemoryLearn), memory.WithLogger(log))
	if err != nil {
		log.Error("memory could not be opened; the assistant will not remember", "err", err)
		return nil
	}
	s.mem = mem
	return []runtime.Option{runtime.WithTools(mem), runtime.WithContributors(mem.Contributor()),
		runtime.WithSubscribers(mem.Learner(s.ollama, s.cfg.Model, s.cfg.NumCtx))}
}

// The memory panel's methods, shared by the window and `quire serve`.

// MemoryList is every item and the approval setting.
func (s *services) MemoryList(ctx context.Context) (protocol.MemoryList, error) {
	if s.mem == nil {
		return protocol.MemoryList{}, errNoMemory
	}
	items, err := s.mem.List(ctx)
	return protocol.MemoryList{Items: items, Approval: s.mem.Approval(), Learn: s.mem.Learning()}, err
}

// EditMemory replaces an item's text.
func (s *services) EditMemory(ctx context.Context, id, text string) (protocol.MemoryItem, error) {
	if s.mem == nil {
		return protocol.MemoryItem{}, errNoMemory
	}
	return s.mem.Edit(ctx, id, text)
}

// ForgetMemory forgets an item.
func (s *services) ForgetMemory(ctx context.Context, id string) error {
	if s.mem == nil {
		return errNoMemory
	}
	return s.mem.Forget(ctx, id, memory.ByUser)
}

// ReviewMemory approves or rejects a pending item.
func (s *services) ReviewMemory(ctx context.Context, id string, approve bool) error {
	if s.mem == nil {
		return errNoMemory
	}
	return s.mem.Review(ctx, id, approve)
}

// SetMemoryApproval turns approval of new long-term items on or off and
// saves it in the settings file.
func (s *services) SetMemoryApproval(_ context.Context, on bool) error {
	return s.saveMemorySetting(func(c *config.Config) { c.MemoryApproval = on }, s.mem.SetApproval, on)
}

// SetMemoryLearning turns proposals after each run on or off and saves it.
func (s *services) SetMemoryLearning(_ context.Context, on bool) error {
	return s.saveMemorySetting(func(c *config.Config) { c.MemoryLearn = on }, s.mem.SetLearning, on)
}

func (s *services) saveMemorySetting(edit func(*config.Config), set func(bool), on bool) error {
	if s.mem == nil {
		return errNoMemory
	}
	saved, err := config.ReadSettings(s.cfg.DataDir)
	if err != nil {
		return err
	}
	edit(&saved)
	if err := config.WriteSettings(s.cfg.DataDir, saved); err != nil {
		return errors.Join(errors.New("the setting could not be saved"), err)
	}
	set(on)
	return nil
}
