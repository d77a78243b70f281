package parse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// ErrOverLimit: the document is larger than one of its Limits allows.
// The error is a *LimitError, which says which limit.
var ErrOverLimit = errors.New("over a limit")

// Limit names one of the bounds of Limits.
type Limit string

const (
	LimitBytes  Limit = "bytes"
	LimitPages  Limit = "pages"
	LimitText   Limit = "text"
	LimitChunks Limit = "chunks"
)

// LimitError says which limit a document passed and what the limit was.
// The sentence a person reads (with the setting that raises it) is made
// by the caller, which knows where the limit came from.
type LimitError struct {
	Limit Limit
	Max   int64
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%v: more %s than %d", ErrOverLimit, e.Limit, e.Max)
}

func (e *LimitError) Unwrap() error { return ErrOverLimit }

// Limits bound the work one document may cost, applied while it is read:
// a hostile or damaged file stops at the bound instead of filling memory
// and the database. A zero field means no bound.
type Limits struct {
	Bytes int64 // size of the file
	Pages int   // pages of a PDF
	Text  int64 // bytes of text extracted
}

// TextBudget wraps emit so that the blocks it passes on hold at most max
// bytes of text (a heading's title is part of its text); the block that would pass the budget
// is not passed on and a *LimitError is returned instead. max <= 0 means
// no budget.
func TextBudget(max int64, emit func(Block) error) func(Block) error {
	if max <= 0 {
		return emit
	}
	var used int64
	return func(b Block) error {
		used += int64(len(b.Text))
		if used > max {
			return &LimitError{Limit: LimitText, Max: max}
		}
		return emit(b)
	}
}

// Bounded passes on r, the bytes of a text document: it fails with a
// *LimitError once more than max bytes came through (the file grew after
// its size was checked, or max was not checked against it) and with
// ErrBinary at the first NUL byte, which no text file holds, so binary
// content the samples of Sniff missed is refused as it streams. max <= 0
// means no byte bound.
func Bounded(r io.Reader, max int64) io.Reader { return &bounded{r: r, max: max} }

type bounded struct {
	r    io.Reader
	max  int64
	read int64
}

func (b *bounded) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if i := bytes.IndexByte(p[:n], 0); i >= 0 {
		return i, fmt.Errorf("%w: a NUL byte at offset %d; this is not a text file", ErrBinary, b.read+int64(i))
	}
	b.read += int64(n)
	if b.max > 0 && b.read > b.max {
		return n, &LimitError{Limit: LimitBytes, Max: b.max}
	}
	return n, err
}

// How many pieces of a file Sniff reads after its head, and how long.
const (
	sampleCount = 32
	sampleLen   = 4 << 10
)

// Sniff checks a whole file's content against its format without reading
// all of it: the head (up to SniffLen, as Check) and then sampleCount
// pieces at offsets spread evenly to the end, so a text header in front
// of a large binary (or sparse, all-NUL) body is refused after reading at
// most 136 KiB. The samples of a PDF are not checked: its streams are
// binary by design.
func Sniff(f Format, r io.ReaderAt, size int64) error {
	head := make([]byte, min(size, SniffLen))
	n, err := r.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return err
	}
	if err := Check(f, head[:n]); err != nil || f == PDF || size <= SniffLen {
		return err
	}
	buf := make([]byte, sampleLen)
	span := size - SniffLen - sampleLen
	for i := range sampleCount {
		off := int64(SniffLen)
		if span > 0 {
			off += span * int64(i+1) / sampleCount
		}
		n, err := r.ReadAt(buf, off)
		if err != nil && err != io.EOF {
			return err
		}
		s := trimRunes(buf[:n])
		if looksBinary(s) {
			return fmt.Errorf("%w (about %d%% of the way in it looks like %s), not %s", ErrBinary, off*100/size, kind(s), f)
		}
		if span <= 0 {
			break // the file is shorter than one sample past the head
		}
	}
	return nil
}

// trimRunes drops the continuation bytes a sample starts with (the rest
// of a rune cut by its offset), so a cut rune is not counted as binary.
func trimRunes(b []byte) []byte {
	for i := 0; i < 3 && len(b) > 0 && b[0]&0xC0 == 0x80; i++ {
		b = b[1:]
	}
	return b
}
