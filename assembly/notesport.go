package assembly

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"quire/host"
	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/runtime"
	"quire/kernel/store"
	"quire/kernel/tool"
	"quire/tools/notes"
	"quire/vault"
	"quire/vaultindex"
)

// Notes is the Notes panel's back end for both hosts, or nil (a nil
// interface) when there is no log to read changes from or write undos to
// (a Reader, a database that did not open).
func (p *Parts) Notes() host.Notes {
	if p.mode == Reader || p.store == nil || p.runtime == nil || p.notes == nil {
		return nil
	}
	n := &NotesPort{tools: p.notes, store: p.store, log: p.runtime, now: p.clock()}
	if b := p.Batches(); b != nil {
		n.batches = b
	}
	return n
}

func (p *Parts) clock() func() time.Time {
	if p.now != nil {
		return p.now
	}
	return time.Now
}

// NotesPort is host.Notes over the note tools of the folder the settings
// name now and the change index over the event log.
type NotesPort struct {
	tools *notesTools
	store *store.Store
	log   *runtime.Runtime // AppendPlain: the user's undo goes into the log of the conversation that made the change
	now   func() time.Time
	// batches are the task queue's, whose applied batches the list shows;
	// nil when the queue is off.
	batches batchRecords
}

// batchRecords is what the Notes panel reads of the task queue.
type batchRecords interface {
	List(ctx context.Context) ([]protocol.Batch, error)
	Get(ctx context.Context, id string) (protocol.BatchReview, error)
}

// The errors a host turns into a status: what the user asked for is not
// there, or cannot be asked for.
var (
	errNoNotesFolder = fmt.Errorf("no notes folder is chosen; choose one with the notes folder button, then look again: %w", protocol.ErrNotFound)
	// recordTimeout bounds the append of an undo that has landed on the
	// disk: it must be recorded even if the asker went away.
	recordTimeout = 5 * time.Second
)

// root is the notes folder the tools use now.
func (n *NotesPort) root() (*notes.Root, error) {
	n.tools.mu.Lock()
	defer n.tools.mu.Unlock()
	if n.tools.root == nil {
		return nil, errNoNotesFolder
	}
	return n.tools.root, nil
}

// classify gives a note tool's refusal the protocol's class, keeping its words.
func classify(err error) error {
	switch {
	case errors.Is(err, notes.ErrNotFound):
		return fmt.Errorf("%w (%w)", err, protocol.ErrNotFound)
	case errors.Is(err, notes.ErrOutsideRoot), errors.Is(err, notes.ErrBadPath), errors.Is(err, notes.ErrNotNote),
		errors.Is(err, notes.ErrBinary), errors.Is(err, tool.ErrInvalidArgs), errors.Is(err, notes.ErrNotWrite):
		return fmt.Errorf("%w (%w)", err, protocol.ErrBadPayload)
	}
	return err
}

// Tree lists one folder of the notes tree.
func (n *NotesPort) Tree(ctx context.Context, path string) (protocol.NoteFolder, error) {
	r, err := n.root()
	if err != nil {
		return protocol.NoteFolder{}, err
	}
	if path == "" {
		path = "."
	}
	f, err := r.Folder(ctx, path)
	if err != nil {
		return protocol.NoteFolder{}, classify(err)
	}
	out := protocol.NoteFolder{Root: r.Dir(), Path: f.Path, Omitted: f.Omitted, Entries: make([]protocol.NoteEntry, len(f.Entries))}
	for i, e := range f.Entries {
		out.Entries[i] = protocol.NoteEntry(e)
	}
	return out, nil
}

// Read is a note's text for the preview, bounded.
func (n *NotesPort) Read(ctx context.Context, path string) (protocol.NoteText, error) {
	r, err := n.root()
	if err != nil {
		return protocol.NoteText{}, err
	}
	t, err := r.Note(ctx, path)
	if err != nil {
		return protocol.NoteText{}, classify(err)
	}
	return protocol.NoteText{Path: t.Path, Text: t.Text, Size: t.Size, Limit: notes.MaxPreviewBytes, Truncated: t.Truncated, Modified: t.Modified}, nil
}

