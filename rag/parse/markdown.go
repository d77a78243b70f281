package parse

import (
	"io"
	"strings"
)

// ReadMarkdown parses Markdown line by line. It recognises what decides
// the structure of a document and nothing more:
//   - ATX headings ("## Title", up to three spaces of indent, optional
//     closing #s) and setext headings (a short paragraph underlined with
//     === or ---);
//   - fenced code blocks (``` or ~~~), inside which nothing is a heading
//     and blank lines do not end the block;
//   - YAML front matter (--- ... --- on the first lines), kept as body text;
//   - paragraphs: runs of non-blank lines.
//
// Headings inside block quotes or list items stay body text. Block text is
// the source as written, so a chunk's lines can be found in the file.
func ReadMarkdown(r io.Reader, emit func(Block) error) error {
	m := &mdParser{emit: emit}
	lr := newLineReader(r)
	if err := lr.each(m.line); err != nil {
		return err
	}
	return m.para.flush(emit)
}

type mdParser struct {
	emit     func(Block) error
	para     paragraph
	paraHead string // the paragraph's first line, to tell a list from a setext heading
	inLine   bool   // the previous piece did not end its line
	fence    string // the opening fence run ("```" or "~~~~") while inside a code block
	front    int    // lines of front matter still allowed; -1 once front matter is closed or impossible
}

const maxFrontMatter = 200

func (m *mdParser) line(piece string, n int, more bool) error {
	if m.inLine {
		// The rest of a line longer than the buffer: body text, whatever it says.
		m.inLine = more
		return m.para.add(piece, n, more, m.emit)
	}
	m.inLine = more
	switch {
	case n == 1 && !more && strings.TrimRight(piece, " \t") == "---":
		m.front = maxFrontMatter
		return m.para.add(piece, n, more, m.emit)
	case m.front > 0:
		m.front--
		if err := m.para.add(piece, n, more, m.emit); err != nil {
			return err
		}
		if t := strings.TrimRight(piece, " \t"); t == "---" || t == "..." || m.front == 0 {
			m.front = -1
			return m.para.flush(m.emit)
		}
		return nil
	}

	if m.fence != "" {
		if err := m.para.add(piece, n, more, m.emit); err != nil {
			return err
		}
		if closesFence(piece, m.fence) {
			m.fence = ""
			return m.para.flush(m.emit)
		}
		return nil
	}
	if f := opensFence(piece); f != "" {
		if err := m.para.flush(m.emit); err != nil {
			return err
		}
		m.fence = f
		return m.para.add(piece, n, more, m.emit)
	}
	if strings.TrimSpace(piece) == "" {
		return m.para.flush(m.emit)
	}
	if level, title, ok := atxHeading(piece); ok {
		if err := m.para.flush(m.emit); err != nil {
			return err
		}
		return m.emit(Block{Level: level, Title: title, Text: strings.TrimSpace(piece), Start: n, End: n})
	}
	if level := setextUnderline(piece); level > 0 && m.para.lines > 0 && m.para.lines <= 3 &&
		!m.para.cont && !startsContainer(m.paraHead) {
		text := m.para.b.String()
		start := m.para.start
		m.para.b.Reset()
		m.para.lines = 0
		title := cleanInline(strings.Join(strings.Fields(text), " "))
		return m.emit(Block{Level: level, Title: title, Text: text + "\n" + strings.TrimSpace(piece), Start: start, End: n})
	}
	if m.para.empty() {
		m.paraHead = piece
	}
	return m.para.add(piece, n, more, m.emit)
}

// indent strips up to three leading spaces; ok is false for four or more
// (an indented code line).
func indent(s string) (string, bool) {
	for i := 0; i < 4; i++ {
		if i == len(s) || s[i] != ' ' {
			return s[i:], true
		}
	}
	return s, false
}

func opensFence(s string) string {
	s, ok := indent(s)
	if !ok || len(s) < 3 || (s[0] != '`' && s[0] != '~') {
		return ""
	}
	n := 0
	for n < len(s) && s[n] == s[0] {
		n++
	}
	if n < 3 || (s[0] == '`' && strings.Contains(s[n:], "`")) {
		return ""
	}
	return s[:n]
}

func closesFence(s, fence string) bool {
	s, ok := indent(s)
	if !ok || !strings.HasPrefix(s, fence) {
		return false
	}
	s = strings.TrimLeft(s, fence[:1])
	return strings.TrimSpace(s) == ""
}

func atxHeading(s string) (int, string, bool) {
	s, ok := indent(s)
	if !ok {
		return 0, "", false
	}
	n := 0
	for n < len(s) && s[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(s) && s[n] != ' ' && s[n] != '\t') {
		return 0, "", false
	}
	title := strings.TrimSpace(s[n:])
	// An optional closing sequence: spaces then #s only.
	if t := strings.TrimRight(title, "#"); t != title && (t == "" || strings.HasSuffix(t, " ") || strings.HasSuffix(t, "\t")) {
		title = strings.TrimSpace(t)
	}
	return n, cleanInline(title), true
}

func setextUnderline(s string) int {
	s, ok := indent(s)
	if !ok {
		return 0
	}
	s = strings.TrimRight(s, " \t")
	if s == "" {
		return 0
	}
	if strings.Trim(s, "=") == "" {
		return 1
	}
	if strings.Trim(s, "-") == "" {
		return 2
	}
	return 0
}

// startsContainer: a paragraph opening with a list marker, a quote or a
// table row cannot be a setext heading (its underline is a rule instead).
func startsContainer(s string) bool {
	s = strings.TrimLeft(s, " \t")
	if s == "" {
		return false
	}
	switch s[0] {
	case '>', '|', '-', '*', '+':
		return true
	}
	i := 0
	for i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i > 0 && i < len(s) && (s[i] == '.' || s[i] == ')')
}

// cleanInline removes the inline markup a heading may carry: emphasis,
// code spans, links and images (their text stays), HTML tags and
// backslash escapes.
func cleanInline(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			if i+1 < len(s) && strings.IndexByte("\\`*_{}[]()#+-.!<>|~", s[i+1]) >= 0 {
				i++
				b.WriteByte(s[i])
				continue
			}
			b.WriteByte(c)
		case '*', '_', '`', '~':
			// emphasis, code and strike markers are dropped
		case '!':
			if i+1 < len(s) && s[i+1] == '[' {
				continue
			}
			b.WriteByte(c)
		case '[':
			// [text](url) or [text][ref]: keep text, drop the target
			if j := strings.IndexByte(s[i:], ']'); j > 0 {
				b.WriteString(s[i+1 : i+j])
				k := i + j + 1
				if k < len(s) && (s[k] == '(' || s[k] == '[') {
					closer := byte(')')
					if s[k] == '[' {
						closer = ']'
					}
					if e := strings.IndexByte(s[k:], closer); e > 0 {
						k += e + 1
					}
				}
				i = k - 1
				continue
			}
			b.WriteByte(c)
		case '<':
			if j := strings.IndexByte(s[i:], '>'); j > 0 && !strings.ContainsAny(s[i+1:i+j], "<") {
				i += j
				continue
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
