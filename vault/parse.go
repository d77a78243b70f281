package vault

import (
	"bytes"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"gopkg.in/yaml.v3"
)

// Link is one link as written in a note.
type Link struct {
	Wiki  bool // [[target#sub|text]] (true) or [text](dest#sub) (false)
	Embed bool // ![[…]] or ![…](…)
	// Target names the file, decoded (%20 → space, <…> unwrapped), without
	// #sub: "Note", "folder/Note", "../a b.md", "image.png"; "" for
	// "#Heading" in the same note.
	Target string
	Sub    string // after '#', without it: "Heading" or "^block-id"; "" when none
	Text   string // [[t|Text]] / [Text](d); "" when none
	// Start, End: the byte range in the note's text of the link as written
	// (the whole [[…]] / ![[…]] / [..](..)); for a link inside a front
	// matter property, the range of that link's text.
	Start, End int
	Line       int    // 1-based line of Start
	Property   string // front matter key it sits under; "" in the body
}

// Note is what one note holds, parsed from its text. Parse never fails:
// what cannot be read is said in Problem and the rest is still returned.
type Note struct {
	Path     string   // slash-separated, relative to the vault folder, with extension
	Title    string   // first H1, else the file name without extension (Logseq: title::)
	Aliases  []string // front matter aliases/alias (list or string); Logseq alias:: (and title::)
	Tags     []string // front matter tags and #tags in the body (without '#')
	Headings []string
	Blocks   []string // block ids (without '^')
	Links    []Link   // in text order; never inside code fences or inline code
	Problem  string   // a sentence
}

// MaxParseBytes bounds what Parse reads of one note: the rest of a larger
// note is left out, and its Problem says so.
const MaxParseBytes = 4 << 20

// span is a Link with where its target is written, which a move rewrites
// in place: the target's raw bytes (no #sub, no alias, inside <…>).
type span struct {
	Link
	tStart, tEnd int
	angle        bool // a Markdown destination written <…>
	dot          bool // the raw target starts with "./"
}

// Parse reads one note. It never panics and never fails: a part it cannot
// read is named in Problem and the rest is still returned.
func Parse(p string, text []byte) Note {
	n, _ := parse(newParser(), p, text)
	return n
}

// parse reads a note with md, a parser from newParser (one may serve many
// notes, one at a time or at once: its parts keep no state between calls).
func parse(md parser.Parser, p string, src []byte) (n Note, spans []span) {
	n = Note{Path: p, Title: strings.TrimSuffix(path.Base(p), path.Ext(p))}
	var problems []string
	if len(src) > MaxParseBytes {
		cut := bytes.LastIndexByte(src[:MaxParseBytes], '\n')
		if cut < 0 {
			cut = MaxParseBytes
		}
		src = src[:cut]
		problems = append(problems, fmt.Sprintf("the note is larger than %d MiB; only its first %d MiB were read", MaxParseBytes>>20, MaxParseBytes>>20))
	}
	if bytes.IndexByte(src[:min(len(src), 8192)], 0) >= 0 {
		n.Problem = "the file holds binary content, not text; it was not read as a note"
		return n, nil
	}
	if !utf8.Valid(src) {
		problems = append(problems, "the note is not valid UTF-8 text; what could be read was read")
	}

	fmEnd := 0
	if fmStart, fmStop, end, ok := frontMatter(src); ok {
		fmEnd = end
		fspans, prob := n.readFrontMatter(src, fmStart, fmStop)
		spans = append(spans, fspans...)
		if prob != "" {
			problems = append(problems, prob)
		}
	}
	title := ""
	body := src[fmEnd:]
	if t, ok := n.readLogseqProperties(body); ok {
		title = t
	}
	bounded, blanked, first := boundLines(src, fmEnd)
	if blanked > 0 {
		problems = append(problems, fmt.Sprintf("%d paragraphs too full of brackets to read were left out of the links (the first at line %d)", blanked, first))
	}
	bspans := n.readBody(md, bounded, fmEnd, &title)
	spans = append(spans, bspans...)
	if title != "" {
		n.Title = title
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].Start < spans[j].Start })
	line, at := 1, 0
	n.Links = make([]Link, 0, len(spans))
	for i := range spans {
		line += bytes.Count(src[at:spans[i].Start], []byte{'\n'})
		at = spans[i].Start
		spans[i].Line = line
		n.Links = append(n.Links, spans[i].Link)
	}
	if len(n.Links) == 0 {
		n.Links = nil
	}
	n.Tags = dedupe(n.Tags)
	n.Aliases = dedupe(n.Aliases)
	n.Blocks = dedupe(n.Blocks)
	n.Problem = strings.Join(problems, "; ")
	return n, spans
}

