package notes

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"

	"quire/kernel/tool"
)

func undoChange(r *Root, log ChangeLog) tool.Tool {
	type args struct {
		ChangeID string `json:"changeId"`
	}
	params := []param{{"changeId", true, str("Like chg_0123456789abcdef, from the result of the change.")}}
	spec := writeSpec("undo", "Undo one change a note tool made, by its changeId. Refused if the note changed since.", tool.Unsafe)
	t := newTool(spec, params, func(ctx context.Context, _ tool.Call, a args) (tool.Result, error) {
		return r.Undo(ctx, log, a.ChangeID)
	}).(*noteTool)
	t.describe = func(id string) string { return describeUndo(log, id) }
	return t
}

// Undo reverts the change id, found in log: the undo tool's work, and the
// Changes list's when the user undoes a change directly, under the same
// write lock and the same confinement. It is refused (an error wrapping
// ErrChanged or ErrExists) when the note changed since, so a later change
// is never lost; the result's Data is the reverse change.
func (r *Root) Undo(ctx context.Context, log ChangeLog, id string) (tool.Result, error) {
	if id == "" {
		return tool.Result{}, fail(tool.ErrInvalidArgs, "the changeId is empty; give the id of the change to undo, as a note tool's result gave it")
	}
	c, err := log.Change(ctx, id)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return tool.Result{}, err
		}
		return tool.Result{}, fmt.Errorf("the change %s could not be looked up: %w", id, err)
	}
	unlock, err := r.lockWrite(ctx)
	if err != nil {
		return tool.Result{}, err
	}
	defer unlock()
	switch c.Kind {
	case KindWrite:
		return r.undoWrite(c)
	case KindMove:
		return r.undoMove(c)
	case KindMakeFolder:
		return r.undoMakeFolder(c)
	case KindRemoveFolder:
		return r.undoRemoveFolder(c)
	}
	return tool.Result{}, fail(tool.ErrInvalidArgs, "the change %s is of an unknown kind %q and cannot be undone", c.ID, c.Kind)
}

// undoWrite puts back the content the note had before c, if it still has
// the content c left.
func (r *Root) undoWrite(c Change) (tool.Result, error) {
	t, err := r.resolve(c.Path)
	if err != nil {
		return tool.Result{}, err
	}
	if !isNoteName(t.real) {
		return tool.Result{}, fail(ErrNotNote, "%q is not a note, so the change %s cannot be undone", c.Path, c.ID)
	}
	var now *string
	if t.exists {
		text, err := r.readText(t)
		if err != nil {
			return tool.Result{}, err
		}
		now = &text
	}
	if !sameText(now, c.After) {
		if sameText(now, c.Before) {
			return tool.Result{}, fail(ErrChanged, "the change %s is already undone: %s is as it was before it", c.ID, c.Path)
		}
		return tool.Result{}, fail(ErrChanged, "%q has changed since the change %s, so undoing it would lose the later changes; read the note and use edit_note to change it back by hand", c.Path, c.ID)
	}
	u := Change{ID: r.newID(), Tool: "undo", Kind: KindWrite, Path: t.real, Before: now, After: c.Before, Undoes: c.ID}
	switch {
	case c.Before == nil:
		if err := r.fs.Remove(osName(t.real)); err != nil {
			return tool.Result{}, fmt.Errorf("%q could not be removed: %w", c.Path, err)
		}
		r.syncDir(path.Dir(t.real))
		return changed(u, "Undid the change %s: removed %s, which it had created", c.ID, c.Path), nil
	case now == nil:
		if err := r.makeParents(t.real); err != nil {
			return tool.Result{}, err
		}
		if err := r.createFile(t.real, []byte(*c.Before)); err != nil {
			if errors.Is(err, errLanded) {
				return tool.Result{}, fail(ErrChanged, "%q appeared while it was being restored; nothing was changed", c.Path)
			}
			return tool.Result{}, err
		}
		return changed(u, "Undid the change %s: restored %s", c.ID, c.Path), nil
	default:
		if err := r.replaceFile(t.real, []byte(*c.Before), t.info.Mode().Perm()); err != nil {
			return tool.Result{}, err
		}
		return changed(u, "Undid the change %s: %s has its previous content again", c.ID, c.Path), nil
	}
}

func sameText(a, b *string) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

