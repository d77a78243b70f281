// Package chunk packs parsed blocks into the chunks the index stores: one
// heading section per chunk, long sections split under a size cap, each
// chunk carrying its heading path and the source lines it covers.
//
// Rules, in order of precedence:
//   - no chunk's Text is longer than the cap (in bytes);
//   - a heading starts a new chunk; the chunk's heading path is the chain
//     of enclosing headings, outermost first ("Goals", "Budget");
//   - a heading with no text of its own before a deeper heading is kept
//     with that heading's chunk ("# Plan" then "## Goals" make one chunk
//     whose lines start at "# Plan"), so no chunk is a bare title unless the
//     document ends or a sibling follows;
//   - blocks of one section are packed together until the next would pass
//     the cap; a block longer than the cap is cut at a line end, else at a
//     space, else at a rune boundary.
//
// Chunking streams: it holds at most one chunk, so memory is bounded by the
// cap; Limit bounds how many chunks one document makes. It imports only the standard library and rag/parse (for Block). It
// must never import database/sql, chromem-go, a model client or the kernel.
package chunk

import (
	"strings"
	"unicode/utf8"

	"quire/rag/parse"
)

// Chunk is a piece of a document as the index stores it.
type Chunk struct {
	// Headings is the heading path, outermost first; empty before the
	// first heading and in formats without headings.
	Headings []string
	// Start and End are the first and last source line covered (from 1);
	// both 0 when the blocks had no source lines.
	Start, End int
	Text       string
}

// maxTitle bounds a heading title kept in a path.
const maxTitle = 200

// Splitter turns blocks into chunks. Add blocks in document order, then Close.
type Splitter struct {
	max  int
	emit func(Chunk) error

	limit, made int // most chunks to emit (0: no bound), and how many were

	stack []heading // open headings, outermost first

	parts       []string
	size        int
	start, end  int
	titleOnly   bool // the buffer holds only heading lines so far
	bufLevel    int  // level of the deepest heading in a title-only buffer
	bufHeadings []string
}

type heading struct {
	level int
	title string
}

// MinSize is the smallest cap New accepts.
const MinSize = 64

// New returns a Splitter that emits chunks of at most max bytes (at least MinSize).
func New(max int, emit func(Chunk) error) *Splitter {
	if max < MinSize {
		max = MinSize
	}
	return &Splitter{max: max, emit: emit}
}

// Limit makes the Splitter emit at most n chunks (n <= 0: no bound): the
// chunk after the n-th is not emitted and Add or Close returns a
// *parse.LimitError, so a document that would fill the index stops at the
// bound while it is read, not after.
func (s *Splitter) Limit(n int) { s.limit = n }

// Add takes the next block.
func (s *Splitter) Add(b parse.Block) error {
	if b.Level > 0 {
		return s.addHeading(b)
	}
	if strings.TrimSpace(b.Text) == "" {
		return nil
	}
	return s.addBody(b)
}

// Close emits what is left.
func (s *Splitter) Close() error { return s.flush() }

func (s *Splitter) addHeading(b parse.Block) error {
	// A title-only buffer waits for a deeper heading; anything else ends it.
	if !(s.titleOnly && b.Level > s.bufLevel) {
		if err := s.flush(); err != nil {
			return err
		}
	}
	for len(s.stack) > 0 && s.stack[len(s.stack)-1].level >= b.Level {
		s.stack = s.stack[:len(s.stack)-1]
	}
	title := b.Title
	if len(title) > maxTitle {
		title = cutAt(title, maxTitle)
	}
	s.stack = append(s.stack, heading{b.Level, title})
	s.bufHeadings = s.path()
	s.bufLevel = b.Level
	text := strings.TrimSpace(b.Text)
	if len(text) > s.max {
		// A heading line longer than a chunk: its text goes in as body,
		// cut like any long block, so nothing is lost.
		if len(s.parts) == 0 {
			s.titleOnly = true
		}
		return s.addBody(parse.Block{Text: text, Start: b.Start, End: b.End})
	}
	if text != "" && s.size+len(text)+2 > s.max {
		if err := s.flush(); err != nil {
			return err
		}
		s.bufHeadings = s.path()
		s.bufLevel = b.Level
	}
	if len(s.parts) == 0 {
		s.titleOnly = true
	}
	if text != "" {
		s.put(text, b.Start, b.End)
	}
	return nil
}