// Changes is every change by Quire, newest first, with where each stands.
func (n *NotesPort) Changes(ctx context.Context) (protocol.ChangeList, error) {
	list, omitted, err := n.tools.changes.List(ctx)
	if err != nil {
		return protocol.ChangeList{}, err
	}
	applied, err := n.appliedBatches(ctx)
	if err != nil {
		return protocol.ChangeList{}, err
	}
	titles, err := n.titles(ctx)
	if err != nil {
		return protocol.ChangeList{}, err
	}
	r, _ := n.root() // with no folder, every change is shown as it was logged
	stand := standings(list, r)
	out := protocol.ChangeList{Changes: make([]protocol.ChangeRecord, 0, len(list)), Omitted: omitted, UndoAll: map[string][]string{}, Batches: applied}
	for _, l := range list {
		out.Changes = append(out.Changes, changeRecord(l, titles[l.Session], stand))
	}
	if r != nil {
		for _, l := range list {
			if _, ok := out.UndoAll[l.Session]; !ok {
				out.UndoAll[l.Session] = undoAllOf(list, l.Session, stand)
			}
		}
	}
	return out, nil
}

// appliedBatches are the batches whose apply changed notes, newest first
// (the queue's List order): done with notes changed, or undone since.
func (n *NotesPort) appliedBatches(ctx context.Context) ([]protocol.AppliedBatch, error) {
	out := []protocol.AppliedBatch{}
	if n.batches == nil {
		return out, nil
	}
	all, err := n.batches.List(ctx)
	if err != nil {
		return nil, err
	}
	for _, b := range all {
		if len(out) == protocol.MaxListedBatches {
			break
		}
		if b.State != protocol.BatchUndone && (b.State != protocol.BatchDone || b.Applied == 0) {
			continue
		}
		r, err := n.batches.Get(ctx, b.ID)
		if err != nil {
			return nil, err
		}
		changes := r.Changes
		if changes == nil {
			changes = []protocol.BatchChange{}
		}
		out = append(out, protocol.AppliedBatch{Batch: r.Batch, Changes: changes})
	}
	return out, nil
}

// standings reads, once per change not undone in the log, where it stands
// on the disk (none without a notes folder: each is then shown as the log
// has it).
func standings(list []notes.Logged, r *notes.Root) map[string]notes.Standing {
	stand := make(map[string]notes.Standing, len(list))
	if r == nil {
		return stand
	}
	for _, l := range list {
		if l.UndoneBy == "" {
			stand[l.Change.ID] = r.Standing(l.Change)
		}
	}
	return stand
}

// undoAllOf is what "undo all" reverses in session, newest first: every
// change still standing, except an undo by the model of a change the same
// conversation made (the change is listed as undone; the pair cancels).
func undoAllOf(list []notes.Logged, session string, stand map[string]notes.Standing) []string {
	sessionOf := make(map[string]string, len(list))
	for _, l := range list {
		sessionOf[l.Change.ID] = l.Session
	}
	ids := []string{}
	for _, l := range list {
		switch {
		case l.Session != session, l.UndoneBy != "":
		case l.Change.Undoes != "" && sessionOf[l.Change.Undoes] == session:
		case stand[l.Change.ID] == notes.Reverted:
		default:
			ids = append(ids, l.Change.ID)
		}
	}
	return ids
}

func (n *NotesPort) titles(ctx context.Context) (map[string]string, error) {
	sessions, err := n.store.Sessions(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the conversations: %w", err)
	}
	titles := make(map[string]string, len(sessions))
	for _, s := range sessions {
		titles[s.ID] = s.Title
	}
	return titles, nil
}

func changeRecord(l notes.Logged, title string, stand map[string]notes.Standing) protocol.ChangeRecord {
	c := l.Change
	nc := protocol.ChangeRecord{ID: c.ID, Tool: c.Tool, Kind: string(c.Kind), Path: c.Path, From: c.From, Session: l.Session, Title: title,
		Seq: l.Seq, Time: l.Time, Diff: c.Diff(), UndoneBy: l.UndoneBy, ByYou: l.ByUser, Undoes: c.Undoes, Reverse: notes.UndoText(c), State: protocol.ChangeApplied}
	nc.Edits = noteEdits(c)
	switch {
	case l.UndoneBy != "", stand[c.ID] == notes.Reverted:
		nc.State = protocol.ChangeUndone
	case stand[c.ID] == notes.ChangedSince:
		nc.State = protocol.ChangeChangedSince
	}
	return nc
}

// Undo reverts the change id and records the undo in its conversation.
func (n *NotesPort) Undo(ctx context.Context, id string) (protocol.UndoOutcome, error) {
	r, err := n.root()
	if err != nil {
		return protocol.UndoOutcome{}, err
	}
	return n.undo(ctx, r, []string{id})
}