// undoMove moves c.Path back to c.From, if it is still there unchanged and
// c.From is free.
func (r *Root) undoMove(c Change) (tool.Result, error) {
	dst, err := r.resolve(c.Path)
	if err != nil {
		return tool.Result{}, err
	}
	src, err := r.resolve(c.From)
	if err != nil {
		return tool.Result{}, err
	}
	if !dst.exists {
		if src.exists {
			return tool.Result{}, fail(ErrChanged, "the change %s is already undone: the note is back at %s", c.ID, c.From)
		}
		return tool.Result{}, fail(ErrChanged, "%q is no longer there, so the change %s cannot be undone; find_notes may show where it went", c.Path, c.ID)
	}
	if src.exists {
		return tool.Result{}, fail(ErrExists, "%q exists again, so moving %s back would replace it; nothing was changed", c.From, c.Path)
	}
	folder := dst.info.IsDir()
	if c.SHA256 != "" {
		sum, err := r.hashFile(dst.real)
		if err != nil {
			return tool.Result{}, err
		}
		if folder || sum != c.SHA256 {
			return tool.Result{}, fail(ErrChanged, "%q has changed since the change %s; move it back by hand with move_note if that is still wanted", c.Path, c.ID)
		}
	}
	// Every note the move rewrote must still have the text it left, or the
	// undo would lose what was written there since: then nothing changes.
	m := &relink{id: r.newID(), from: dst.entry, to: src.real, folder: folder, made: newFolders(src)}
	u := Change{ID: m.id, Tool: "undo", Kind: KindMove, From: dst.entry, Path: src.real, SHA256: c.SHA256, Undoes: c.ID, Made: m.made}
	for _, e := range c.Edits {
		now, ok := r.current(e.NewPath)
		switch {
		case !ok || now == nil:
			return tool.Result{}, fail(ErrChanged, "%q, whose links the change %s rewrote, is gone or no longer a note, so the move cannot be undone whole; nothing was changed", e.NewPath, c.ID)
		case *now != e.After:
			return tool.Result{}, fail(ErrChanged, "%q has changed since the change %s rewrote its links, so undoing the move would lose the later changes; nothing was changed. Move it back by hand with move_note if that is still wanted", e.NewPath, c.ID)
		}
		m.edits = append(m.edits, noteEdit{at: e.NewPath, moved: e.Path, before: e.After, after: e.Before, links: e.Links})
		u.Edits = append(u.Edits, FileEdit{Path: e.NewPath, NewPath: e.Path, Before: e.After, After: e.Before, Links: e.Links})
		if e.NewPath == dst.real {
			u.SHA256 = digest(e.Before)
		}
	}
	if err := r.apply(m); err != nil {
		return tool.Result{}, err
	}
	r.removeMade(c.Made)
	if len(u.Edits) > 0 {
		return changed(u, "Undid the change %s: moved %s back to %s and gave %s back their links", c.ID, c.Path, c.From, plural(len(u.Edits), "note", "notes")), nil
	}
	return changed(u, "Undid the change %s: moved %s back to %s", c.ID, c.Path, c.From), nil
}

func (r *Root) undoMakeFolder(c Change) (tool.Result, error) {
	t, err := r.resolve(c.Path)
	if err != nil {
		return tool.Result{}, err
	}
	if !t.exists || !t.info.IsDir() {
		return tool.Result{}, fail(ErrChanged, "the folder %s is no longer there, so the change %s is already undone", c.Path, c.ID)
	}
	entries, err := fs.ReadDir(r.fs.FS(), t.real)
	if err != nil {
		return tool.Result{}, fmt.Errorf("the folder %s cannot be read: %w", c.Path, err)
	}
	if len(entries) > 0 {
		return tool.Result{}, fail(ErrChanged, "the folder %s is no longer empty, so it is kept; move what is in it elsewhere first", c.Path)
	}
	if err := r.fs.Remove(osName(t.real)); err != nil {
		return tool.Result{}, fmt.Errorf("the folder %s could not be removed: %w", c.Path, err)
	}
	u := Change{ID: r.newID(), Tool: "undo", Kind: KindRemoveFolder, Path: t.real, Undoes: c.ID}
	return changed(u, "Undid the change %s: removed the empty folder %s", c.ID, c.Path), nil
}

func (r *Root) undoRemoveFolder(c Change) (tool.Result, error) {
	t, err := r.resolve(c.Path)
	if err != nil {
		return tool.Result{}, err
	}
	if t.exists {
		return tool.Result{}, fail(ErrExists, "%q exists again, so the change %s is already undone", c.Path, c.ID)
	}
	if err := r.checkNew(t, ""); err != nil {
		return tool.Result{}, err
	}
	if err := r.fs.MkdirAll(osName(t.real), 0o755); err != nil {
		return tool.Result{}, fmt.Errorf("the folder %s could not be made: %w", c.Path, err)
	}
	u := Change{ID: r.newID(), Tool: "undo", Kind: KindMakeFolder, Path: t.real, Undoes: c.ID}
	return changed(u, "Undid the change %s: made the folder %s again", c.ID, c.Path), nil
}

// UndoAll reverts the changes ids in the order given (the caller gives a
// conversation's changes newest first, so each undo finds its note as the
// next newer change left it), handing each undo to record before the next
// starts. It stops at the first refusal or failed record: done are the ids
// undone, and err says why the next one was not.
func (r *Root) UndoAll(ctx context.Context, log ChangeLog, ids []string, record func(id string, res tool.Result) error) (done []string, err error) {
	for _, id := range ids {
		res, err := r.Undo(ctx, log, id)
		if err != nil {
			return done, err
		}
		if err := record(id, res); err != nil {
			return done, err
		}
		done = append(done, id)
	}
	return done, nil
}
