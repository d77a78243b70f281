package notes

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
)

// A relinking move is one change made of many files: the notes whose links
// it rewrites and the rename of what moves. It is applied all or nothing:
//
//  1. every note to rewrite is checked writable first, so a read-only note
//     fails the whole move, named, before anything is written;
//  2. a journal is written and synced (journal.go): each note's text
//     before, the hash of its text after, its temporary file, the rename;
//  3. each new text is staged in its temporary file beside the note, synced;
//  4. each is renamed over its note, then what moves is renamed;
//  5. the journal is removed.
//
// A failure in 3–4 puts back what was done, from the journal's befores; a
// crash leaves the journal, and the next Open rolls the change back and
// says so (Recovered). It is rolled back even when every step had
// completed: a journal still there means the call's result may never have
// reached a log (a conversation's, the task queue's), and a change no log
// holds could not be listed or undone, while a change rolled back agrees
// with a call the log shows as interrupted.
// An undo of a relinking move is the same kind of change, the other way.

// relink is a move with the notes it rewrites.
type relink struct {
	id       string // the change's id, which names its journal and temporary files
	call     string // the tool call that made it, if one did: it names the conversation
	from, to string // real paths of the entry that moves and of its destination
	dstRel   string // the destination as the call named it, for its sentence
	folder   bool
	caseOnly bool
	made     []string // the folders the move makes for its destination, outermost first
	edits    []noteEdit
}

// noteEdit is one note a relink rewrites. It is written where it is before
// the rename (at); the rename then carries it to moved when it is inside
// what moves.
type noteEdit struct {
	at, moved     string
	before, after string
	links         int
	perm          fs.FileMode // the note's mode, kept
}

// applyStep names the moments of an apply a test can stop at (withApplyHook):
// "journal" once it is synced, "staged" once every new text is, "edit N"
// once the Nth note has its new text, "renamed" once every note has,
// "moved" once the rename is done.
type applyStep = string

// apply makes m, whole or not at all. On a dry root it only checks. Once
// it landed, a linker that follows moves hears what changed (followed).
func (r *Root) apply(m *relink) error {
	if err := r.checkWritable(m); err != nil {
		return err
	}
	if r.dry {
		return nil
	}
	if err := r.applyWhole(m); err != nil {
		return err
	}
	r.followed(m)
	return nil
}

// followed tells a MoveFollower linker every path m changed: what moved
// (each file of a folder under its new name) and every note it rewrote,
// so the next move, a moment later, is planned from a graph that knows
// them, not from one still waiting for the folder's watch.
func (r *Root) followed(m *relink) {
	f, ok := r.linker.(MoveFollower)
	if !ok {
		return
	}
	paths := []string{m.from, m.to}
	for _, e := range m.edits {
		paths = append(paths, e.at, e.moved)
	}
	if m.folder {
		fs.WalkDir(r.fs.FS(), m.to, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				paths = append(paths, p)
			}
			return nil
		})
	}
	f.Moved(paths)
}

// applyWhole is apply's work: the move alone, or under a journal with the
// notes it rewrites.
func (r *Root) applyWhole(m *relink) error {
	if len(m.edits) == 0 {
		return r.moveEntry(m.from, m.to, m.folder, m.caseOnly)
	}
	j := m.journal(r.dir, r.pid)
	jr, err := r.openJournals()
	if err != nil {
		return err
	}
	defer jr.Close()
	if err := writeJournal(jr, j); err != nil {
		return err
	}
	r.step("journal")
	if err := r.applyJournaled(m, j); err != nil {
		rec := r.rollBack(j)
		removeJournal(jr, j)
		if len(rec.Problems) > 0 {
			return fmt.Errorf("%w; and putting back what was done left %s", err, strings.Join(rec.Problems, "; "))
		}
		return err
	}
	removeJournal(jr, j)
	if r.journalDir == "" {
		r.fs.Remove(journalFolder) // only when empty
	}
	return nil
}

// fileEdits are m's edits as its Change records them.
func (m *relink) fileEdits() []FileEdit {
	var out []FileEdit
	for _, e := range m.edits {
		out = append(out, FileEdit{Path: e.at, NewPath: e.moved, Before: e.before, After: e.after, Links: e.links})
	}
	return out
}

func (r *Root) step(s applyStep) {
	if r.hook != nil {
		r.hook(s)
	}
}

// checkWritable refuses the whole relink when a note it rewrites is
// read-only or locked (named in the sentence), before anything changes.
// The permission bits are read as well as tried: an atomic replace only
// needs the folder writable, so a read-only note would otherwise be
// replaced, and the user marked it read-only so that it would not be.
func (r *Root) checkWritable(m *relink) error {
	for i := range m.edits {
		e := &m.edits[i]
		t, err := r.resolve(e.at)
		if err != nil {
			return err
		}
		if err := mustBeNote(t); err != nil {
			return err
		}
		if err := mustBeVisible(t); err != nil {
			return err
		}
		e.perm = t.info.Mode().Perm()
		if e.perm&0o200 == 0 {
			return fail(ErrReadOnly, "%q is read-only, and moving %s would rewrite its links, so nothing was moved or changed; make it writable, or move by hand", e.at, m.from)
		}
		if r.dry {
			continue
		}
		f, err := r.fs.OpenFile(osName(t.real), os.O_WRONLY, 0)
		if err != nil {
			return fail(ErrReadOnly, "%q cannot be written (%v), and moving %s would rewrite its links, so nothing was moved or changed; close the program that holds it, or make it writable, then ask again", e.at, err, m.from)
		}
		f.Close()
	}
	return nil
}

