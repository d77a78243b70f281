package notes

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

const (
	maxPathBytes    = 1024 // a whole relative path
	maxSegmentBytes = 255  // one file or folder name (the limit of most filesystems)
)

// Root is the notes folder the user chose. Every tool reaches the disk
// through it: paths through Resolve, file operations through an os.Root on
// the same folder.
type Root struct {
	dir string   // absolute, symbolic links resolved
	fs  *os.Root // every read and write goes through it, so nothing escapes even if a link is swapped in after Resolve

	// mu serialises writes: a Keyed tool retried by the runtime may still be
	// running its first attempt, and the request-id check and the write it
	// guards must be one step.
	mu       sync.Mutex
	requests requestBook
	newID    func() string
	// dry makes every write a no-op that reports success (preview.go): the
	// tools then compute the change they would make, by their own code.
	dry bool

	linker     Linker          // plans the links a move rewrites; nil: a scan of the folder per move
	finder     Finder          // answers find_notes when ready; nil: a scan of the folder per find
	shown      shownPlans      // the plans the moves' questions showed, by call id
	journalDir string          // where relinking moves keep their journals; "" is journalFolder in the root
	hook       func(applyStep) // a test's stop inside an apply (withApplyHook)
	recovered  []Recovery      // what Open rolled back or kept
	pid        int             // this process, named in its journals: Open never recovers a move still running here
}

// Option is a choice Open takes.
type Option func(*Root)

// WithJournal keeps the journals of relinking moves in dir (the data
// folder's, from the composition root) rather than in a hidden folder of
// the notes folder, so no journal can be mistaken for a note or synced away
// with the notes.
func WithJournal(dir string) Option { return func(r *Root) { r.journalDir = dir } }

// withApplyHook calls hook at each step of a relinking move's apply: the
// crash test stops its child there.
func withApplyHook(hook func(applyStep)) Option { return func(r *Root) { r.hook = hook } }

// withPID names another process in the root's journals: the in-process
// crash tests leave a journal the next Open must take for a dead process's.
func withPID(pid int) Option { return func(r *Root) { r.pid = pid } }

// Open opens the notes folder dir, which must exist and be a directory, and
// finishes any relinking move a crash interrupted there (Recovered says
// what it did). Close it when the notes tools are no longer used.
func Open(dir string, opts ...Option) (*Root, error) {
	if dir == "" {
		return nil, fmt.Errorf("notes: no notes folder was given")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("notes: the notes folder %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("notes: the notes folder %s cannot be opened: %w", dir, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("notes: the notes folder %s cannot be opened: %w", dir, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("notes: the notes folder %s is a file, not a folder", dir)
	}
	fsys, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("notes: the notes folder %s cannot be opened: %w", dir, err)
	}
	r := &Root{dir: real, fs: fsys, newID: newChangeID}
	r.pid = os.Getpid()
	for _, o := range opts {
		o(r)
	}
	r.recovered = r.recoverJournals()
	return r, nil
}

// Dir is the notes folder: absolute, with symbolic links resolved.
func (r *Root) Dir() string { return r.dir }

// Close releases the folder handle.
func (r *Root) Close() error { return r.fs.Close() }

// Resolve is the one confinement check every tool uses: it turns a path
// relative to the notes folder into the absolute path it names, with
// symbolic links resolved, or refuses it with an error that wraps
// ErrOutsideRoot or ErrBadPath (see cleanRel for the rules). The path need
// not exist; "." is the notes folder itself.
func (r *Root) Resolve(rel string) (string, error) {
	t, err := r.resolve(rel)
	if err != nil {
		return "", err
	}
	return r.abs(t.real), nil
}

func (r *Root) abs(real string) string { return filepath.Join(r.dir, filepath.FromSlash(real)) }

// target is a resolved path.
type target struct {
	rel    string      // the cleaned path as the caller wrote it, slash-separated ("." is the root)
	real   string      // the same with symbolic links resolved, relative to the root
	entry  string      // the last element itself, not followed (real, unless the last element is a link)
	exists bool        // real exists
	info   fs.FileInfo // of real, when it exists
	newAt  int         // index of the first element of rel that does not exist (its element count when all do)
	parent string      // real path of the folder that holds element newAt
}

