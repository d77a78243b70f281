package notes

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

const (
	maxNoteBytes = 8 << 20 // the largest note a tool reads or changes whole
	tempPrefix   = ".quire-"
	sniffBytes   = 8000 // how much of a file decides whether it is text
)

// noteExts are the files the write tools change: Markdown and plain text.
var noteExts = []string{".md", ".markdown", ".txt"}

func isNoteName(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	for _, e := range noteExts {
		if ext == e {
			return true
		}
	}
	return false
}

func osName(rel string) string { return filepath.FromSlash(rel) }

// readText reads the note t names, whole: a regular UTF-8 text file of at
// most maxNoteBytes.
func (r *Root) readText(t target) (string, error) {
	if err := mustBeFile(t); err != nil {
		return "", err
	}
	if t.info.Size() > maxNoteBytes {
		return "", fail(ErrNotNote, "%q is %s, larger than the %s a note tool reads whole; open it in another program", t.rel, humanSize(t.info.Size()), humanSize(maxNoteBytes))
	}
	f, err := r.fs.Open(osName(t.real))
	if err != nil {
		return "", fmt.Errorf("%q cannot be read: %w", t.rel, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxNoteBytes+1))
	if err != nil {
		return "", fmt.Errorf("%q cannot be read: %w", t.rel, err)
	}
	if len(data) > maxNoteBytes {
		return "", fail(ErrNotNote, "%q is larger than the %s a note tool reads whole; open it in another program", t.rel, humanSize(maxNoteBytes))
	}
	if looksBinary(data, true) {
		return "", fail(ErrBinary, "%q is a binary file (not UTF-8 text), so it cannot be read or changed as a note; only Markdown and plain-text notes can", t.rel)
	}
	return string(data), nil
}

// mustBeFile refuses a target that is missing, a folder or not a regular file.
func mustBeFile(t target) error {
	switch {
	case !t.exists:
		return fail(ErrNotFound, "%q does not exist; list_notes or find_notes shows which notes there are", t.rel)
	case t.info.IsDir():
		return fail(ErrNotNote, "%q is a folder, not a note; list_notes shows what is inside it", t.rel)
	case !t.info.Mode().IsRegular():
		return fail(ErrNotNote, "%q is not a regular file, so it is not a note", t.rel)
	}
	return nil
}

// mustBeNote is mustBeFile for the tools that change a note's text.
func mustBeNote(t target) error {
	if err := mustBeFile(t); err != nil {
		return err
	}
	if !isNoteName(t.real) {
		return fail(ErrNotNote, "%q is not a note: the note tools change only Markdown and text files (.md, .markdown, .txt)", t.rel)
	}
	return nil
}

// looksBinary reports whether data is not text: a NUL byte in its first
// sniffBytes, or bytes that are not UTF-8. complete says data is the whole
// file; otherwise a rune cut at the end of data does not count.
func looksBinary(data []byte, complete bool) bool {
	if bytes.IndexByte(data[:min(len(data), sniffBytes)], 0) >= 0 {
		return true
	}
	if !complete {
		// Drop a rune cut at the end of a partial read.
		for i := 0; i < utf8.UTFMax && i < len(data); i++ {
			if utf8.RuneStart(data[len(data)-1-i]) {
				if !utf8.FullRune(data[len(data)-1-i:]) {
					data = data[:len(data)-1-i]
				}
				break
			}
		}
	}
	return !utf8.Valid(data)
}

// replaceFile writes data to rel atomically: a temporary file in the same
// folder, fsync, rename over rel. perm is kept exactly (the note's old mode).
// On any error the temporary file is removed.
func (r *Root) replaceFile(rel string, data []byte, perm fs.FileMode) error {
	if r.dry {
		return nil
	}
	tmp, err := r.writeTemp(rel, data, perm, true)
	if err != nil {
		return err
	}
	if err := r.fs.Rename(osName(tmp), osName(rel)); err != nil {
		r.fs.Remove(osName(tmp))
		return fmt.Errorf("%q could not be written: %w", rel, err)
	}
	r.syncDir(path.Dir(rel))
	return nil
}

// errLanded says the destination appeared: createFile never replaces it.
var errLanded = errors.New("the destination exists")

// createFile writes data to rel atomically and only if rel does not exist.
// The temporary file is hard-linked to rel, which fails if rel exists, so a
// file that appears meanwhile is never replaced; where the filesystem has no
// hard links it is renamed after one more check.
func (r *Root) createFile(rel string, data []byte) error {
	if r.dry {
		return nil
	}
	tmp, err := r.writeTemp(rel, data, 0o644, false)
	if err != nil {
		return err
	}
	defer r.fs.Remove(osName(tmp))
	err = r.fs.Link(osName(tmp), osName(rel))
	if errors.Is(err, fs.ErrExist) {
		return errLanded
	}
	if err != nil {
		if _, lerr := r.fs.Lstat(osName(rel)); lerr == nil {
			return errLanded
		}
		if err := r.fs.Rename(osName(tmp), osName(rel)); err != nil {
			return fmt.Errorf("%q could not be written: %w", rel, err)
		}
	}
	r.syncDir(path.Dir(rel))
	return nil
}

// writeTemp writes data, synced, to a new hidden file beside rel and
// returns its name. exact applies perm as given; otherwise the umask trims it.
func (r *Root) writeTemp(rel string, data []byte, perm fs.FileMode, exact bool) (string, error) {
	dir := path.Dir(rel)
	for range 10 {
		tmp := path.Join(dir, tempPrefix+randomHex(6)+".tmp")
		f, err := r.fs.OpenFile(osName(tmp), os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("%q could not be written: %w", rel, err)
		}
		_, err = f.Write(data)
		if err == nil && exact {
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
			return "", fmt.Errorf("%q could not be written: %w", rel, err)
		}
		return tmp, nil
	}
	return "", fmt.Errorf("%q could not be written: no free temporary name", rel)
}

// syncDir makes a rename in dir durable. Some systems cannot sync a folder;
// the rename has happened either way.
func (r *Root) syncDir(dir string) {
	if f, err := r.fs.Open(osName(dir)); err == nil {
		f.Sync()
		f.Close()
	}
}

// makeParents creates the missing folders above rel.
func (r *Root) makeParents(rel string) error {
	if r.dry {
		return nil
	}
	if dir := path.Dir(rel); dir != "." {
		if err := r.fs.MkdirAll(osName(dir), 0o755); err != nil {
			return fmt.Errorf("the folder %s could not be made: %w", dir, err)
		}
	}
	return nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func newChangeID() string { return "chg_" + randomHex(8) }

// humanSize writes a byte count the way a person reads it.
func humanSize(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	case n < 1024*1024*1024:
		return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
	default:
		return fmt.Sprintf("%.1f GB", float64(n)/(1024*1024*1024))
	}
}

// lineEnding is the line ending the text already uses.
func lineEnding(s string) string {
	if i := strings.IndexByte(s, '\n'); i > 0 && s[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// mkdirAll makes the folder rel and its missing parents.
func (r *Root) mkdirAll(rel string) error {
	if r.dry {
		return nil
	}
	return r.fs.MkdirAll(osName(rel), 0o755)
}