func dedupe(xs []string) []string {
	if len(xs) == 0 {
		return nil
	}
	seen := make(map[string]bool, len(xs))
	out := xs[:0]
	for _, x := range xs {
		if x == "" || seen[x] {
			continue
		}
		seen[x] = true
		out = append(out, x)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// frontMatter finds YAML front matter: only at the very top, between a
// first line "---" and the next line "---" (or "...").
// It gives where the YAML starts and stops, and where the body starts.
func frontMatter(src []byte) (start, stop, end int, ok bool) {
	first, rest, found := cutLine(src)
	if !found || string(bytes.TrimRight(first, " \t\r")) != "---" {
		return 0, 0, 0, false
	}
	off := len(src) - len(rest)
	start = off
	for off < len(src) {
		line, next, _ := cutLine(src[off:])
		t := string(bytes.TrimRight(line, " \t\r"))
		if t == "---" || t == "..." {
			return start, off, len(src) - len(next), true
		}
		off = len(src) - len(next)
	}
	return 0, 0, 0, false
}

// cutLine splits off the first line (without its '\n'); found says a '\n' ended it.
func cutLine(b []byte) (line, rest []byte, found bool) {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i], b[i+1:], true
	}
	return b, b[len(b):], false
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// readFrontMatter reads aliases and tags through yaml.v3, and the links in
// property values from the raw lines, so their offsets are exact whatever
// YAML quoting they sit in (and even when the YAML is not valid).
func (n *Note) readFrontMatter(src []byte, base, fmEnd int) ([]span, string) {
	fm := src[base:fmEnd]
	problem := ""
	// Only these keys are read through YAML (the property links are read
	// from the raw lines); a struct spares building every value.
	var props struct {
		Aliases  any `yaml:"aliases"`
		Alias    any `yaml:"alias"`
		Tags     any `yaml:"tags"`
		Tag      any `yaml:"tag"`
		AliasesU any `yaml:"Aliases"`
		TagsU    any `yaml:"Tags"`
	}
	if err := yaml.Unmarshal(fm, &props); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		where := ""
		if m := yamlLine.FindStringSubmatch(msg); m != nil {
			var l int
			fmt.Sscan(m[1], &l)
			where = fmt.Sprintf(" (line %d)", l+1)
			msg = strings.TrimSpace(yamlLine.ReplaceAllString(msg, ""))
			msg = strings.TrimPrefix(msg, ": ")
		}
		problem = fmt.Sprintf("the front matter is not valid YAML%s: %s; its links were still read", where, msg)
	}
	for _, v := range []any{props.Aliases, props.Alias, props.AliasesU} {
		n.Aliases = append(n.Aliases, listValue(v, false)...)
	}
	for _, v := range []any{props.Tags, props.Tag, props.TagsU} {
		for _, t := range listValue(v, true) {
			n.Tags = append(n.Tags, strings.TrimPrefix(t, "#"))
		}
	}
	var spans []span
	key := ""
	off := 0
	for off < len(fm) {
		line, rest, _ := cutLine(fm[off:])
		lineStart := base + off
		off = len(fm) - len(rest)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		valueFrom := 0
		if line[0] != ' ' && line[0] != '\t' && line[0] != '-' {
			if c := bytes.IndexByte(line, ':'); c > 0 {
				key = strings.Trim(string(line[:c]), ` "'`)
				valueFrom = c + 1
			}
		}
		if key == "" {
			continue
		}
		spans = append(spans, inlineLinks(src, lineStart+valueFrom, lineStart+len(line), key)...)
	}
	return spans, problem
}

// listValue reads a YAML list or a string (split at commas, or also at
// spaces for tags) into strings.
func listValue(v any, spaces bool) []string {
	var out []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	switch x := v.(type) {
	case nil:
	case []any:
		for _, e := range x {
			if e != nil {
				add(fmt.Sprint(e))
			}
		}
	case string:
		sep := func(r rune) bool { return r == ',' || (spaces && unicode.IsSpace(r)) }
		for _, s := range strings.FieldsFunc(x, sep) {
			add(s)
		}
	default:
		add(fmt.Sprint(x))
	}
	return out
}

