package notes

import (
	"context"
	"fmt"
	"io"
	"io/fs"

	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The Notes panel's reads: one folder at a time (the panel opens folders
// lazily) and a note's text for its preview, both through the same
// confinement as the tools, both bounded.
const (
	// MaxFolderEntries bounds one folder's listing; the rest are counted.
	MaxFolderEntries = 500
	// maxFolderDepth bounds how deep a folder the panel may open.
	maxFolderDepth = 32
	// MaxPreviewBytes is how much of a note the preview shows.
	MaxPreviewBytes = 256 << 10
	// maxDiffLines and maxDiffBytes bound a diff a person is shown.
	maxDiffLines = 2000
	maxDiffBytes = 256 << 10
)

// FolderEntry is one file or folder in a Folder. Path is what to open it
// by; it is empty when the name is one the tools refuse (a control or
// invisible character, a look-alike word), and Refused says why. Name is
// the name with every such character written as its code (U+202E), so
// nothing in it draws as something else.
type FolderEntry struct {
	Name     string    `json:"name"`
	Path     string    `json:"path,omitempty"`
	Folder   bool      `json:"folder,omitempty"`
	Note     bool      `json:"note,omitempty"` // a Markdown or text note, which the preview shows
	Link     bool      `json:"link,omitempty"` // a symbolic link that stays inside the notes folder
	Size     int64     `json:"size"`
	Modified time.Time `json:"modified"`
	Refused  string    `json:"refused,omitempty"`
}

// Folder is one folder of the notes tree: its entries, folders first, each
// group by name; hidden files and links that lead out of the notes folder
// are never listed. Omitted counts the entries past MaxFolderEntries.
type Folder struct {
	Path    string        `json:"path"`
	Entries []FolderEntry `json:"entries"`
	Omitted int           `json:"omitted,omitempty"`
}

// Folder lists the folder rel ("." for the notes folder itself).
func (r *Root) Folder(ctx context.Context, rel string) (Folder, error) {
	t, err := r.resolve(rel)
	if err != nil {
		return Folder{}, err
	}
	if t.rel != "." && strings.Count(t.rel, "/")+1 > maxFolderDepth {
		return Folder{}, fail(ErrBadPath, "%q is more than %d folders deep", t.rel, maxFolderDepth)
	}
	if !t.exists {
		return Folder{}, fail(ErrNotFound, "%q does not exist", t.rel)
	}
	if !t.info.IsDir() {
		return Folder{}, fail(ErrNotNote, "%q is a file, not a folder", t.rel)
	}
	entries, err := fs.ReadDir(r.fs.FS(), t.real)
	if err != nil {
		return Folder{}, fmt.Errorf("the folder %q cannot be read: %w", t.rel, err)
	}
	f := Folder{Path: t.rel, Entries: []FolderEntry{}}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return Folder{}, err
		}
		if hidden(e.Name()) {
			continue
		}
		en, ok := r.entry(joinShown(t.rel, e.Name()), e)
		if !ok {
			continue
		}
		if len(f.Entries) == MaxFolderEntries {
			f.Omitted++
			continue
		}
		f.Entries = append(f.Entries, en)
	}
	slices.SortFunc(f.Entries, func(a, b FolderEntry) int {
		if a.Folder != b.Folder {
			if a.Folder {
				return -1
			}
			return 1
		}
		return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
	})
	return f, nil
}

// entry describes the entry e at rel; ok is false for what is never shown:
// a link that leads out of the notes folder (or nowhere), or one that
// vanished meanwhile.
func (r *Root) entry(rel string, e fs.DirEntry) (FolderEntry, bool) {
	en := FolderEntry{Name: escapeName(e.Name())}
	if _, err := cleanRel(rel); err != nil {
		// Listed, so the user knows it is there, but never opened.
		en.Refused = sentence(err.Error())
		return en, true
	}
	t, err := r.resolve(rel)
	if err != nil || !t.exists {
		return FolderEntry{}, false
	}
	en.Path = t.rel
	en.Link = e.Type()&fs.ModeSymlink != 0
	en.Folder = t.info.IsDir()
	en.Modified = t.info.ModTime()
	if !en.Folder {
		en.Size = t.info.Size()
		en.Note = t.info.Mode().IsRegular() && isNoteName(t.real)
	}
	return en, true
}

