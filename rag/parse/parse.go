// Package parse turns a document file into an ordered stream of blocks —
// headings and runs of body text — each with the source lines it came
// from. It reads Markdown, plain text, HTML and PDF; anything else, and
// binary content behind a text extension, is refused with a reason a
// person can read.
//
// Parsing streams: Markdown, text and HTML are read line by line (or token
// by token) and no block is longer than MaxBlock, so memory stays bounded
// however large the file. PDF is read by random access one page at a time.
// A document's cost is bounded while it is read, never after: Sniff checks
// samples spread over the whole file, Bounded stops a text stream at a NUL
// or past its byte limit, ReadPDF refuses a looping page tree and counts
// pages before reading one, and TextBudget bounds the text (LimitError).
//
// It imports only the standard library, golang.org/x/net/html and the PDF
// reader (github.com/ledongthuc/pdf). It must never import database/sql, a
// model client, chromem-go, the kernel or any other Quire package: it knows
// nothing of chunks, indexes or embeddings.
package parse

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Format is a document format Quire can read.
type Format string

const (
	Markdown Format = "markdown"
	Text     Format = "text"
	HTML     Format = "html"
	PDF      Format = "pdf"
)

var (
	// ErrUnsupported: the file is not in a format Quire reads.
	ErrUnsupported = errors.New("unsupported format")
	// ErrBinary: the file has a text extension but binary content.
	ErrBinary = errors.New("binary content")
	// ErrMalformed: the file claims a format but cannot be read as one.
	ErrMalformed = errors.New("malformed file")
)

// MaxBlock is the most bytes of text one body block holds; longer
// paragraphs arrive as several blocks, cut at line ends where possible.
const MaxBlock = 64 << 10

// SniffLen is how many leading bytes Check looks at.
const SniffLen = 8 << 10

// Block is one piece of a document, in reading order.
type Block struct {
	// Level is 1–6 for a heading and 0 for body text.
	Level int
	// Title is a heading's text without markup; empty for body text.
	Title string
	// Text is the block as written (Markdown, plain text) or as extracted
	// (HTML, PDF). A heading's Text is its source line(s), such as
	// "## Budget"; it may be empty (a PDF page marker).
	Text string
	// Start and End are the first and last source line, counted from 1.
	// For PDF they count lines of the page's extracted text. Both are 0
	// for a block with no source lines (a PDF page marker).
	Start, End int
}

var extensions = map[string]Format{
	".md": Markdown, ".markdown": Markdown, ".mdown": Markdown, ".mkd": Markdown, ".mkdn": Markdown,
	".txt": Text, ".text": Text,
	".html": HTML, ".htm": HTML, ".xhtml": HTML,
	".pdf": PDF,
}

// ByName picks the format from a file name. A name without an extension
// (README, LICENSE) is read as plain text if Check agrees it is text; any
// other extension is ErrUnsupported.
func ByName(name string) (Format, error) {
	ext := strings.ToLower(filepath.Ext(name))
	if f, ok := extensions[ext]; ok {
		return f, nil
	}
	if ext == "" {
		return Text, nil
	}
	return "", fmt.Errorf("%w %q: Quire reads Markdown (.md), plain text (.txt), HTML (.html) and PDF (.pdf)", ErrUnsupported, ext)
}

// Check looks at the first bytes of a file (up to SniffLen) and refuses
// content that does not match its format: binary data behind a text
// extension, or a .pdf that does not start like a PDF.
func Check(f Format, head []byte) error {
	if len(head) > SniffLen {
		head = head[:SniffLen]
	}
	if f == PDF {
		if !bytes.HasPrefix(head, []byte("%PDF-")) {
			return fmt.Errorf("%w: not a PDF (it does not start with %%PDF-; it looks like %s)", ErrMalformed, kind(head))
		}
		return nil
	}
	if len(head) >= 2 && (head[0] == 0xFF && head[1] == 0xFE || head[0] == 0xFE && head[1] == 0xFF) {
		return fmt.Errorf("%w: UTF-16 text; save it as UTF-8 and Quire will read it", ErrBinary)
	}
	if looksBinary(head) {
		return fmt.Errorf("%w (it looks like %s), not %s", ErrBinary, kind(head), f)
	}
	return nil
}

// looksBinary: a NUL byte, or more than one byte in ten that is neither
// printable UTF-8 nor ordinary whitespace. Latin-1 text passes (its few
// invalid bytes become U+FFFD when read).
func looksBinary(b []byte) bool {
	if bytes.IndexByte(b, 0) >= 0 {
		return true
	}
	bad := 0
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			// A rune cut by the end of the sniffed head is not evidence.
			if len(b)-i < utf8.UTFMax && !utf8.FullRune(b[i:]) {
				i = len(b)
				continue
			}
			bad++
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' && r != '\v' && r != 0x1b:
			bad++
		}
		i += n
	}
	return bad*10 > len(b)
}

func kind(head []byte) string {
	t := http.DetectContentType(head)
	if i := strings.IndexByte(t, ';'); i >= 0 {
		t = t[:i]
	}
	return t
}