// UndoAll reverts the standing changes of a conversation, newest first, when
// they are exactly ids (what the user was shown and said yes to).
func (n *NotesPort) UndoAll(ctx context.Context, session string, ids []string) (protocol.UndoOutcome, error) {
	r, err := n.root()
	if err != nil {
		return protocol.UndoOutcome{}, err
	}
	list, _, err := n.tools.changes.List(ctx)
	if err != nil {
		return protocol.UndoOutcome{}, err
	}
	if !slices.Equal(undoAllOf(list, session, standings(list, r)), ids) {
		return protocol.UndoOutcome{}, fmt.Errorf("the changes of this conversation are not the ones you were shown any more (one was made or undone meanwhile), so nothing was undone; look at the list again: %w", protocol.ErrConflict)
	}
	return n.undo(ctx, r, ids)
}

// undo reverts ids in order through the note tools' own undo, appending
// each undo to the log of the conversation that made the change before the
// next starts, and stops at the first refusal.
func (n *NotesPort) undo(ctx context.Context, r *notes.Root, ids []string) (protocol.UndoOutcome, error) {
	out := protocol.UndoOutcome{Undone: []string{}}
	done, err := r.UndoAll(ctx, n.tools.changes, ids, func(id string, res tool.Result) error {
		_, session, err := n.tools.changes.Find(ctx, id)
		if err != nil {
			return err
		}
		// The note is already restored: record it even if the asker left.
		rec, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
		defer cancel()
		_, err = n.log.AppendPlain(rec, session, event.Draft{Type: event.NoteUndone, Time: n.now(),
			Payload: event.NoteUndonePayload{Undoes: id, Change: res.Data, Text: res.Content}})
		if err != nil {
			return fmt.Errorf("the note was restored, but Quire could not record the undo in the conversation: %w", err)
		}
		return nil
	})
	out.Undone = append(out.Undone, done...)
	if err == nil {
		return out, nil
	}
	if len(done) == len(ids) {
		return out, err // the last record failed: the undo happened, its record did not
	}
	refused := ids[len(done)]
	c, cerr := n.tools.changes.Change(ctx, refused)
	if cerr != nil {
		return out, classify(cerr)
	}
	if !errors.Is(err, notes.ErrChanged) && !errors.Is(err, notes.ErrExists) && !notAFolderNote(err) {
		return out, err
	}
	out.Refused = refusal(c, r, err)
	return out, nil
}

// notAFolderNote: the note tools refused the path the change names as it
// now is — a link out of the notes folder, or no note — which is the note
// changed since, not a failure.
func notAFolderNote(err error) bool {
	return errors.Is(err, notes.ErrOutsideRoot) || errors.Is(err, notes.ErrBadPath) || errors.Is(err, notes.ErrNotNote)
}

// refusal is the user's sentence for an undo the note tools refused.
func refusal(c notes.Change, r *notes.Root, err error) *protocol.UndoRefusal {
	u := &protocol.UndoRefusal{ID: c.ID, Path: c.Path}
	switch {
	case notAFolderNote(err):
		u.Reason = fmt.Sprintf("%s is no longer a note inside the notes folder (it is now a link out of it, or not a note), so Quire left it as it is. Look at it by hand.", c.Path)
	case r.Standing(c) == notes.Reverted:
		u.Reason = fmt.Sprintf("This change is already undone: %s is as it was before it.", c.Path)
	case errors.Is(err, notes.ErrExists):
		u.Reason = fmt.Sprintf("%s exists again, so moving %s back would replace it. Move or rename it first, then undo again.", c.From, c.Path)
	case c.Kind == notes.KindWrite:
		u.Reason = fmt.Sprintf("%s changed after Quire wrote it, so undoing this change would lose the later changes. See both versions to compare them, and change the note by hand if you still want it back.", c.Path)
		u.ChangedSince = true
	case c.Kind == notes.KindMove && len(c.Edits) > 0:
		// The note that changed may be one whose links the move rewrote:
		// the note tools' sentence names it.
		u.Reason = fmt.Sprintf("Quire left everything as it is: %s.", strings.TrimSuffix(err.Error(), "."))
	default:
		u.Reason = fmt.Sprintf("%s changed after Quire moved or made it, so Quire left it as it is. Change it by hand if you still want it back.", c.Path)
	}
	return u
}

