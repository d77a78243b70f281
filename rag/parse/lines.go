package parse

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"unicode/utf8"
)

// lineReader reads a stream line by line without ever holding more than
// one buffer: a line longer than the buffer comes out in pieces, each cut
// on a rune boundary, all with the same line number.
type lineReader struct {
	br    *bufio.Reader
	line  int    // number of the line the last piece belongs to
	ended bool   // the last piece ended its line
	carry []byte // the tail of a rune cut by the buffer edge
}

func newLineReader(r io.Reader) *lineReader {
	// Half of MaxBlock: a piece plus a carried rune always fits in a block.
	return &lineReader{br: bufio.NewReaderSize(r, MaxBlock/2), ended: true}
}

// next returns the next piece of text without its line ending, the number
// of its line, and whether the line goes on in the next piece. At the end
// of the input it returns io.EOF (and no piece). Invalid UTF-8 becomes U+FFFD.
func (lr *lineReader) next() (piece string, line int, more bool, err error) {
	raw, err := lr.br.ReadSlice('\n')
	if len(raw) == 0 && len(lr.carry) == 0 {
		if err == nil || errors.Is(err, bufio.ErrBufferFull) {
			err = io.ErrNoProgress
		}
		return "", 0, false, err
	}
	if lr.ended {
		lr.line++
	}
	more = errors.Is(err, bufio.ErrBufferFull)
	if err != nil && !more && err != io.EOF {
		return "", 0, false, err
	}
	var b []byte
	if len(lr.carry) > 0 {
		b = append(lr.carry, raw...)
		lr.carry = nil
	} else {
		b = raw
	}
	if more {
		// Keep a rune cut by the buffer edge for the next piece.
		cut := len(b)
		for i := 1; i < utf8.UTFMax && i <= len(b); i++ {
			if utf8.RuneStart(b[len(b)-i]) {
				if !utf8.FullRune(b[len(b)-i:]) {
					cut = len(b) - i
				}
				break
			}
		}
		lr.carry = append([]byte(nil), b[cut:]...)
		b = b[:cut]
	} else {
		b = trimEOL(b)
	}
	lr.ended = !more
	return strings.ToValidUTF8(string(b), "\uFFFD"), lr.line, more, nil
}

func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

// each calls fn for every piece of the stream, stopping at the end or at
// fn's first error.
func (lr *lineReader) each(fn func(piece string, line int, more bool) error) error {
	for {
		piece, line, more, err := lr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(piece, line, more); err != nil {
			return err
		}
	}
}

// paragraph gathers consecutive lines into a body block, emitting it when
// it would pass MaxBlock.
type paragraph struct {
	b          strings.Builder
	start, end int
	lines      int
	cont       bool // the last line added continues in the next piece
}

func (p *paragraph) empty() bool { return p.b.Len() == 0 && p.lines == 0 }

// add appends a piece of a line; more says the line goes on.
func (p *paragraph) add(piece string, line int, more bool, emit func(Block) error) error {
	if !p.empty() && p.b.Len()+len(piece)+1 > MaxBlock {
		if err := p.flush(emit); err != nil {
			return err
		}
	}
	if p.empty() {
		p.start = line
	} else if !p.cont {
		p.b.WriteByte('\n')
	}
	p.b.WriteString(piece)
	p.end = line
	p.lines++
	p.cont = more
	return nil
}

func (p *paragraph) flush(emit func(Block) error) error {
	if p.empty() {
		return nil
	}
	text := p.b.String()
	start, end := p.start, p.end
	p.b.Reset()
	p.lines = 0
	p.cont = false
	if strings.TrimSpace(text) == "" {
		return nil
	}
	return emit(Block{Text: text, Start: start, End: end})
}

// ReadText parses plain text: paragraphs are runs of non-blank lines.
func ReadText(r io.Reader, emit func(Block) error) error {
	var p paragraph
	lr := newLineReader(r)
	err := lr.each(func(piece string, line int, more bool) error {
		if !p.cont && !more && strings.TrimSpace(piece) == "" {
			return p.flush(emit)
		}
		return p.add(piece, line, more, emit)
	})
	if err != nil {
		return err
	}
	return p.flush(emit)
}