// resolve walks rel element by element from the root: an element that is a
// symbolic link is resolved in full and must land inside the root; the
// walk stops at the first element that does not exist.
func (r *Root) resolve(rel string) (target, error) {
	clean, err := cleanRel(rel)
	if err != nil {
		return target{}, err
	}
	t := target{rel: clean, real: ".", entry: "."}
	if clean == "." {
		fi, err := os.Stat(r.dir)
		if err != nil {
			return target{}, fmt.Errorf("the notes folder cannot be read: %w", err)
		}
		t.exists, t.info = true, fi
		return t, nil
	}
	segs := strings.Split(clean, "/")
	cur := "." // real path, relative to the root, of the elements walked so far
	for i, seg := range segs {
		next := path.Join(cur, seg)
		fi, err := os.Lstat(r.abs(next))
		if errors.Is(err, fs.ErrNotExist) {
			t.newAt, t.parent = i, cur
			t.real = path.Join(append([]string{cur}, segs[i:]...)...)
			t.entry = t.real
			return t, checkGit(t.real, rel)
		}
		if err != nil {
			return target{}, fmt.Errorf("%q cannot be reached: %w", rel, err)
		}
		last := i == len(segs)-1
		if fi.Mode()&fs.ModeSymlink != 0 {
			dest, err := filepath.EvalSymlinks(r.abs(next))
			if err != nil {
				return target{}, fail(ErrBadPath, "%q goes through the symbolic link %s, which cannot be followed (it points to nothing that exists, or in a circle); use another path", rel, path.Join(segs[:i+1]...))
			}
			inside, ok := r.within(dest)
			if !ok {
				return target{}, fail(ErrOutsideRoot, "%q leads through the symbolic link %s to a place outside the notes folder; use a path inside it, like projects/plan.md", rel, path.Join(segs[:i+1]...))
			}
			if fi, err = os.Stat(dest); err != nil {
				return target{}, fmt.Errorf("%q cannot be reached: %w", rel, err)
			}
			if last {
				t.entry = next
			}
			next = inside
		} else if last {
			t.entry = next
		}
		if !last && !fi.IsDir() {
			return target{}, fail(ErrBadPath, "%q is a file, not a folder, so %q cannot be inside it; list_notes shows the folders there are", path.Join(segs[:i+1]...), rel)
		}
		if last {
			t.exists, t.info = true, fi
		}
		cur = next
	}
	t.real, t.newAt = cur, len(segs)
	return t, checkGit(t.real, rel)
}

// within reports whether the absolute, link-free path p is the root or
// inside it, and if so p relative to the root. The prefix test decides
// almost always; on a case-insensitive filesystem a link may spell the
// root differently, so an ancestor that is the root's own directory also
// counts (os.SameFile compares device and inode, not spelling).
func (r *Root) within(p string) (string, bool) {
	if p == r.dir {
		return ".", true
	}
	prefix := r.dir
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	if strings.HasPrefix(p, prefix) {
		return filepath.ToSlash(p[len(prefix):]), true
	}
	root, err := os.Stat(r.dir)
	if err != nil {
		return "", false
	}
	for q := p; ; {
		if fi, err := os.Stat(q); err == nil && os.SameFile(fi, root) {
			rel, err := filepath.Rel(q, p)
			if err != nil {
				return "", false
			}
			return filepath.ToSlash(rel), true
		}
		parent := filepath.Dir(q)
		if parent == q {
			return "", false
		}
		q = parent
	}
}