// inlineLinks finds wikilinks and Markdown links in src[from:to], text
// that is not Markdown (a property value): [[…]], ![[…]], [t](d), ![t](d).
func inlineLinks(src []byte, from, to int, key string) []span {
	var spans []span
	for i := from; i < to; i++ {
		c := src[i]
		if c != '[' && c != '!' {
			continue
		}
		if w, ok := scanWiki(src[i:to], i); ok {
			s := wikiSpan(w)
			s.Property = key
			spans = append(spans, s)
			i = w.End - 1
			continue
		}
		if s, ok := scanMarkdownLink(src, i, to); ok {
			s.Property = key
			spans = append(spans, s)
			i = s.End - 1
		}
	}
	return spans
}

// scanMarkdownLink reads [text](dest) or ![text](dest) at src[i] (in a
// property value: no nesting, one line).
func scanMarkdownLink(src []byte, i, to int) (span, bool) {
	start := i
	if src[i] == '!' {
		i++
	}
	if i >= to || src[i] != '[' {
		return span{}, false
	}
	close := bytes.IndexAny(src[i+1:to], "[]")
	if close < 0 || src[i+1+close] != ']' || i+close+2 >= to || src[i+close+2] != '(' {
		return span{}, false
	}
	close++
	labelEnd := i + close
	end := bytes.IndexByte(src[labelEnd:to], ')')
	if end < 0 {
		return span{}, false
	}
	dest := src[labelEnd+2 : labelEnd+end]
	return markdownSpan(src, start, labelEnd+end+1, labelEnd, dest, src[start] == '!', string(src[i+1:labelEnd]))
}

// markdownSpan makes the span of a Markdown link whose label closes at
// labelEnd and whose destination is dest (as goldmark read it, a subslice
// of what follows "](" in src). External links (a scheme, //host) give false.
func markdownSpan(src []byte, start, end, labelEnd int, dest []byte, embed bool, label string) (span, bool) {
	ds := labelEnd + 2
	for ds < end && (src[ds] == ' ' || src[ds] == '\t' || src[ds] == '\n' || src[ds] == '\r') {
		ds++
	}
	angle := false
	if ds < end && src[ds] == '<' {
		angle = true
		ds++
	}
	if ds+len(dest) > len(src) || !bytes.Equal(src[ds:ds+len(dest)], dest) {
		return span{}, false
	}
	raw := string(dest)
	if raw == "" || external(raw) {
		return span{}, false
	}
	tgt, sub, _ := strings.Cut(raw, "#")
	s := span{
		Link:   Link{Embed: embed, Target: decodeDest(tgt), Sub: decodeDest(sub), Text: label, Start: start, End: end},
		tStart: ds, tEnd: ds + len(tgt), angle: angle, dot: strings.HasPrefix(tgt, "./"),
	}
	return s, true
}

func wikiSpan(w *WikiLink) span {
	return span{
		Link:   Link{Wiki: true, Embed: w.Embed, Target: w.Target, Sub: w.Sub, Text: w.Alias, Start: w.Start, End: w.End},
		tStart: w.TargetStart, tEnd: w.TargetEnd, dot: strings.HasPrefix(w.Target, "./"),
	}
}

var scheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// external: a URL (scheme:, //host) is not a link into the vault.
func external(dest string) bool {
	return scheme.MatchString(dest) || strings.HasPrefix(dest, "//")
}

// decodeDest undoes backslash escapes and %-encoding; a malformed %
// sequence is kept as written.
func decodeDest(s string) string {
	if strings.IndexByte(s, '\\') >= 0 {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			if s[i] == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]) {
				i++
			}
			b.WriteByte(s[i])
		}
		s = b.String()
	}
	if strings.IndexByte(s, '%') >= 0 {
		if d, err := url.PathUnescape(s); err == nil {
			return d
		}
	}
	return s
}

func isASCIIPunct(c byte) bool {
	return c < 0x80 && unicode.IsPunct(rune(c)) || strings.IndexByte("$+<=>^`|~", c) >= 0
}

var logseqProp = regexp.MustCompile(`^\s*(?:- )?([A-Za-z0-9_-]+):: ?(.*)$`)

