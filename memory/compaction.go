package memory

import (
	"context"
	"strings"

	"quire/kernel/compact"
)

// Compaction is the store as kernel/compact's working memory, where the
// "extract structured facts" strategy files what it found. A compaction's
// "fact" is a conclusion reached in this session (not a long-term fact the
// user has not seen), and a text over MaxText is clipped rather than losing
// the whole extraction; empty texts are dropped.
func (s *Store) Compaction() compact.WorkingMemory { return compactionNotes{s} }

type compactionNotes struct{ s *Store }

func (c compactionNotes) NoteWorking(ctx context.Context, session string, items []compact.Item, sources []int64) error {
	notes := make([]WorkingItem, 0, len(items))
	for _, it := range items {
		note := it.Kind
		if note != OpenTask && note != Attempt {
			note = Conclusion
		}
		text := strings.TrimSpace(it.Text)
		if text == "" {
			continue
		}
		notes = append(notes, WorkingItem{Note: note, Text: clip(text, MaxText)})
	}
	return c.s.NoteWorking(ctx, session, notes, sources)
}