func (s *Splitter) path() []string {
	if len(s.stack) == 0 {
		return nil
	}
	p := make([]string, len(s.stack))
	for i, h := range s.stack {
		p[i] = h.title
	}
	return p
}

// put appends text covering lines start..end to the buffer.
func (s *Splitter) put(text string, start, end int) {
	if len(s.parts) > 0 {
		s.size += 2
	}
	s.parts = append(s.parts, text)
	s.size += len(text)
	if start > 0 && (s.start == 0 || start < s.start) {
		s.start = start
	}
	if end > s.end {
		s.end = end
	}
}

func (s *Splitter) addBody(b parse.Block) error {
	text := b.Text
	// Lines of text map one to one onto source lines when the block's
	// range has as many lines as the text (Markdown, text, PDF); otherwise
	// (HTML) every piece cites the block's whole range.
	exact := b.Start > 0 && strings.Count(text, "\n") == b.End-b.Start
	if s.size+sep(s)+len(text) <= s.max {
		s.put(text, b.Start, b.End)
		s.titleOnly = false
		return nil
	}
	// Too long for what is left: start a fresh chunk unless the buffer is
	// only a title, which the first piece keeps company.
	if len(s.parts) > 0 && (!s.titleOnly || s.max-s.size-2 < s.max/4) {
		if err := s.flush(); err != nil {
			return err
		}
	}
	off := 0
	for off < len(text) {
		room := s.max - s.size - sep(s)
		piece := cut(text[off:], room)
		start, end := b.Start, b.End
		if exact {
			start = b.Start + strings.Count(text[:off], "\n")
			end = start + strings.Count(strings.TrimRight(piece, "\n"), "\n")
		}
		if p := strings.TrimSpace(piece); p != "" {
			s.put(p, start, end)
			s.titleOnly = false
		}
		off += len(piece)
		if off < len(text) {
			if err := s.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

func sep(s *Splitter) int {
	if len(s.parts) > 0 {
		return 2
	}
	return 0
}

func (s *Splitter) flush() error {
	if len(s.parts) == 0 {
		s.titleOnly = false
		return nil
	}
	c := Chunk{Headings: s.bufHeadings, Start: s.start, End: s.end, Text: strings.Join(s.parts, "\n\n")}
	s.parts = s.parts[:0]
	s.size, s.start, s.end = 0, 0, 0
	s.titleOnly = false
	s.bufHeadings = s.path()
	if s.limit > 0 && s.made >= s.limit {
		return &parse.LimitError{Limit: parse.LimitChunks, Max: int64(s.limit)}
	}
	s.made++
	return s.emit(c)
}

// cut returns the first piece of text to keep under room bytes: up to and
// including the last newline in the second half of the room, else up to
// the last space there, else as many whole runes as fit (at least one).
func cut(text string, room int) string {
	if len(text) <= room {
		return text
	}
	if room < 1 {
		room = 1
	}
	window := text[:room]
	if i := strings.LastIndexByte(window, '\n'); i >= room/2 {
		return text[:i+1]
	}
	if i := strings.LastIndexAny(window, " \t"); i >= room/2 {
		return text[:i+1]
	}
	return cutAt(text, room)
}

// cutAt returns the longest prefix of at most n bytes ending on a rune
// boundary, and at least one rune.
func cutAt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	if i == 0 {
		_, size := utf8.DecodeRuneInString(s)
		return s[:size]
	}
	return s[:i]
}
