package memory

import (
	"context"
	"errors"

	"quire/kernel/protocol"
)

// The memory panel's backend, as hosts (the window, `quire serve`) use it.

// WithSettingsSaver sets how the approval and learning settings are kept
// for the next start (the composition root saves them through config.Store). Without one they
// last until the store is closed.
func WithSettingsSaver(save func(approval, learn bool) error) Option {
	return func(s *Store) { s.save = save }
}

// MemoryList is every item and the settings. It catches up with the log
// first, so a deleted conversation's items are gone from the panel too.
func (s *Store) MemoryList(ctx context.Context) (protocol.MemoryList, error) {
	if err := s.CatchUp(ctx); err != nil {
		return protocol.MemoryList{}, err
	}
	items, err := s.List(ctx)
	return protocol.MemoryList{Items: items, Approval: s.Approval(), Learn: s.Learning()}, err
}

// EditMemory replaces an item's text (the user).
func (s *Store) EditMemory(ctx context.Context, id, text string) (protocol.MemoryItem, error) {
	return s.Edit(ctx, id, text)
}

// ForgetMemory forgets an item (the user).
func (s *Store) ForgetMemory(ctx context.Context, id string) error { return s.Forget(ctx, id, ByUser) }

// ReviewMemory approves or rejects a pending item.
func (s *Store) ReviewMemory(ctx context.Context, id string, approve bool) error {
	return s.Review(ctx, id, approve)
}

// SetMemoryApproval turns approval of new long-term items on or off and
// saves the settings.
func (s *Store) SetMemoryApproval(_ context.Context, on bool) error {
	return s.saveSettings(on, s.Learning(), func() { s.SetApproval(on) })
}

// SetMemoryLearning turns proposals after each run on or off and saves the
// settings.
func (s *Store) SetMemoryLearning(_ context.Context, on bool) error {
	return s.saveSettings(s.Approval(), on, func() { s.SetLearning(on) })
}

func (s *Store) saveSettings(approval, learn bool, apply func()) error {
	s.settingsMu.Lock()
	defer s.settingsMu.Unlock()
	if s.save != nil {
		if err := s.save(approval, learn); err != nil {
			return errors.Join(errors.New("the memory setting could not be saved; nothing changed"), err)
		}
	}
	apply()
	return nil
}