// readLogseqProperties reads the page properties on the first lines
// (key:: value): alias::, tags:: and title:: (the page's own name, which
// links resolve by, so it is kept among the aliases too).
func (n *Note) readLogseqProperties(body []byte) (title string, ok bool) {
	for len(body) > 0 {
		line, rest, _ := cutLine(body)
		body = rest
		m := logseqProp.FindSubmatch(bytes.TrimRight(line, "\r"))
		if m == nil {
			break
		}
		vals := func() []string {
			var out []string
			for _, v := range strings.Split(string(m[2]), ",") {
				v = strings.TrimSpace(v)
				v = strings.TrimPrefix(v, "#")
				v = strings.TrimSuffix(strings.TrimPrefix(v, "[["), "]]")
				if v != "" {
					out = append(out, v)
				}
			}
			return out
		}
		switch strings.ToLower(string(m[1])) {
		case "alias":
			n.Aliases = append(n.Aliases, vals()...)
		case "tags":
			n.Tags = append(n.Tags, vals()...)
		case "title":
			title, ok = strings.TrimSpace(string(m[2])), true
			n.Aliases = append(n.Aliases, title)
		}
	}
	return title, ok
}

// readBody walks goldmark's AST of the body (src[off:]): headings, links,
// wikilinks, #tags and ^block-ids, none of them inside code.
func (n *Note) readBody(md parser.Parser, src []byte, off int, title *string) []span {
	body := src[off:]
	doc := md.Parse(text.NewReader(body))
	var spans []span
	var runs [][2]int // runs of plain text, where tags and block ids are
	firstH1 := ""
	_ = ast.Walk(doc, func(node ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch x := node.(type) {
		case *ast.CodeBlock, *ast.FencedCodeBlock, *ast.HTMLBlock, *ast.CodeSpan, *ast.RawHTML, *ast.AutoLink:
			return ast.WalkSkipChildren, nil
		case *ast.Heading:
			h := strings.TrimSpace(string(headingText(x, body)))
			n.Headings = append(n.Headings, h)
			if x.Level == 1 && firstH1 == "" {
				firstH1 = h
			}
		case *WikiLink:
			w := *x
			w.Start += off
			w.End += off
			w.TargetStart += off
			w.TargetEnd += off
			spans = append(spans, wikiSpan(&w))
			return ast.WalkSkipChildren, nil
		case *ast.Link:
			if s, ok := astLinkSpan(src, off, x.Pos(), node, x.Destination, x.Reference != nil, false); ok {
				spans = append(spans, s)
			}
			return ast.WalkSkipChildren, nil
		case *ast.Image:
			if s, ok := astLinkSpan(src, off, x.Pos(), node, x.Destination, x.Reference != nil, true); ok {
				spans = append(spans, s)
			}
			return ast.WalkSkipChildren, nil
		case *ast.Text:
			seg := x.Segment
			if k := len(runs) - 1; k >= 0 && runs[k][1] == seg.Start {
				runs[k][1] = seg.Stop
			} else {
				runs = append(runs, [2]int{seg.Start, seg.Stop})
			}
		}
		return ast.WalkContinue, nil
	})
	for _, r := range runs {
		n.readRun(body, r[0], r[1])
	}
	if *title == "" && firstH1 != "" {
		*title = firstH1
	}
	return spans
}

// runBudget bounds a run of lines goldmark reads as one paragraph: its
// link parser scans ahead for each bracket it cannot close (and its
// reference definitions re-read the paragraph), so brackets × bytes of a
// paragraph is what it may cost. Real notes stay far below (a wrapped
// chapter of 300 KB with 1,000 links is 3·10^8); a paragraph of a
// million brackets is 10^12.
const runBudget = 1 << 31