// escapeName writes every character that draws as nothing or as something
// else (controls, bidirectional and other invisible characters) as its
// code, so a name in the panel reads as what it is.
func escapeName(name string) string {
	if !utf8.ValidString(name) {
		return fmt.Sprintf("%q", name)
	}
	var b strings.Builder
	for _, c := range name {
		if unicode.IsControl(c) || isBidiControl(c) || isInvisible(c) {
			fmt.Fprintf(&b, "<%s>", codePoint(c))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// NoteText is a note's text for the preview: at most MaxPreviewBytes of
// it, cut at a line (or at least a character), Truncated saying so.
type NoteText struct {
	Path      string    `json:"path"`
	Text      string    `json:"text"`
	Size      int64     `json:"size"`
	Truncated bool      `json:"truncated,omitempty"`
	Modified  time.Time `json:"modified"`
}

// Note reads the note rel for the preview.
func (r *Root) Note(ctx context.Context, rel string) (NoteText, error) {
	t, err := r.resolve(rel)
	if err != nil {
		return NoteText{}, err
	}
	if err := mustBeNote(t); err != nil {
		return NoteText{}, err
	}
	f, err := r.fs.Open(osName(t.real))
	if err != nil {
		return NoteText{}, fmt.Errorf("%q cannot be read: %w", t.rel, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxPreviewBytes+1))
	if err != nil {
		return NoteText{}, fmt.Errorf("%q cannot be read: %w", t.rel, err)
	}
	n := NoteText{Path: t.rel, Size: t.info.Size(), Modified: t.info.ModTime()}
	if len(data) > MaxPreviewBytes {
		data, n.Truncated = data[:MaxPreviewBytes], true
		if i := strings.LastIndexByte(string(data), '\n'); i > 0 {
			data = data[:i+1]
		}
	}
	if looksBinary(data, !n.Truncated) {
		return NoteText{}, fail(ErrBinary, "%q is a binary file (not UTF-8 text)", t.rel)
	}
	n.Text = strings.ToValidUTF8(string(data), "")
	return n, nil
}

// Standing is where a change stands on the disk now.
type Standing string

const (
	// Applied: the note is as the change left it.
	Applied Standing = "applied"
	// Reverted: the note is as it was before the change.
	Reverted Standing = "reverted"
	// ChangedSince: the note is neither, so undoing would lose later changes.
	ChangedSince Standing = "changed"
)

// Standing compares the note with what c left. A note that cannot be read
// counts as changed since.
func (r *Root) Standing(c Change) Standing {
	switch c.Kind {
	case KindWrite:
		now, ok := r.current(c.Path)
		switch {
		case !ok:
			return ChangedSince
		case sameText(now, c.After):
			return Applied
		case sameText(now, c.Before):
			return Reverted
		}
	case KindMove:
		dst, src := r.hashAt(c.Path), r.hashAt(c.From)
		// A moved note its own links were rewritten in had another text
		// before: its hash there is its edit's Before's.
		before := c.SHA256
		for _, e := range c.Edits {
			if e.NewPath == c.Path {
				before = digest(e.Before)
			}
		}
		switch {
		case dst != "" && (c.SHA256 == "" || dst == c.SHA256) && src == "" && r.edited(c.Edits, false):
			return Applied
		case src != "" && (before == "" || src == before) && dst == "" && r.edited(c.Edits, true):
			return Reverted
		}
	case KindMakeFolder, KindRemoveFolder:
		t, err := r.resolve(c.Path)
		if err != nil {
			return ChangedSince
		}
		made := t.exists && t.info.IsDir()
		if made == (c.Kind == KindMakeFolder) {
			return Applied
		}
		return Reverted
	}
	return ChangedSince
}

// edited reports whether every note a move rewrote has the text it left
// (at its new path), or, reverted, the text it had (at its old one).
func (r *Root) edited(edits []FileEdit, reverted bool) bool {
	for _, e := range edits {
		at, want := e.NewPath, e.After
		if reverted {
			at, want = e.Path, e.Before
		}
		if now, ok := r.current(at); !ok || now == nil || *now != want {
			return false
		}
	}
	return true
}

// Current is the note's text now (nil: there is none), for "see both
// versions"; ok is false when it cannot be read as a note.
func (r *Root) Current(rel string) (text *string, ok bool) { return r.current(rel) }

func (r *Root) current(rel string) (*string, bool) {
	t, err := r.resolve(rel)
	if err != nil {
		return nil, false
	}
	if !t.exists {
		return nil, true
	}
	text, err := r.readText(t)
	if err != nil {
		return nil, false
	}
	return &text, true
}

// hashAt is the SHA-256 of the file at rel, "" when there is none (a
// folder hashes as "dir", so a moved folder still counts as there).
func (r *Root) hashAt(rel string) string {
	t, err := r.resolve(rel)
	if err != nil || !t.exists {
		return ""
	}
	if t.info.IsDir() {
		return "dir"
	}
	sum, err := r.hashFile(t.real)
	if err != nil {
		return ""
	}
	return sum
}

// bounded cuts a text a person is shown at maxDiffLines lines or
// maxDiffBytes, saying so on its last line.
func bounded(text string) string {
	lines := strings.SplitAfter(text, "\n")
	size, cut := 0, len(lines)
	for i, l := range lines {
		if i == maxDiffLines || size+len(l) > maxDiffBytes {
			cut = i
			break
		}
		size += len(l)
	}
	if cut == len(lines) {
		return text
	}
	return strings.Join(lines[:cut], "") + fmt.Sprintf("\n… %d more lines not shown", len(lines)-cut)
}
