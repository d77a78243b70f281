package parse

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// ReadPDF extracts the text of a PDF page by page. Each page starts with
// a level-1 heading block titled "Page N" (with no text and no lines), so
// citations name the page; the page's text follows as body blocks, split
// into lines by the glyphs' positions and into paragraphs at larger
// vertical gaps. Line numbers count lines of the page's extracted text.
//
// The PDF reader panics on some damaged files; a panic is turned into
// ErrMalformed. A page that cannot be read is skipped; a file with no
// readable page is ErrMalformed. Encrypted files are refused.
//
// At most maxPages pages are read (0: the package's own ceiling of
// 100,000); a longer PDF is a *LimitError before any page is extracted.
func ReadPDF(r io.ReaderAt, size int64, maxPages int, emit func(Block) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: the PDF could not be read (%v)", ErrMalformed, p)
		}
	}()
	rd, err := pdf.NewReader(pdfHeader{r}, size)
	if err != nil {
		msg := err.Error()
		if strings.Contains(strings.ToLower(msg), "password") || strings.Contains(strings.ToLower(msg), "encrypt") {
			return fmt.Errorf("%w: the PDF is encrypted", ErrUnsupported)
		}
		return fmt.Errorf("%w: %s", ErrMalformed, msg)
	}
	pages, err := pageList(rd, maxPages)
	if err != nil {
		return err
	}
	read, failed := 0, 0
	var firstErr error
	for i, page := range pages {
		lines, err := pageLines(page, i+1)
		if err != nil {
			failed++
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		read++
		if err := emitPage(i+1, lines, emit); err != nil {
			return err
		}
	}
	if read == 0 && failed > 0 {
		return fmt.Errorf("%w: no page of the PDF could be read (%v)", ErrMalformed, firstErr)
	}
	return nil
}

// pdfHeader presents a "%PDF-2.0" (or otherwise unusual) header as
// "%PDF-1.7\n": the reader only accepts 1.x headers, and nothing it reads
// differs in 2.0. Offsets are unchanged, so the cross-reference table holds.
type pdfHeader struct{ r io.ReaderAt }

func (h pdfHeader) ReadAt(p []byte, off int64) (int, error) {
	n, err := h.r.ReadAt(p, off)
	const fixed = "%PDF-1.7\n"
	if off < int64(len(fixed)) && n > 0 {
		head := make([]byte, 5)
		if m, _ := h.r.ReadAt(head, 0); m == 5 && string(head) == "%PDF-" {
			for i := off; i < int64(len(fixed)) && i-off < int64(n); i++ {
				if i >= 5 {
					p[i-off] = fixed[i]
				}
			}
		}
	}
	return n, err
}

// Bounds on walking a page tree, which a damaged file can make cyclic
// (a Pages node among its own kids), shared (one page listed 300,000
// times) or huge. With no page limit given, maxPages still holds.
const (
	maxPages     = 100000
	maxTreeDepth = 64
)

// errPageTree: the page tree lists a node twice, which no valid PDF does
// (every node has one parent); walking it anyway is how a 710-byte file
// once made 80,000 chunks.
var errPageTree = errors.New("the PDF's page tree is damaged")

// pageList walks the page tree in order, remembering every node it has
// seen by its object number, so a cycle or a node listed twice stops the
// walk at once (ErrMalformed) instead of repeating it; more than limit
// pages is a *LimitError, found before any page is read. The reader's own
// Page(n) loops forever on a cyclic tree.
func pageList(rd *pdf.Reader, limit int) ([]pdf.Page, error) {
	if limit <= 0 || limit > maxPages {
		limit = maxPages
	}
	var out []pdf.Page
	seen := map[string]bool{}
	// A backstop for kids that are not all references (which no valid
	// tree has), whose repeats seen cannot catch.
	nodes, maxNodes := 0, 4*limit+64
	var walk func(v pdf.Value, depth int) error
	walk = func(v pdf.Value, depth int) error {
		if nodes++; depth > maxTreeDepth || nodes > maxNodes {
			return fmt.Errorf("%w: %w (more than %d levels deep or %d nodes)", ErrMalformed, errPageTree, maxTreeDepth, maxNodes)
		}
		kids := v.Key("Kids")
		switch {
		case v.Key("Type").Name() == "Pages" || kids.Kind() == pdf.Array:
			refs := references(kids)
			for i := 0; i < kids.Len(); i++ {
				if refs != nil {
					// Checked before the kid is resolved: resolving reads
					// and parses the object again every time.
					if seen[refs[i]] {
						return fmt.Errorf("%w: %w (object %s is listed twice); save it again from a PDF viewer to index it", ErrMalformed, errPageTree, refs[i])
					}
					seen[refs[i]] = true
				}
				if err := walk(kids.Index(i), depth+1); err != nil {
					return err
				}
			}
		case v.Key("Type").Name() == "Page" || !v.Key("Contents").IsNull():
			if len(out) >= limit {
				return &LimitError{Limit: LimitPages, Max: int64(limit)}
			}
			out = append(out, pdf.Page{V: v})
		}
		return nil
	}
	err := walk(rd.Trailer().Key("Root").Key("Pages"), 0)
	return out, err
}

