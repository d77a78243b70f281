package protocol

import "time"

// The Notes panel's shapes: the notes folder's tree (a folder at a time),
// a note's read-only preview, "Changes by Quire" with direct undo, and the
// preview of a proposed write on its note.

// NoteEntry is one file or folder of the notes tree. Path opens it; it is
// empty when the name is one Quire refuses (Refused says why), and Name has
// every invisible or control character written as its code (<U+202E>).
type NoteEntry struct {
	Name     string    `json:"name"`
	Path     string    `json:"path,omitempty"`
	Folder   bool      `json:"folder,omitempty"`
	Note     bool      `json:"note,omitempty"` // a Markdown or text note the preview shows
	Link     bool      `json:"link,omitempty"` // a symbolic link that stays inside the notes folder
	Size     int64     `json:"size"`
	Modified time.Time `json:"modified"`
	Refused  string    `json:"refused,omitempty"`
}

// NoteFolder is one folder of the tree, folders first. Omitted counts the
// entries past the bound of one listing. Root is the notes folder itself
// (absolute), so the panel can say which folder it shows.
type NoteFolder struct {
	Root    string      `json:"root"`
	Path    string      `json:"path"`
	Entries []NoteEntry `json:"entries"`
	Omitted int         `json:"omitted,omitempty"`
}

// NoteText is a note for the preview: at most Limit bytes of its text, cut
// at a line; Truncated says the note (Size bytes) goes on.
type NoteText struct {
	Path      string    `json:"path"`
	Text      string    `json:"text"`
	Size      int64     `json:"size"`
	Limit     int       `json:"limit"`
	Truncated bool      `json:"truncated,omitempty"`
	Modified  time.Time `json:"modified"`
}

// ChangeState is where a change by Quire stands.
type ChangeState string

const (
	// ChangeApplied: the note is as Quire left it; it can be undone.
	ChangeApplied ChangeState = "applied"
	// ChangeUndone: an undo reverted it (UndoneBy), or the note is back as it was.
	ChangeUndone ChangeState = "undone"
	// ChangeChangedSince: the note changed after Quire wrote it, so an undo
	// would lose the later changes and is refused; both versions can be seen.
	ChangeChangedSince ChangeState = "changed"
)

// ChangeRecord is one approved write by Quire, as "Changes by Quire" lists it.
type ChangeRecord struct {
	ID   string `json:"id"`
	Tool string `json:"tool"`
	// Kind is tools/notes' kind: write, move, mkdir, rmdir.
	Kind string `json:"kind"`
	Path string `json:"path"`
	From string `json:"from,omitempty"` // a move's source
	// Session is the conversation it came from, Title its title, Seq the
	// tool result that holds it, Time when it was made.
	Session string    `json:"session"`
	Title   string    `json:"title"`
	Seq     int64     `json:"seq"`
	Time    time.Time `json:"time"`
	// Diff is what it did: a diff of the lines (- before, + after), or
	// "from → to"; bounded, the last line saying what is not shown.
	Diff  string      `json:"diff"`
	State ChangeState `json:"state"`
	// UndoneBy is the undo that reverted it; ByYou says the user made it
	// here (not the model's undo tool).
	UndoneBy string `json:"undoneBy,omitempty"`
	ByYou    bool   `json:"byYou,omitempty"`
	// Undoes is the change this one reverted, when it is the model's undo.
	Undoes string `json:"undoes,omitempty"`
	// Reverse is the whole question an undo of it asks: the exact reverse
	// (what comes back, what is discarded), shown before the user says yes.
	Reverse string `json:"reverse"`
	// Edits are the notes a move rewrote the links of, each with its diff.
	Edits []NoteEdit `json:"edits,omitempty"`
}

// ChangeList is every change by Quire, newest first, across conversations;
// Omitted counts older ones past the bound.
type ChangeList struct {
	Changes []ChangeRecord `json:"changes"`
	Omitted int            `json:"omitted,omitempty"`
	// UndoAll is, per conversation, the changes "undo all changes of this
	// conversation" reverses, in the order it reverses them (newest first;
	// an undo the model made of the conversation's own change is left with
	// it, since the pair already cancels). The question lists these.
	UndoAll map[string][]string `json:"undoAll"`
	// Batches are the task queue's applied batches (their moves, tags and
	// links are the queue's own record, not a conversation's), newest
	// first, each one entry undone as one (host.Batches.Undo); at most
	// MaxListedBatches.
	Batches []AppliedBatch `json:"batches,omitempty"`
}