// applyJournaled stages every new text, renames each over its note, then
// moves the entry.
func (r *Root) applyJournaled(m *relink, j journal) error {
	if err := r.stage(m, j); err != nil {
		return err
	}
	r.step("staged")
	dirs := map[string]bool{}
	for i, e := range m.edits {
		// Another editor may have saved the note since it was planned: its
		// text is then never replaced, and the whole move is put back.
		if r.hashAt(e.at) != digest(e.before) {
			return fail(ErrChanged, "%q changed while it was being moved (in another program?), so nothing was moved or changed; ask again", e.at)
		}
		if err := r.fs.Rename(osName(j.Edits[i].Temp), osName(e.at)); err != nil {
			return fmt.Errorf("%q could not be written: %w", e.at, err)
		}
		dirs[path.Dir(e.at)] = true
		r.step(fmt.Sprintf("edit %d", i+1))
	}
	r.step("renamed")
	// Each folder once, not after each rename, and together: a crash before
	// this is the journal's to put back either way.
	sem := make(chan struct{}, stageWorkers)
	var wg sync.WaitGroup
	for dir := range dirs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			r.syncDir(dir)
			<-sem
		}()
	}
	wg.Wait()
	if err := r.moveEntry(m.from, m.to, m.folder, m.caseOnly); err != nil {
		return err
	}
	r.step("moved")
	return nil
}

// stageWorkers is how many new texts are written and synced at once: a
// filesystem commits concurrent syncs together, so a thousand notes cost a
// few commits rather than a thousand.
const stageWorkers = 32

// stage writes each new text, synced, to its temporary file; the first
// failure is returned once every writer has stopped.
func (r *Root) stage(m *relink, j journal) error {
	next := make(chan int)
	errs := make(chan error, stageWorkers)
	var wg sync.WaitGroup
	for range min(stageWorkers, len(m.edits)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var first error
			for i := range next {
				if first == nil {
					first = r.writeTempAs(j.Edits[i].Temp, m.edits[i].at, []byte(m.edits[i].after), m.edits[i].perm)
				}
			}
			errs <- first
		}()
	}
	for i := range m.edits {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Recovery is what the next start found of a relinking move a crash (or a
// failed write) interrupted, and what it did about it.
type Recovery struct {
	Change   string   // the change the journal was for
	Call     string   // the tool call that made it ("" for the user's own undo): its conversation's log can be told
	From, To string   // the move
	Notes    int      // the notes it rewrote
	Problems []string // files left as they were, and why (changed meanwhile)
}

// Sentence says what happened, for the log and the user.
func (v Recovery) Sentence() string {
	if v.From == "" {
		return "Quire found the journal of a move it could not finish: " + strings.Join(v.Problems, "; ") + "."
	}
	s := fmt.Sprintf("Quire stopped while moving %s to %s and rewriting the links in %s (change %s); the move was rolled back, and every file is as it was before it.", v.From, v.To, plural(v.Notes, "note", "notes"), v.Change)
	if len(v.Problems) > 0 {
		s = strings.TrimSuffix(s, ".") + ", except: " + strings.Join(v.Problems, "; ") + "."
	}
	return s
}

// rollBack puts the files of an interrupted relink back as the journal
// says they were, and removes its temporary files.
func (r *Root) rollBack(j journal) Recovery {
	v := Recovery{Change: j.ID, Call: j.Call, From: j.From, To: j.To, Notes: len(j.Edits)}
	defer func() {
		for _, e := range j.Edits {
			r.fs.Remove(osName(e.Temp))
		}
	}()
	moved := r.entryNamed(j.To) && (j.CaseOnly || !r.entryNamed(j.From))
	if moved {
		if err := r.moveEntry(j.To, j.From, j.Folder, j.CaseOnly); err != nil {
			v.Problems = append(v.Problems, fmt.Sprintf("%s could not be moved back to %s (%v)", j.To, j.From, err))
		} else {
			moved = false
			r.removeMade(j.Made)
		}
	}
	for _, e := range j.Edits {
		at := e.At
		if moved {
			at = e.Moved
		}
		switch now := r.hashAt(at); now {
		case digest(e.Before):
		case e.AfterSHA256:
			perm := fs.FileMode(0o644)
			if fi, err := r.fs.Stat(osName(at)); err == nil {
				perm = fi.Mode().Perm()
			}
			if err := r.replaceFile(at, []byte(e.Before), perm); err != nil {
				v.Problems = append(v.Problems, fmt.Sprintf("%s could not be given its text back (%v)", at, err))
			}
		case "":
			v.Problems = append(v.Problems, fmt.Sprintf("%s is missing", at))
		default:
			v.Problems = append(v.Problems, fmt.Sprintf("%s was changed by another program meanwhile, so it was left as it is", at))
		}
	}
	return v
}

// entryNamed reports whether the folder holds an entry spelt exactly as
// rel's last name (on a case-insensitive disk a Stat would find another
// capitalisation too).
func (r *Root) entryNamed(rel string) bool {
	entries, err := fs.ReadDir(r.fs.FS(), path.Dir(rel))
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.Name() == path.Base(rel) {
			return true
		}
	}
	return false
}

// writeTempAs writes data, synced, to the temporary file tmp beside rel.
func (r *Root) writeTempAs(tmp, rel string, data []byte, perm fs.FileMode) error {
	f, err := r.fs.OpenFile(osName(tmp), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return fmt.Errorf("%q could not be written: %w", rel, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		r.fs.Remove(osName(tmp))
		return fmt.Errorf("%q could not be written: %w", rel, err)
	}
	return nil
}
