package notes

import (
	"context"
	"encoding/json"
	"sync"

	"quire/kernel/tool"
)

// ChangeKind says what a Change did, and so what undoing it does.
type ChangeKind string

const (
	// KindWrite: the note at Path went from Before to After (nil: absent).
	// Undo writes Before back (removes the note when Before is nil).
	KindWrite ChangeKind = "write"
	// KindMove: From was renamed to Path, and each of Edits rewritten (the
	// links to what moved). Undo renames it back and restores every edit.
	KindMove ChangeKind = "move"
	// KindMakeFolder: the folder Path was made. Undo removes it if empty.
	KindMakeFolder ChangeKind = "mkdir"
	// KindRemoveFolder: the empty folder Path was removed (by an undo).
	KindRemoveFolder ChangeKind = "rmdir"
)

// Change is one write by a note tool, returned as the Data of its result.
// The runtime keeps results in the event log, so the log holds the content
// a note had before each change; undo finds a change there by its ID.
//
// Paths are relative to the notes folder, slash-separated, with symbolic
// links resolved. The JSON names are part of the event log's format.
type Change struct {
	ID   string     `json:"id"`
	Tool string     `json:"tool"`
	Kind ChangeKind `json:"kind"`
	Path string     `json:"path"`
	From string     `json:"from,omitempty"` // a move's source
	// Before and After are the whole content of the note (KindWrite); nil
	// means the note did not exist.
	Before *string `json:"before"`
	After  *string `json:"after"`
	// SHA256 is the content of a moved file (KindMove), so undo can tell
	// whether it changed since without keeping a copy.
	SHA256    string `json:"sha256,omitempty"`
	RequestID string `json:"requestId,omitempty"` // create_note and move_note
	Undoes    string `json:"undoes,omitempty"`    // the change an undo reverted
	// Edits are the notes a move rewrote, in the same change (KindMove): the
	// links to what moved, and the relative links inside it. Absent in the
	// logs written before moves kept their links.
	Edits []FileEdit `json:"edits,omitempty"`
	// Made are the folders a move made for its destination, outermost
	// first: its undo removes them again when they are left empty.
	Made []string `json:"made,omitempty"`
}

// FileEdit is one note a move rewrote: its whole text before and after, at
// the path it had before the move (Path) and after it (NewPath, the same
// unless the note is among what moved).
type FileEdit struct {
	Path    string `json:"path"`
	NewPath string `json:"newPath"`
	Before  string `json:"before"`
	After   string `json:"after"`
	Links   int    `json:"links"` // links rewritten in it
}

// Links is how many links the change's edits rewrote.
func (c Change) Links() int {
	n := 0
	for _, e := range c.Edits {
		n += e.Links
	}
	return n
}

// ChangeLog finds a change by its ID. It is how undo reads the log; an
// implementation over the event log finds the tool result whose Data is
// the change (DecodeChange reads it back). It returns an error wrapping
// ErrNotFound when there is no such change.
type ChangeLog interface {
	Change(ctx context.Context, id string) (Change, error)
}

// DecodeChange reads a Change from a result's Data: the Change itself, or
// its JSON form as the event log gives it back. ok is false for anything
// else, such as the Data of a read or of a failure.
func DecodeChange(data any) (c Change, ok bool) {
	switch d := data.(type) {
	case Change:
		c = d
	case *Change:
		if d == nil {
			return Change{}, false
		}
		c = *d
	default:
		raw, err := json.Marshal(data)
		if err != nil || json.Unmarshal(raw, &c) != nil {
			return Change{}, false
		}
	}
	switch c.Kind {
	case KindWrite, KindMove, KindMakeFolder, KindRemoveFolder:
		return c, c.ID != "" && c.Path != ""
	}
	return Change{}, false
}

// MemoryLog is a ChangeLog kept in memory, for tests and for hosts that
// keep no event log. It is safe for concurrent use.
type MemoryLog struct {
	mu      sync.Mutex
	changes map[string]Change
}

// NewMemoryLog is an empty MemoryLog.
func NewMemoryLog() *MemoryLog { return &MemoryLog{changes: map[string]Change{}} }

// Record keeps the change a result carries, as the runtime's log would, and
// reports whether it carried one.
func (l *MemoryLog) Record(res tool.Result) bool {
	c, ok := DecodeChange(res.Data)
	if ok {
		l.mu.Lock()
		l.changes[c.ID] = c
		l.mu.Unlock()
	}
	return ok
}

// Change is the recorded change with this id, or an error wrapping ErrNotFound.
func (l *MemoryLog) Change(_ context.Context, id string) (Change, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c, ok := l.changes[id]
	if !ok {
		return Change{}, fail(ErrNotFound, "no change %q is recorded; use the change id given in a note tool's result", id)
	}
	return c, nil
}

// maxRequests bounds the request ids a Root remembers; the oldest go first.
const maxRequests = 1024

// requestBook remembers what create_note and move_note did per request id,
// in this process only. The runtime retries a Keyed call within the process
// that made it; after a restart it never re-runs a call that was in flight.
// Used under Root.mu.
type requestBook struct {
	order []string
	byKey map[string]request
}

type request struct {
	args   string // what was asked, to refuse an id reused for another request
	change Change
}

func (b *requestBook) get(key string) (request, bool) {
	q, ok := b.byKey[key]
	return q, ok
}

func (b *requestBook) put(key string, q request) {
	if b.byKey == nil {
		b.byKey = map[string]request{}
	}
	if _, ok := b.byKey[key]; !ok {
		b.order = append(b.order, key)
	}
	b.byKey[key] = q
	for len(b.order) > maxRequests {
		delete(b.byKey, b.order[0])
		b.order = b.order[1:]
	}
}
