package notes

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"quire/kernel/tool"
)

const (
	defaultDepth   = 2
	maxDepth       = 10
	maxListEntries = 200
	maxReadOutput  = 64 << 10 // bytes of note text one read_note returns
	defaultHits    = 20
	maxHits        = 200
	maxLineBytes   = 1 << 20 // a longer line ends the search of its file
	snippetRunes   = 160
	dateLayout     = "2006-01-02 15:04"
)

// Entry is one file or folder in a listing.
type Entry struct {
	Path     string    `json:"path"`
	Folder   bool      `json:"folder,omitempty"`
	Link     bool      `json:"link,omitempty"`
	Size     int64     `json:"size"`
	Modified time.Time `json:"modified"`
	// Unlisted counts a folder's entries below the listing's depth.
	Unlisted int `json:"unlisted,omitempty"`
}

// Listing is the Data of list_notes.
type Listing struct {
	Path      string  `json:"path"`
	Depth     int     `json:"depth"`
	Entries   []Entry `json:"entries"`
	Truncated bool    `json:"truncated,omitempty"`
}

func hidden(name string) bool { return strings.HasPrefix(name, ".") }

func listNotes(r *Root) tool.Tool {
	type args struct {
		Path  string `json:"path"`
		Depth *int   `json:"depth"`
	}
	params := []param{
		{"path", false, str("Folder to list, like projects; default: all.")},
		{"depth", false, integer(fmt.Sprintf("Folder levels to show. Default %d.", defaultDepth), 1, maxDepth)},
	}
	spec := readSpec("list_notes", fmt.Sprintf("List notes and folders as a tree with sizes and dates (at most %d entries; hidden files left out).", maxListEntries), readTimeout)
	return newTool(spec, params, func(ctx context.Context, _ tool.Call, a args) (tool.Result, error) {
		depth := defaultDepth
		if a.Depth != nil {
			depth = *a.Depth
		}
		if depth < 1 || depth > maxDepth {
			return tool.Result{}, fail(tool.ErrInvalidArgs, "the depth must be between 1 and %d, not %d", maxDepth, depth)
		}
		rel := a.Path
		if rel == "" {
			rel = "."
		}
		t, err := r.resolve(rel)
		if err != nil {
			return tool.Result{}, err
		}
		if !t.exists {
			return tool.Result{}, fail(ErrNotFound, "%q does not exist; call list_notes without a path to see the top of the notes folder", t.rel)
		}
		l := Listing{Path: t.rel, Depth: depth, Entries: []Entry{}}
		if !t.info.IsDir() {
			l.Entries = append(l.Entries, Entry{Path: t.rel, Size: t.info.Size(), Modified: t.info.ModTime()})
		} else if err := r.list(ctx, &l, t.real, t.rel, 1); err != nil {
			return tool.Result{}, err
		}
		return listResult(l), nil
	})
}