// references returns the object numbers ("12 0") of an array whose
// elements are all indirect references, as a Kids array must be; nil for
// any other array, whose kids are then walked without identity (inline
// objects cannot point back but through a reference, which is tracked).
func references(arr pdf.Value) []string {
	s := arr.String() // "[3 0 R 4 0 R]": the reader prints references without resolving them
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return nil
	}
	s = s[1 : len(s)-1]
	out := make([]string, 0, arr.Len())
	// Scanned in place (the ids are slices of s), not split into fields:
	// a Kids array of 300,000 references is a 2 MB string.
	for len(s) > 0 {
		id, rest, ok1 := strings.Cut(s, " ")
		gen, rest, ok2 := strings.Cut(rest, " ")
		r, rest, _ := strings.Cut(rest, " ")
		if !ok1 || !ok2 || r != "R" || !digits(id) || !digits(gen) {
			return nil
		}
		out = append(out, s[:len(id)+1+len(gen)])
		s = rest
	}
	if len(out) != arr.Len() {
		return nil
	}
	return out
}

func digits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

func pageLines(page pdf.Page, num int) (lines []string, err error) {
	defer func() {
		if p := recover(); p != nil {
			lines, err = nil, fmt.Errorf("page %d: %v", num, p)
		}
	}()
	if page.V.IsNull() {
		return nil, nil
	}
	var (
		cur                 strings.Builder
		lastX, lastY, lastF float64
		first               = true
	)
	endLine := func(blank bool) {
		lines = append(lines, strings.TrimSpace(cur.String()))
		cur.Reset()
		if blank {
			lines = append(lines, "")
		}
	}
	for _, t := range page.Content().Text {
		s := strings.Map(func(r rune) rune {
			if unicode.IsControl(r) {
				return -1
			}
			return r
		}, t.S)
		if s == "" {
			continue
		}
		f := math.Abs(t.FontSize)
		if f < 1 || math.IsNaN(f) || math.IsInf(f, 0) {
			f = 10
		}
		if !first {
			dy := lastY - t.Y
			switch {
			case math.Abs(dy) > 0.5*math.Max(f, lastF):
				// A new line; a gap of two lines or a move up (a new
				// column or box) starts a new paragraph.
				endLine(dy > 1.9*math.Max(f, lastF) || dy < 0)
			case t.X > lastX+0.3*f && cur.Len() > 0 && !strings.HasSuffix(cur.String(), " ") && s != " ":
				cur.WriteByte(' ')
			}
		}
		first = false
		cur.WriteString(s)
		w := t.W
		if w <= 0 || math.IsNaN(w) {
			w = 0 // unknown width: glyphs of one string share an X
		}
		lastX, lastY, lastF = t.X+w, t.Y, f
	}
	if cur.Len() > 0 {
		endLine(false)
	}
	return lines, nil
}

func emitPage(num int, lines []string, emit func(Block) error) error {
	// Drop blank lines at the ends; keep numbering of what remains.
	if err := emit(Block{Level: 1, Title: fmt.Sprintf("Page %d", num)}); err != nil {
		return err
	}
	var p paragraph
	for i, l := range lines {
		if l == "" {
			if err := p.flush(emit); err != nil {
				return err
			}
			continue
		}
		for len(l) > 0 {
			piece := l
			more := false
			if len(piece) > MaxBlock/2 {
				piece = cutRunes(piece, MaxBlock/2)
				more = true
			}
			if err := p.add(piece, i+1, more, emit); err != nil {
				return err
			}
			l = l[len(piece):]
		}
	}
	return p.flush(emit)
}

// cutRunes returns the longest prefix of s of at most n bytes that ends on
// a rune boundary (at least one rune).
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	if n == 0 {
		_, size := utf8.DecodeRuneInString(s)
		return s[:size]
	}
	return s[:n]
}

func isRuneStart(b byte) bool { return utf8.RuneStart(b) }