// MaxListedBatches bounds the batches "Changes by Quire" lists.
const MaxListedBatches = 50

// AppliedBatch is one applied batch as "Changes by Quire" lists it: the
// batch (State done, or undone once its undo ran) and the changes it made
// that still stand, oldest first (none once undone).
type AppliedBatch struct {
	Batch   Batch         `json:"batch"`
	Changes []BatchChange `json:"changes"`
}

// UndoOutcome is what an undo (or "undo all") did: Undone are the changes
// reverted, in order; Refused, when set, the one that was not and why
// (the changes after it in the list were not tried).
type UndoOutcome struct {
	Undone  []string     `json:"undone"`
	Refused *UndoRefusal `json:"refused,omitempty"`
}

// UndoRefusal is an undo Quire refused: Reason is a sentence for the user;
// ChangedSince says the note changed after Quire wrote it (so "see both
// versions" applies).
type UndoRefusal struct {
	ID           string `json:"id"`
	Path         string `json:"path"`
	Reason       string `json:"reason"`
	ChangedSince bool   `json:"changedSince,omitempty"`
}

// NoteVersions are the two versions of a note whose undo was refused:
// Quire's (what the change left) and the note as it is now (nil: there is
// none), each bounded like a preview.
type NoteVersions struct {
	ID        string  `json:"id"`
	Path      string  `json:"path"`
	Quire     *string `json:"quire"`
	Now       *string `json:"now"`
	Limit     int     `json:"limit"`
	Truncated bool    `json:"truncated,omitempty"`
}

// NoteLinks is a note's place in the notes folder's link graph, for the
// Notes panel: the notes linking to it and its links that lead nowhere,
// each list at most Limit long with its full count.
type NoteLinks struct {
	Path string `json:"path"`
	// Indexed is false while the notes index does not hold the note (not
	// indexed yet, hidden, or not a note); the lists are then empty.
	Indexed         bool       `json:"indexed"`
	Backlinks       []NoteLink `json:"backlinks"`
	Unresolved      []NoteLink `json:"unresolved"`
	BacklinkCount   int        `json:"backlinkCount"`
	UnresolvedCount int        `json:"unresolvedCount"`
	Limit           int        `json:"limit"`
}

// NoteLink is one link as written in a note.
type NoteLink struct {
	From   string `json:"from"`            // the note the link is in
	Target string `json:"target"`          // as written, without #sub
	Sub    string `json:"sub,omitempty"`   // heading or ^block after '#'
	Text   string `json:"text,omitempty"`  // the link's own text or alias
	Line   int    `json:"line"`            // 1-based, in From
	Embed  bool   `json:"embed,omitempty"` // ![[…]] or ![…](…)
	Wiki   bool   `json:"wiki,omitempty"`  // [[…]] rather than […](…)
}

// WritePreview is a proposed write shown on its note before the user
// answers: computed by the write's own code without writing. Before and
// After are the note's text (nil: no note), bounded like a preview; Diff
// the change as lines. Refused, when set, is why the write would fail.
type WritePreview struct {
	Tool      string  `json:"tool"`
	Kind      string  `json:"kind,omitempty"`
	Path      string  `json:"path,omitempty"`
	From      string  `json:"from,omitempty"`
	Before    *string `json:"before"`
	After     *string `json:"after"`
	Diff      string  `json:"diff"`
	Limit     int     `json:"limit"`
	Truncated bool    `json:"truncated,omitempty"`
	Refused   string  `json:"refused,omitempty"`
	// Edits are the notes a move would rewrite the links of, each with its
	// diff; Links counts the links in all.
	Edits []NoteEdit `json:"edits,omitempty"`
	Links int        `json:"links,omitempty"`
}

// NoteEdit is one note a move rewrites the links of, as a preview or a
// record shows it: where it is (and will be, when it moves with the move),
// how many links change and its diff, bounded like every diff.
type NoteEdit struct {
	Path    string `json:"path"`
	NewPath string `json:"newPath"`
	Links   int    `json:"links"`
	Diff    string `json:"diff"`
}
