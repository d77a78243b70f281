package notes

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"quire/kernel/tool"
)

// moveArgs are move_note's arguments.
type moveArgs struct {
	From      string `json:"from"`
	To        string `json:"to"`
	RequestID string `json:"requestId"`
}

func moveNote(r *Root) tool.Tool {
	params := []param{
		{"from", true, str("Note or folder to move, like inbox/idea.md.")},
		{"to", true, str("New path, like projects/idea.md; into it if it is a folder.")},
		{"requestId", false, str(requestIDDesc)},
	}
	spec := writeSpec("move_note", "Move or rename a note or folder, rewriting every link to it. Fails if the destination exists; a note keeps its extension.", tool.Keyed)
	t := newTool(spec, params, func(ctx context.Context, call tool.Call, a moveArgs) (tool.Result, error) {
		unlock, err := r.lockWrite(ctx)
		if err != nil {
			return tool.Result{}, err
		}
		defer unlock()
		src, err := r.resolve(a.From)
		if err != nil {
			return tool.Result{}, err
		}
		dst, err := r.resolve(a.To)
		if err != nil {
			return tool.Result{}, err
		}
		id := a.RequestID
		if id == "" {
			id = call.ID
		}
		key, asked := "move_note:"+id, src.rel+"\x00"+dst.rel
		if q, ok := r.requests.get(key); ok && id != "" {
			if q.args != asked {
				return tool.Result{}, fail(ErrRequestReused, "the requestId %q already moved %s to %s; use a new requestId for a different move", id, q.change.From, q.change.Path)
			}
			if moved, err := r.resolve(q.change.Path); err == nil && moved.exists && !src.exists {
				return changed(q.change, "%s was already moved to %s by an earlier try of this request", src.rel, dst.rel), nil
			}
		}
		m, err := r.planMove(ctx, src, dst)
		if err != nil {
			return tool.Result{}, err
		}
		m.call = call.ID
		if err := r.shown.check(call.ID, m); err != nil {
			return tool.Result{}, err
		}
		sum := ""
		if !m.folder {
			if sum, err = r.hashFile(m.from); err != nil {
				return tool.Result{}, err
			}
		}
		for _, e := range m.edits {
			if e.moved == m.to {
				sum = digest(e.after) // the moved note's own links were rewritten
			}
		}
		if err := r.apply(m); err != nil {
			return tool.Result{}, err
		}
		c := Change{ID: m.id, Tool: "move_note", Kind: KindMove, From: m.from, Path: m.to, SHA256: sum, RequestID: id, Made: m.made, Edits: m.fileEdits()}
		if id != "" {
			r.requests.put(key, request{args: asked, change: c})
		}
		if len(c.Edits) > 0 {
			return changed(c, "Moved %s to %s and updated %s in %s", src.rel, m.dstRel, plural(c.Links(), "link", "links"), plural(len(c.Edits), "note", "notes")), nil
		}
		return changed(c, "Moved %s to %s", src.rel, m.dstRel), nil
	}).(*noteTool)
	t.describeCall = r.describeMove
	return t
}

// planMove checks a move of src to dst and plans it: where it lands, the
// folders it makes and every note whose links it rewrites (linker.go). It
// changes nothing.
func (r *Root) planMove(ctx context.Context, src, dst target) (*relink, error) {
	switch {
	case src.rel == ".":
		return nil, fail(ErrBadPath, "the notes folder itself cannot be moved; give a note or a folder inside it")
	case !src.exists:
		hint := ""
		if dst.exists {
			hint = fmt.Sprintf(" (%s exists: was it moved already?)", dst.rel)
		}
		return nil, fail(ErrNotFound, "%q does not exist%s; list_notes or find_notes shows which notes there are", src.rel, hint)
	case src.entry != src.real:
		return nil, fail(ErrNotNote, "%q is a symbolic link, which would break if moved; move what it points to, %s, instead", src.rel, src.real)
	}
	caseOnly := dst.exists && dst.entry != src.entry && strings.EqualFold(dst.entry, src.entry) && sameFile(src.info, dst.info)
	if dst.exists && dst.info.IsDir() && !caseOnly {
		// Into an existing folder, as mv does.
		var err error
		if dst, err = r.resolve(path.Join(dst.rel, path.Base(src.rel))); err != nil {
			return nil, err
		}
	}
	if dst.rel == "." || dst.exists && !caseOnly {
		return nil, fail(ErrExists, "%q already exists, and move_note never replaces anything; choose another name", dst.rel)
	}
	folder := src.info.IsDir()
	if !folder && !src.info.Mode().IsRegular() {
		// Never read (a FIFO waits for a writer, under the write lock).
		return nil, fail(ErrNotNote, "%q is not a regular file (a FIFO, a socket or a device), so it is not a note", src.rel)
	}
	if folder && (dst.real == src.real || strings.HasPrefix(dst.real, src.real+"/")) {
		return nil, fail(ErrBadPath, "the folder %s cannot move into itself", src.rel)
	}
	if !folder && !sameKind(src.real, dst.rel) {
		return nil, fail(ErrNotNote, "%q would lose its %s extension; keep it, like %s%s", src.rel, path.Ext(src.real), strings.TrimSuffix(dst.rel, path.Ext(dst.rel)), path.Ext(src.real))
	}
	for _, t := range []target{src, dst} {
		if err := mustBeVisible(t); err != nil {
			return nil, err
		}
	}
	if !caseOnly {
		if err := r.checkNew(dst, src.entry); err != nil {
			return nil, err
		}
	}
	m := &relink{id: r.newID(), from: src.entry, to: dst.real, dstRel: dst.rel, folder: folder, caseOnly: caseOnly, made: newFolders(dst)}
	var err error
	if m.edits, err = r.relinks(ctx, m); err != nil {
		return nil, err
	}
	return m, nil
}