// list appends the entries of the folder real (shown as shown) to l, going
// down to l.Depth; it stops at maxListEntries. Links are listed, not followed.
func (r *Root) list(ctx context.Context, l *Listing, real, shown string, level int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := fs.ReadDir(r.fs.FS(), real)
	if err != nil {
		return fmt.Errorf("the folder %q cannot be read: %w", shown, err)
	}
	for _, e := range entries {
		if hidden(e.Name()) {
			continue
		}
		if len(l.Entries) == maxListEntries {
			l.Truncated = true
			return nil
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		en := Entry{Path: joinShown(shown, e.Name()), Folder: e.IsDir(), Link: e.Type()&fs.ModeSymlink != 0, Modified: info.ModTime()}
		if !en.Folder {
			en.Size = info.Size()
		}
		l.Entries = append(l.Entries, en)
		if !en.Folder {
			continue
		}
		sub := path.Join(real, e.Name())
		if level >= l.Depth {
			l.Entries[len(l.Entries)-1].Unlisted = countVisible(r, sub)
			continue
		}
		if err := r.list(ctx, l, sub, en.Path, level+1); err != nil {
			return err
		}
		if l.Truncated {
			return nil
		}
	}
	return nil
}

func joinShown(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}

func countVisible(r *Root, dir string) int {
	entries, _ := fs.ReadDir(r.fs.FS(), dir)
	n := 0
	for _, e := range entries {
		if !hidden(e.Name()) {
			n++
		}
	}
	return n
}

func listResult(l Listing) tool.Result {
	where := "the notes folder"
	if l.Path != "." {
		where = l.Path + "/"
	}
	if len(l.Entries) == 0 {
		return tool.Result{Status: tool.Empty, Content: fmt.Sprintf("%s is empty.", capitalise(where)), Data: l}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (depth %d, %s):\n", capitalise(where), l.Depth, plural(len(l.Entries), "entry", "entries"))
	for _, e := range l.Entries {
		date := e.Modified.Local().Format(dateLayout)
		switch {
		case e.Folder && e.Link:
			fmt.Fprintf(&b, "%s/  folder (link)  %s\n", e.Path, date)
		case e.Folder:
			fmt.Fprintf(&b, "%s/  folder  %s", e.Path, date)
			if e.Unlisted > 0 {
				fmt.Fprintf(&b, "  (%s not listed)", plural(e.Unlisted, "entry", "entries"))
			}
			b.WriteByte('\n')
		case e.Link:
			fmt.Fprintf(&b, "%s  link  %s\n", e.Path, date)
		default:
			fmt.Fprintf(&b, "%s  %s  %s\n", e.Path, humanSize(e.Size), date)
		}
	}
	res := tool.Result{Status: tool.Success, Data: l}
	if l.Truncated {
		res.Status = tool.Partial
		fmt.Fprintf(&b, "Only the first %d entries are listed; list a subfolder, or a smaller depth, to see the rest.\n", maxListEntries)
	}
	res.Content = strings.TrimSuffix(b.String(), "\n")
	return res
}

func capitalise(s string) string {
	if strings.HasPrefix(s, "the ") {
		return "The " + s[4:]
	}
	return s
}

// Excerpt is the Data of read_note.
type Excerpt struct {
	Path       string    `json:"path"`
	StartLine  int       `json:"startLine"`
	EndLine    int       `json:"endLine"`
	TotalLines int       `json:"totalLines"`
	Size       int64     `json:"size"`
	Modified   time.Time `json:"modified"`
}

func readNote(r *Root) tool.Tool {
	type args struct {
		Path      string `json:"path"`
		StartLine *int   `json:"startLine"`
		EndLine   *int   `json:"endLine"`
	}
	params := []param{
		{"path", true, str(notePath)},
		{"startLine", false, integer("First line, from 1.", 1, 1<<30)},
		{"endLine", false, integer("Last line.", 1, 1<<30)},
	}
	spec := readSpec("read_note", fmt.Sprintf("Read a note, whole or some lines (at most %s at once: the result says which lines).", humanSize(maxReadOutput)), readTimeout)
	return newTool(spec, params, func(ctx context.Context, _ tool.Call, a args) (tool.Result, error) {
		t, err := r.resolve(a.Path)
		if err != nil {
			return tool.Result{}, err
		}
		text, err := r.readText(t)
		if err != nil {
			return tool.Result{}, err
		}
		x := Excerpt{Path: t.rel, Size: t.info.Size(), Modified: t.info.ModTime()}
		if text == "" {
			return tool.Result{Status: tool.Empty, Content: fmt.Sprintf("%q is empty.", t.rel), Data: x}, nil
		}
		lines := splitLines(text)
		x.TotalLines = len(lines)
		x.StartLine, x.EndLine = 1, len(lines)
		if a.StartLine != nil {
			x.StartLine = *a.StartLine
		}
		if a.EndLine != nil {
			x.EndLine = min(*a.EndLine, len(lines))
		}
		if x.StartLine < 1 {
			return tool.Result{}, fail(tool.ErrInvalidArgs, "the startLine counts from 1, so it cannot be %d", x.StartLine)
		}
		if x.StartLine > len(lines) {
			return tool.Result{Status: tool.Empty, Content: fmt.Sprintf("%q has %d lines; startLine %d is past its end.", t.rel, len(lines), x.StartLine), Data: x}, nil
		}
		if x.EndLine < x.StartLine {
			return tool.Result{}, fail(tool.ErrInvalidArgs, "the endLine %d is before the startLine %d", x.EndLine, x.StartLine)
		}
		var b strings.Builder
		partial := false
		for i := x.StartLine; i <= x.EndLine; i++ {
			line := lines[i-1]
			if b.Len()+len(line) > maxReadOutput {
				if i == x.StartLine { // one line longer than the budget: its start
					b.WriteString(cutRunes(line, maxReadOutput))
					x.EndLine = i
				} else {
					x.EndLine = i - 1
				}
				partial = true
				break
			}
			b.WriteString(line)
		}
		var head string
		if x.StartLine == 1 && x.EndLine == x.TotalLines && !partial {
			head = fmt.Sprintf("%s (%d lines, the whole note):\n", t.rel, x.TotalLines)
		} else {
			head = fmt.Sprintf("%s, lines %d-%d of %d:\n", t.rel, x.StartLine, x.EndLine, x.TotalLines)
		}
		res := tool.Result{Status: tool.Success, Content: head + b.String(), Data: x}
		if partial {
			res.Status = tool.Partial
			next := x.EndLine + 1
			if next > x.TotalLines {
				res.Content += fmt.Sprintf("\n[line %d is longer than %s and was cut]", x.EndLine, humanSize(maxReadOutput))
			} else {
				res.Content += fmt.Sprintf("\n[%s at a time; call read_note with startLine %d to read on]", humanSize(maxReadOutput), next)
			}
		}
		return res, nil
	})
}

// splitLines splits text after each line ending, keeping the endings.
func splitLines(text string) []string {
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// cutRunes cuts s to at most n bytes without splitting a character.
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Hit is one match of find_notes: a name (Line 0) or a line of a note.
type Hit struct {
	Path string `json:"path"`
	Line int    `json:"line,omitempty"`
	Text string `json:"text,omitempty"`
}

// Found is the Data of find_notes.
type Found struct {
	Query     string `json:"query"`
	In        string `json:"in"`
	Hits      []Hit  `json:"hits"`
	Truncated bool   `json:"truncated,omitempty"`
	Skipped   int    `json:"skipped,omitempty"` // binary or unreadable files not searched
	// Source says which answered: FromIndex (ranked, bounded, no file
	// read) or FromScan (every file read, in name order).
	Source string `json:"source"`
	// Why the scan answered when a Finder is set (its error), else "".
	Why string `json:"why,omitempty"`
}

// Found.Source values.
const (
	FromIndex = "index"
	FromScan  = "scan"
)

// Finder answers find_notes from an index of the folder: names matched
// as the scan matches them, text ranked by the index's words, at most
// limit hits (more reports that there were others). While the index has
// not read the whole folder it answers ErrIndexNotReady, and the folder
// is read instead, as a move is planned from a scan while the graph is
// not ready.
type Finder interface {
	Find(ctx context.Context, query, in string, limit int) (hits []Hit, more bool, err error)
}

// WithFinder answers find_notes from f when it is ready.
func WithFinder(f Finder) Option { return func(r *Root) { r.finder = f } }

func findNotes(r *Root) tool.Tool {
	type args struct {
		Query string `json:"query"`
		In    string `json:"in"`
		Limit *int   `json:"limit"`
	}
	in := str(`"name", "content" or "both" (default).`)
	in["enum"] = []string{"name", "content", "both"}
	query := str("Plain text to find; case does not matter.")
	query["minLength"] = 1
	params := []param{
		{"query", true, query},
		{"in", false, in},
		{"limit", false, integer(fmt.Sprintf("Most matches. Default %d.", defaultHits), 1, maxHits)},
	}
	spec := readSpec("find_notes", "Search note names and text. Returns paths and matching lines with their numbers.", findTimeout)
	return newTool(spec, params, func(ctx context.Context, _ tool.Call, a args) (tool.Result, error) {
		if strings.TrimSpace(a.Query) == "" {
			return tool.Result{}, fail(tool.ErrInvalidArgs, "the query is empty; give the text to look for")
		}
		if a.In == "" {
			a.In = "both"
		}
		if a.In != "name" && a.In != "content" && a.In != "both" {
			return tool.Result{}, fail(tool.ErrInvalidArgs, `the in argument must be "name", "content" or "both", not %q`, a.In)
		}
		limit := defaultHits
		if a.Limit != nil {
			limit = *a.Limit
		}
		if limit < 1 || limit > maxHits {
			return tool.Result{}, fail(tool.ErrInvalidArgs, "the limit must be between 1 and %d, not %d", maxHits, limit)
		}
		f := Found{Query: a.Query, In: a.In, Hits: []Hit{}, Source: FromScan}
		if r.finder != nil {
			hits, more, err := r.finder.Find(ctx, a.Query, a.In, limit)
			if err == nil {
				f.Hits, f.Truncated, f.Source = append(f.Hits, hits...), more, FromIndex
				return foundResult(f, limit), nil
			}
			if cerr := ctx.Err(); cerr != nil {
				return tool.Result{}, cerr
			}
			f.Why = err.Error()
		}
		if err := r.find(ctx, &f, limit); err != nil {
			return tool.Result{}, err
		}
		return foundResult(f, limit), nil
	})
}

// find walks the notes folder in name order and collects up to limit hits.
func (r *Root) find(ctx context.Context, f *Found, limit int) error {
	q := strings.ToLower(f.Query)
	names, contents := f.In != "content", f.In != "name"
	full := func() bool {
		if len(f.Hits) > limit {
			f.Hits, f.Truncated = f.Hits[:limit], true
			return true
		}
		return false
	}
	return fs.WalkDir(r.fs.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if p == "." {
			return err
		}
		if hidden(d.Name()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if err != nil {
			f.Skipped++
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		if names && strings.Contains(strings.ToLower(p), q) {
			shown := p
			if d.IsDir() {
				shown += "/"
			}
			f.Hits = append(f.Hits, Hit{Path: shown})
			if full() {
				return fs.SkipAll
			}
		}
		if contents && d.Type().IsRegular() {
			if !r.grep(p, q, f, limit) {
				f.Skipped++
			}
			if full() {
				return fs.SkipAll
			}
		}
		return nil
	})
}

// grep streams the file p line by line, adding the lines that contain q
// (already lower-case) to f until it holds one more hit than limit. It
// reports false for a file it could not search: unreadable or binary.
func (r *Root) grep(p, q string, f *Found, limit int) bool {
	file, err := r.fs.Open(osName(p))
	if err != nil {
		return false
	}
	defer file.Close()
	br := bufio.NewReaderSize(file, 64<<10)
	head, _ := br.Peek(sniffBytes)
	if looksBinary(head, len(head) < sniffBytes) {
		return false
	}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 0, 64<<10), maxLineBytes)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		lower := strings.ToLower(line)
		i := strings.Index(lower, q)
		if i < 0 {
			continue
		}
		if len(lower) != len(line) { // case folding moved the bytes; show the line's start
			i = 0
		}
		f.Hits = append(f.Hits, Hit{Path: p, Line: n, Text: snippet(line, i)})
		if len(f.Hits) > limit {
			return true
		}
	}
	return true
}

// snippet is the line, cut to about snippetRunes around byte offset at.
func snippet(line string, at int) string {
	line = strings.TrimRight(line, "\r")
	if utf8.RuneCountInString(line) <= snippetRunes {
		return strings.TrimSpace(line)
	}
	start := max(0, at-snippetRunes/3)
	for start > 0 && !utf8.RuneStart(line[start]) {
		start--
	}
	out := cutRunes(line[start:], snippetRunes*2)
	rs := []rune(out)
	if len(rs) > snippetRunes {
		out = string(rs[:snippetRunes])
	}
	prefix, suffix := "", ""
	if start > 0 {
		prefix = "…"
	}
	if start+len(out) < len(line) {
		suffix = "…"
	}
	return prefix + strings.TrimSpace(out) + suffix
}

func foundResult(f Found, limit int) tool.Result {
	where := map[string]string{"name": "names", "content": "notes' text", "both": "names or notes' text"}[f.In]
	if len(f.Hits) == 0 {
		return tool.Result{Status: tool.Empty, Content: fmt.Sprintf("Nothing in the notes folder matches %q in %s.\n%s", f.Query, where, sourceLine(f)), Data: f}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s for %q in %s:\n", plural(len(f.Hits), "match", "matches"), f.Query, where)
	for _, h := range f.Hits {
		switch {
		case h.Line == 0 && h.Text == "":
			fmt.Fprintf(&b, "%s (name)\n", h.Path)
		case h.Line == 0: // an index's hit by title, alias or heading
			fmt.Fprintf(&b, "%s: %s\n", h.Path, h.Text)
		default:
			fmt.Fprintf(&b, "%s:%d: %s\n", h.Path, h.Line, h.Text)
		}
	}
	res := tool.Result{Status: tool.Success, Data: f}
	if f.Truncated {
		res.Status = tool.Partial
		fmt.Fprintf(&b, "There are more than %d matches; use a more precise query, or a larger limit.\n", limit)
	}
	if f.Skipped > 0 {
		fmt.Fprintf(&b, "%s not searched.\n", plural(f.Skipped, "binary or unreadable file was", "binary or unreadable files were"))
	}
	b.WriteString(sourceLine(f))
	res.Content = strings.TrimSuffix(b.String(), "\n")
	return res
}

// sourceLine says which answered a find: the model weighs a ranked
// answer of whole words otherwise than every substring in name order.
func sourceLine(f Found) string {
	switch {
	case f.Source == FromIndex:
		return "(Answered by the notes index: names containing the text, then notes ranked by its words.)"
	case f.Why != "":
		return "(Answered by reading every file: " + f.Why + ".)"
	}
	return "(Answered by reading every file.)"
}
