package notes

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"quire/kernel/event"
	"quire/kernel/store"
)

// countingLog is the real store, counting the sessions whose events are read.
type countingLog struct {
	*store.Store
	mu    sync.Mutex
	reads map[string]int
}

func (c *countingLog) EventsOfType(ctx context.Context, session string, typ event.Type) ([]event.Event, error) {
	c.mu.Lock()
	c.reads[session]++
	c.mu.Unlock()
	return c.Store.EventsOfType(ctx, session, typ)
}

func (c *countingLog) readsOf(session string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reads[session]
}

// TestChangeIndexReadsOnlyWhatIsNew: a change is found in whichever
// conversation made it; a conversation that has not grown is not read again
// to find a change elsewhere; a change in a deleted conversation is gone.
func TestChangeIndexReadsOnlyWhatIsNew(t *testing.T) {
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "quire.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	text := "a"
	result := func(c Change) event.Draft {
		return event.Draft{Type: event.ToolResult, Time: at, Payload: event.ToolResultPayload{Name: c.Tool, Status: "success", Content: "ok", Data: c}}
	}
	write := func(session, id string) {
		t.Helper()
		if _, err := st.Append(t.Context(), session, result(Change{ID: id, Tool: "create_note", Kind: KindWrite, Path: id + ".md", After: &text})); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []string{"old", "busy"} {
		if _, _, err := st.CreateSession(t.Context(), s, s, at, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	write("old", "chg_old")
	write("busy", "chg_busy1")
	log := &countingLog{Store: st, reads: map[string]int{}}
	x := NewChangeIndex(log)

	c, err := x.Change(t.Context(), "chg_old")
	if err != nil || c.Path != "chg_old.md" || c.Kind != KindWrite {
		t.Fatalf("change %+v, %v", c, err)
	}
	oldReads := log.readsOf("old")
	write("busy", "chg_busy2")
	if c, err := x.Change(t.Context(), "chg_busy2"); err != nil || c.Path != "chg_busy2.md" {
		t.Fatalf("a later change: %+v, %v", c, err)
	}
	if _, err := x.Change(t.Context(), "chg_missing"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a change nobody made: %v", err)
	}
	if log.readsOf("old") != oldReads {
		t.Fatalf("the unchanged conversation was read %d more times", log.readsOf("old")-oldReads)
	}

	if _, err := st.DeleteSession(t.Context(), "old", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Change(t.Context(), "chg_old"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a change of a deleted conversation: %v", err)
	}
	// The next catch-up forgets the deleted conversation altogether.
	if _, err := x.Change(t.Context(), "chg_missing"); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	x.mu.Lock()
	_, scanned := x.scanned["old"]
	indexed := len(x.at)
	x.mu.Unlock()
	if scanned || indexed != 2 {
		t.Fatalf("after the delete the index keeps old: %v, %d changes (want busy's 2)", scanned, indexed)
	}
}