// cleanRel applies the rules that need no disk: it returns rel cleaned and
// slash-separated, or an error wrapping ErrBadPath or ErrOutsideRoot.
//
//   - empty, over maxPathBytes, not UTF-8: refused;
//   - NUL, control characters, bidirectional overrides, other invisible
//     characters (zero-width spaces and joiners, the BOM, soft hyphens, line
//     and paragraph separators, blank letters) and a word that mixes scripts
//     (Latin with Cyrillic look-alikes): refused, because they make a name
//     read as something else — in a permission question above all;
//   - a backslash is a separator on every system, so a path means the same
//     on Linux, macOS and Windows;
//   - absolute paths, UNC paths (\\server\share, //x) and drive letters
//     (C:\x, C:x) are outside the root; any other colon is refused (on
//     Windows it names an alternate data stream);
//   - `..` is resolved lexically and must not climb out;
//   - each remaining name: at most maxSegmentBytes, no trailing dot or space
//     (Windows drops them, so `a.` would be `a`), not a Windows device name
//     (CON, PRN, AUX, NUL, COM0-9, LPT0-9, with any extension, in any case),
//     and not .git (or its 8.3 short name GIT~1).
//
// Percent signs are literal: `%2e%2e` is a name, not `..`.
func cleanRel(rel string) (string, error) {
	if rel == "" {
		return "", fail(ErrBadPath, "the path is empty; give a path inside the notes folder, like projects/plan.md")
	}
	if len(rel) > maxPathBytes {
		return "", fail(ErrBadPath, "the path is %d bytes long, more than the %d allowed; use a shorter path", len(rel), maxPathBytes)
	}
	if !utf8.ValidString(rel) {
		return "", fail(ErrBadPath, "the path %q is not valid UTF-8 text; use a plain path like projects/plan.md", rel)
	}
	for _, c := range rel {
		switch {
		case c == 0:
			return "", fail(ErrBadPath, "the path %q contains a NUL byte; use a plain path like projects/plan.md", rel)
		case unicode.IsControl(c):
			return "", fail(ErrBadPath, "the path %q contains a control character; use a plain path like projects/plan.md", rel)
		case isBidiControl(c):
			return "", fail(ErrBadPath, "the path %q contains an invisible text-direction character (%s); use a plain path like projects/plan.md", rel, codePoint(c))
		case isInvisible(c):
			return "", fail(ErrBadPath, "the path %q contains an invisible character (%s), so it would not read as what it names; use a plain path like projects/plan.md", rel, codePoint(c))
		}
	}
	p := strings.ReplaceAll(rel, `\`, "/")
	if strings.HasPrefix(p, "/") {
		return "", fail(ErrOutsideRoot, "%q is an absolute path, outside the notes folder; use a path relative to the notes folder, like projects/plan.md", rel)
	}
	if len(p) >= 2 && p[1] == ':' && isASCIILetter(p[0]) {
		return "", fail(ErrOutsideRoot, "%q starts with a drive letter, outside the notes folder; use a path relative to the notes folder, like projects/plan.md", rel)
	}
	if strings.Contains(p, ":") {
		return "", fail(ErrBadPath, "%q contains a colon, which names cannot contain on Windows; choose a name without ':'", rel)
	}
	clean := path.Clean(p)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fail(ErrOutsideRoot, "%q is outside the notes folder; use a path inside it, like projects/plan.md", rel)
	}
	if clean == "." {
		return ".", nil
	}
	for _, seg := range strings.Split(clean, "/") {
		where := fmt.Sprintf("%q in %q", seg, rel)
		if seg == clean {
			where = fmt.Sprintf("%q", seg)
		}
		switch {
		case len(seg) > maxSegmentBytes:
			return "", fail(ErrBadPath, "a name in %q is %d bytes long, more than the %d a filesystem allows; use a shorter name", rel, len(seg), maxSegmentBytes)
		case strings.HasSuffix(seg, ".") || strings.HasSuffix(seg, " "):
			return "", fail(ErrBadPath, "the name %s ends with a dot or a space, which Windows silently drops; remove it", where)
		case isDeviceName(seg):
			return "", fail(ErrBadPath, "%q is a reserved device name on Windows (CON, PRN, AUX, NUL, COM1-9, LPT1-9); choose another name", where)
		}
		if word, a, b, mixed := mixedScripts(seg); mixed {
			return "", fail(ErrBadPath, "the word %q in the name %s mixes %s and %s letters, which can make it look like another name; write it in one script", word, where, a, b)
		}
	}
	return clean, checkGit(clean, rel)
}

// checkGit refuses any path inside a .git folder: it is the history of the
// notes, not a note, and Quire never reads or changes it.
func checkGit(clean, rel string) error {
	for _, seg := range strings.Split(clean, "/") {
		up := strings.ToUpper(seg)
		short := strings.HasPrefix(up, "GIT~") && len(up) > 4 && strings.Trim(up[4:], "0123456789") == ""
		if up == ".GIT" || short {
			return fail(ErrBadPath, "%q is inside .git, the history of the notes folder, which Quire never reads or changes; use a note's path", rel)
		}
	}
	return nil
}

func isASCIILetter(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

// isBidiControl reports the invisible characters that reorder text, with
// which a name can display as something else (U+202A-U+202E, U+2066-U+2069,
// U+200E, U+200F, U+061C).
func isBidiControl(c rune) bool {
	return c >= 0x202A && c <= 0x202E || c >= 0x2066 && c <= 0x2069 || c == 0x200E || c == 0x200F || c == 0x061C
}

// isInvisible reports the characters that draw nothing, or draw as layout,
// beyond the bidirectional controls: every format character (Unicode
// category Cf: U+200B-U+200D zero-width space and joiners, U+2060 word
// joiner, U+FEFF the BOM, U+00AD soft hyphen, tag characters), the line and
// paragraph separators U+2028/U+2029 (they break a line in a dialog), and
// the letters that render blank (Hangul fillers, the braille blank).
func isInvisible(c rune) bool {
	switch c {
	case 0x2028, 0x2029, 0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800:
		return true
	}
	return unicode.Is(unicode.Cf, c)
}

// codePoint names a character for a sentence: U+200B.
func codePoint(c rune) string { return fmt.Sprintf("U+%04X", c) }

// allowedMixes are the sets of scripts one word may combine, from Unicode's
// "highly restrictive" level (UTS #39 §5.2): Japanese, Chinese and Korean
// writing mix their scripts with Latin, while Latin with Cyrillic or Greek
// is how a look-alike name is made (a Cyrillic "а" in "pаypal").
var allowedMixes = [][]*unicode.RangeTable{
	{unicode.Latin, unicode.Han, unicode.Hiragana, unicode.Katakana},
	{unicode.Latin, unicode.Han, unicode.Bopomofo},
	{unicode.Latin, unicode.Han, unicode.Hangul},
}

// mixedScripts finds a word of seg (a run of letters and marks) whose
// letters come from scripts no allowed mix combines; it returns the word
// and two of its scripts. Words are judged one by one, so "отчёт.md" (a
// Cyrillic word and a Latin extension) is a fine name.
func mixedScripts(seg string) (word, a, b string, mixed bool) {
	for _, w := range strings.FieldsFunc(seg, func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsMark(c) }) {
		var seen []string
		tables := map[string]*unicode.RangeTable{}
		for _, c := range w {
			name, t := scriptOf(c)
			if t == nil || tables[name] != nil {
				continue
			}
			tables[name] = t
			seen = append(seen, name)
		}
		if len(seen) < 2 || mixAllowed(tables) {
			continue
		}
		return w, seen[0], seen[1], true
	}
	return "", "", "", false
}

// scriptOf is the script of a letter, or nil for the characters every
// script shares (Common, Inherited: digits, punctuation, combining marks).
func scriptOf(c rune) (string, *unicode.RangeTable) {
	if unicode.Is(unicode.Latin, c) {
		return "Latin", unicode.Latin // by far the most common: no map walk
	}
	if unicode.Is(unicode.Common, c) || unicode.Is(unicode.Inherited, c) {
		return "", nil
	}
	for name, t := range unicode.Scripts {
		if unicode.Is(t, c) {
			return name, t
		}
	}
	return "", nil
}

func mixAllowed(scripts map[string]*unicode.RangeTable) bool {
	for _, mix := range allowedMixes {
		all := true
		for _, t := range scripts {
			if !slices.Contains(mix, t) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// isDeviceName reports a name Windows maps to a device whatever its
// extension or case: CON, CON.md, "nul .txt", COM¹.
func isDeviceName(seg string) bool {
	base, _, _ := strings.Cut(seg, ".")
	base = strings.ToUpper(strings.TrimRight(base, " "))
	switch base {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$", "CLOCK$":
		return true
	}
	if strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT") {
		switch base[3:] {
		case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³":
			return true
		}
	}
	return false
}

// notPortable are the characters Windows forbids in a name; a name Quire
// creates must not contain them, so the notes folder can move between systems.
const notPortable = `<>"|?*`

// mustBeVisible refuses a change in a hidden file or folder (a name that
// starts with a dot, as named or as its links resolve): .git, .obsidian and
// .trash belong to other programs, and list_notes, find_notes and the
// Notes panel leave them out, so a note written or moved there would be
// out of the user's sight. Reading one is still allowed, and so is an
// undo, which puts back what was there.
func mustBeVisible(t target) error {
	for _, p := range []string{t.rel, t.real} {
		for _, seg := range strings.Split(p, "/") {
			if seg != "." && seg != ".." && hidden(seg) {
				return fail(ErrBadPath, "%q is in the hidden %s, which belongs to another program and is left out of the notes list (names starting with a dot, like .git or .obsidian), so the note tools change nothing there; use a visible folder, like projects/", t.rel, seg)
			}
		}
	}
	return nil
}

// checkNew applies the rules for names a tool is about to create (t does not
// exist): they must be portable, and the first new name must not differ only
// in case from an entry already there (on macOS and Windows the two would be
// the same file). except is the real path of an entry to ignore: a move's
// source, which may be renamed to a different capitalisation of itself.
func (r *Root) checkNew(t target, except string) error {
	segs := strings.Split(t.rel, "/")
	for _, seg := range segs[t.newAt:] {
		if strings.ContainsAny(seg, notPortable) {
			return fail(ErrBadPath, "the name %q contains one of %s, which names cannot contain on Windows; choose another name", seg, notPortable)
		}
	}
	if t.newAt >= len(segs) {
		return nil
	}
	seg := segs[t.newAt]
	entries, err := fs.ReadDir(r.fs.FS(), t.parent)
	if err != nil {
		return fmt.Errorf("the folder of %q cannot be read: %w", t.rel, err)
	}
	for _, e := range entries {
		if e.Name() != seg && strings.EqualFold(e.Name(), seg) && path.Join(t.parent, e.Name()) != except {
			existing := path.Join(append(segs[:t.newAt:t.newAt], e.Name())...)
			return fail(ErrExists, "%q differs only in capitalisation from the existing %s, and on macOS and Windows they would be the same file; use %s, or a different name", t.rel, existing, existing)
		}
	}
	return nil
}