// boundLines gives the text with every paragraph from off on that is over
// runBudget blanked (spaces, the same length, so every offset holds), how
// many, and the first one's line number. A run ends at a blank line and
// before a line that starts another block (a list item, a heading, a
// quote, a fence, a table row), so a long list is many small runs.
func boundLines(src []byte, off int) (out []byte, blanked, first int) {
	out = src
	runStart, brackets := off, 0
	flush := func(end int) {
		if int64(brackets)*int64(end-runStart) > runBudget {
			if blanked == 0 {
				out = bytes.Clone(src)
				first = 1 + bytes.Count(src[:runStart], []byte{'\n'})
			}
			blanked++
			for i := runStart; i < end; i++ {
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
		}
	}
	for at := off; at < len(src); {
		end := bytes.IndexByte(src[at:], '\n')
		if end < 0 {
			end = len(src) - at
		}
		line := src[at : at+end]
		if startsBlock(line) {
			flush(at)
			runStart, brackets = at, 0
		}
		brackets += openBrackets(line)
		at += end + 1
	}
	flush(len(src))
	return out, blanked, first
}

// openBrackets counts the '[' of a line that do not open a wikilink or a
// Markdown link closed on the line: the ones goldmark may scan ahead for.
// It looks at most maxDest bytes ahead for a link's ')', so it is linear.
func openBrackets(line []byte) int {
	const maxDest = 4096
	n := 0
	for i := 0; i < len(line); i++ {
		if line[i] != '[' {
			continue
		}
		if w, ok := scanWiki(line[i:], i); ok {
			i = w.End - 1
			continue
		}
		c := bytes.IndexAny(line[i+1:], "[]")
		if c >= 0 && line[i+1+c] == ']' && i+c+2 < len(line) && line[i+c+2] == '(' {
			rest := line[i+c+3 : min(len(line), i+c+3+maxDest)]
			if p := bytes.IndexByte(rest, ')'); p >= 0 {
				i += c + 3 + p
				continue
			}
		}
		n++
	}
	return n
}

// startsBlock: a blank line, or one that starts a block of its own.
func startsBlock(line []byte) bool {
	t := bytes.TrimLeft(line, " \t")
	if len(bytes.TrimRight(t, " \t\r")) == 0 {
		return true
	}
	switch t[0] {
	case '#', '>', '|', '`', '~':
		return true
	case '-', '*', '+':
		return len(t) > 1 && (t[1] == ' ' || t[1] == '\t')
	}
	d := 0
	for d < len(t) && d < 9 && t[d] >= '0' && t[d] <= '9' {
		d++
	}
	return d > 0 && d+1 < len(t) && (t[d] == '.' || t[d] == ')') && t[d+1] == ' '
}

func headingText(h *ast.Heading, src []byte) []byte {
	var b []byte
	lines := h.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b = append(b, seg.Value(src)...)
	}
	return b
}

// astLinkSpan makes a span of a goldmark Link or Image node, from the ends
// linkEnds recorded. Reference links ([t][ref]) are left out: their
// destination is written elsewhere, in the definition.
func astLinkSpan(src []byte, off, pos int, node ast.Node, dest []byte, ref, embed bool) (span, bool) {
	le, ok1 := node.AttributeString(attrLabelEnd)
	e, ok2 := node.AttributeString(attrEnd)
	if ref || !ok1 || !ok2 || pos < 0 {
		return span{}, false
	}
	labelEnd, end := le.(int)+off, e.(int)+off
	// The reader may stand past the line's end: the link ends at its ')'.
	if end > len(src) {
		end = len(src)
	}
	close := bytes.LastIndexByte(src[:end], ')')
	if close < labelEnd {
		return span{}, false
	}
	end = close + 1
	start := pos + off
	label := ""
	ls := start + 1
	if embed {
		ls++
	}
	if ls <= labelEnd {
		label = string(src[ls:labelEnd])
	}
	return markdownSpan(src, start, end, labelEnd, dest, embed, label)
}

// readRun reads #tags and ^block-ids in a run of plain text.
func (n *Note) readRun(src []byte, from, to int) {
	for i := from; i < to; i++ {
		c := src[i]
		if c != '#' && c != '^' {
			continue
		}
		if i > 0 && !isSpaceByte(src[i-1]) {
			continue
		}
		j := i + 1
		for j < to {
			r, size := utf8.DecodeRune(src[j:to])
			if r == utf8.RuneError || !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' || (c == '#' && r == '/')) {
				break
			}
			j += size
		}
		word := string(src[i+1 : j])
		if word == "" {
			continue
		}
		switch c {
		case '#':
			if strings.TrimFunc(word, unicode.IsDigit) != "" {
				n.Tags = append(n.Tags, word)
			}
		case '^':
			if atLineEnd(src, j) {
				n.Blocks = append(n.Blocks, word)
			}
		}
		i = j - 1
	}
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func atLineEnd(src []byte, j int) bool {
	for ; j < len(src); j++ {
		switch src[j] {
		case ' ', '\t', '\r':
		case '\n':
			return true
		default:
			return false
		}
	}
	return true
}

// Properties is a note's front matter as YAML values by key (nil when the
// note has none, or when it is not valid YAML: Parse's Problem says why).
// It is kept out of Note so that Parse reads only the keys it uses.
func Properties(text []byte) map[string]any {
	start, stop, _, ok := frontMatter(text)
	if !ok {
		return nil
	}
	var props map[string]any
	if yaml.Unmarshal(text[start:stop], &props) != nil {
		return nil
	}
	return props
}