// Versions are what the change left in the note and the note now.
func (n *NotesPort) Versions(ctx context.Context, id string) (protocol.NoteVersions, error) {
	r, err := n.root()
	if err != nil {
		return protocol.NoteVersions{}, err
	}
	c, err := n.tools.changes.Change(ctx, id)
	if err != nil {
		return protocol.NoteVersions{}, classify(err)
	}
	if c.Kind != notes.KindWrite {
		return protocol.NoteVersions{}, fmt.Errorf("the change %s moved or made a folder; it has no text to compare: %w", id, protocol.ErrBadPayload)
	}
	now, ok := r.Current(c.Path)
	if !ok {
		return protocol.NoteVersions{}, fmt.Errorf("%s cannot be read as a note now: %w", c.Path, protocol.ErrConflict)
	}
	v := protocol.NoteVersions{ID: id, Path: c.Path, Limit: notes.MaxPreviewBytes}
	var cut bool
	v.Quire, cut = clip(c.After)
	v.Truncated = cut
	v.Now, cut = clip(now)
	v.Truncated = v.Truncated || cut
	return v, nil
}

// Preview is the write a note tool would make, by a dry run of its code.
func (n *NotesPort) Preview(ctx context.Context, name string, args json.RawMessage) (protocol.WritePreview, error) {
	r, err := n.root()
	if err != nil {
		return protocol.WritePreview{}, err
	}
	c, err := r.Preview(ctx, name, args)
	if errors.Is(err, notes.ErrNotWrite) {
		return protocol.WritePreview{}, classify(err)
	}
	p := protocol.WritePreview{Tool: name, Limit: notes.MaxPreviewBytes}
	if err != nil {
		p.Refused = "Quire would refuse this write, whatever you answer: " + err.Error()
		return p, nil
	}
	var cut bool
	p.Kind, p.Path, p.From, p.Diff = string(c.Kind), c.Path, c.From, c.Diff()
	p.Edits, p.Links = noteEdits(c), c.Links()
	p.Before, cut = clip(c.Before)
	p.Truncated = cut
	p.After, cut = clip(c.After)
	p.Truncated = p.Truncated || cut
	return p, nil
}

// noteEdits are the notes a move rewrote, each with its bounded diff (a
// host is sent diffs, never the notes' whole texts).
func noteEdits(c notes.Change) []protocol.NoteEdit {
	var out []protocol.NoteEdit
	for _, e := range c.Edits {
		out = append(out, protocol.NoteEdit{Path: e.Path, NewPath: e.NewPath, Links: e.Links, Diff: e.Diff()})
	}
	return out
}

// clip bounds a note's text a host is sent to what a preview shows.
func clip(s *string) (*string, bool) {
	if s == nil || len(*s) <= notes.MaxPreviewBytes {
		return s, false
	}
	cut := (*s)[:notes.MaxPreviewBytes]
	for i := 0; i < utf8.UTFMax && !utf8.ValidString(cut); i++ {
		cut = cut[:len(cut)-1] // never half a character
	}
	return &cut, true
}

// linksLimit bounds each list the Notes panel gets of a note's links.
const linksLimit = 200

// Links are a note's backlinks and unresolved links from the chosen
// folder's index; a note the index does not hold comes back not Indexed.
func (n *NotesPort) Links(ctx context.Context, path string) (protocol.NoteLinks, error) {
	if _, err := n.root(); err != nil {
		return protocol.NoteLinks{}, err
	}
	out := protocol.NoteLinks{Path: path, Backlinks: []protocol.NoteLink{}, Unresolved: []protocol.NoteLink{}, Limit: linksLimit}
	x := n.tools.Index()
	if x == nil {
		return out, nil
	}
	l, err := x.Links(path)
	if errors.Is(err, vaultindex.ErrNotIndexed) {
		return out, nil
	}
	if err != nil {
		return protocol.NoteLinks{}, err
	}
	out.Indexed = true
	out.BacklinkCount, out.UnresolvedCount = len(l.Backlinks), len(l.Unresolved)
	for i, r := range l.Backlinks {
		if i == linksLimit {
			break
		}
		out.Backlinks = append(out.Backlinks, noteLink(r))
	}
	for i, r := range l.Unresolved {
		if i == linksLimit {
			break
		}
		out.Unresolved = append(out.Unresolved, noteLink(r))
	}
	return out, nil
}

func noteLink(r vault.Ref) protocol.NoteLink {
	return protocol.NoteLink{From: r.From, Target: r.Link.Target, Sub: r.Link.Sub, Text: r.Link.Text, Line: r.Link.Line, Embed: r.Link.Embed, Wiki: r.Link.Wiki}
}