// newFolders are the folders above t that do not exist yet, outermost
// first: the ones a move to t makes.
func newFolders(t target) []string {
	segs := strings.Split(t.rel, "/")
	var out []string
	for i := t.newAt; i < len(segs)-1; i++ {
		out = append(out, path.Join(append([]string{t.parent}, segs[t.newAt:i+1]...)...))
	}
	return out
}

// removeMade removes the folders a move made, innermost first, as long as
// they are empty: an undo leaves no folder the change made behind.
func (r *Root) removeMade(made []string) {
	for _, dir := range slices.Backward(made) {
		if t, err := r.resolve(dir); err != nil || !t.exists || !t.info.IsDir() || t.entry != t.real {
			return
		}
		if r.fs.Remove(osName(dir)) != nil {
			return
		}
		r.syncDir(path.Dir(dir))
	}
}

// sameKind reports whether a file may be renamed from one name to another:
// the same extension, or both notes (.md to .txt is fine, .md to .sh is not).
func sameKind(from, to string) bool {
	return strings.EqualFold(path.Ext(from), path.Ext(to)) || isNoteName(from) && isNoteName(to)
}

func sameFile(a, b fs.FileInfo) bool {
	return a != nil && b != nil && os.SameFile(a, b)
}

// moveEntry renames from to to (both real paths) without replacing
// anything: a file is hard-linked to its new name (which fails if the name
// is taken) and then unlinked from the old one; a folder, or a file on a
// filesystem without hard links, is renamed after a last check. A case-only
// rename is a plain rename.
func (r *Root) moveEntry(from, to string, folder, caseOnly bool) error {
	if r.dry {
		return nil
	}
	if !caseOnly {
		if err := r.makeParents(to); err != nil {
			return err
		}
	}
	rename := func() error {
		if !caseOnly {
			if _, err := r.fs.Lstat(osName(to)); err == nil {
				return fail(ErrExists, "%q appeared while moving; nothing was moved", to)
			}
		}
		if err := r.fs.Rename(osName(from), osName(to)); err != nil {
			return fmt.Errorf("%q could not be moved to %s: %w", from, to, err)
		}
		return nil
	}
	var err error
	if folder || caseOnly {
		err = rename()
	} else if lerr := r.fs.Link(osName(from), osName(to)); errors.Is(lerr, fs.ErrExist) {
		err = fail(ErrExists, "%q appeared while moving; nothing was moved", to)
	} else if lerr != nil {
		err = rename()
	} else if rerr := r.fs.Remove(osName(from)); rerr != nil {
		r.fs.Remove(osName(to))
		err = fmt.Errorf("%q could not be moved to %s: %w", from, to, rerr)
	}
	if err != nil {
		return err
	}
	r.syncDir(path.Dir(from))
	r.syncDir(path.Dir(to))
	return nil
}

// hashFile is the SHA-256 of the file at real, streamed. Only a regular
// file is read: opening a FIFO waits for a writer, and every caller holds
// the write lock or answers a page (move_note, undo, the Changes list).
func (r *Root) hashFile(real string) (string, error) {
	if fi, err := r.fs.Stat(osName(real)); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		return "", fail(ErrNotNote, "%q is not a regular file (a FIFO, a socket or a device), so it is not a note", real)
	}
	f, err := r.fs.Open(osName(real))
	if err != nil {
		return "", fmt.Errorf("%q cannot be read: %w", real, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%q cannot be read: %w", real, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func makeFolder(r *Root) tool.Tool {
	type args struct {
		Path string `json:"path"`
	}
	params := []param{{"path", true, str("Folder path, like projects/2026.")}}
	spec := writeSpec("make_folder", "Make a folder (and missing parents) in the notes folder; an existing one is kept.", tool.Safe)
	return newTool(spec, params, func(ctx context.Context, _ tool.Call, a args) (tool.Result, error) {
		unlock, err := r.lockWrite(ctx)
		if err != nil {
			return tool.Result{}, err
		}
		defer unlock()
		t, err := r.resolve(a.Path)
		if err != nil {
			return tool.Result{}, err
		}
		if t.exists {
			if t.info.IsDir() {
				return tool.Result{Status: tool.Success, Content: fmt.Sprintf("The folder %s already exists; nothing was changed.", t.rel)}, nil
			}
			return tool.Result{}, fail(ErrExists, "%q is an existing file, so a folder cannot be made there; choose another name", t.rel)
		}
		if err := mustBeVisible(t); err != nil {
			return tool.Result{}, err
		}
		if err := r.checkNew(t, ""); err != nil {
			return tool.Result{}, err
		}
		if err := r.mkdirAll(t.real); err != nil {
			return tool.Result{}, fmt.Errorf("the folder %s could not be made: %w", t.rel, err)
		}
		c := Change{ID: r.newID(), Tool: "make_folder", Kind: KindMakeFolder, Path: t.real}
		return changed(c, "Made the folder %s", t.rel), nil
	})
}
