package hashvec

import (
	"encoding/binary"
	"errors"
	"sync"
)

// Sketch counts, for every feature, how many documents contain it — a
// count-min sketch: two rows of counters indexed by different bits of the
// feature hash; a feature's count is the smaller of its two counters, so
// collisions can only overstate it, and rarely by much. Documents are
// added and removed (a removal must pass the same features as its
// addition). It is safe for concurrent use; the zero value is not ready,
// use NewSketch.
type Sketch struct {
	mu sync.RWMutex
	// rows are nil until a count is first added (grow): an index with no
	// documents, as most are at first, holds no 8 MB — counted as live by
	// the Go collector even when untouched, it doubled the heap's goal.
	rows [sketchDepth][]uint32
	docs int64
}

const (
	sketchDepth = 2
	sketchBits  = 20
	sketchWidth = 1 << sketchBits
	sketchMask  = sketchWidth - 1
)

// NewSketch returns an empty Sketch (8 MB once it counts a document).
func NewSketch() *Sketch { return &Sketch{} }

// grow gives s its counters; s.mu is held for writing.
func (s *Sketch) grow() {
	if s.rows[0] != nil {
		return
	}
	for i := range s.rows {
		s.rows[i] = make([]uint32, sketchWidth)
	}
}

func slot(h uint64, row int) uint64 {
	if row == 0 {
		return (h >> 2) & sketchMask
	}
	return (h >> 40) & sketchMask
}

// Update adds (delta +1) or removes (delta -1) documents whose distinct
// features are given, one slice per document.
func (s *Sketch) Update(docs [][]uint64, delta int) {
	if len(docs) == 0 {
		return // a rebuild of an index with no documents counts none
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if delta > 0 {
		s.grow()
	} else if s.rows[0] == nil {
		return // nothing was counted: nothing to remove
	}
	for _, features := range docs {
		for _, h := range features {
			for r := range s.rows {
				c := &s.rows[r][slot(h, r)]
				if delta > 0 {
					*c++
				} else if *c > 0 {
					*c--
				}
			}
		}
		s.docs += int64(delta)
	}
	if s.docs < 0 {
		s.docs = 0
	}
}

// DF is the number of documents containing feature h (never less than the truth).
func (s *Sketch) DF(h uint64) uint32 {
	if s == nil {
		return 0
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.rows[0] == nil {
		return 0
	}
	n := s.rows[0][slot(h, 0)]
	for r := 1; r < len(s.rows); r++ {
		if c := s.rows[r][slot(h, r)]; c < n {
			n = c
		}
	}
	return n
}

// Docs is the number of documents counted.
func (s *Sketch) Docs() int64 {
	if s == nil {
		return 0
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.docs
}

// MarshalBinary encodes the sketch: a version byte, the document count,
// then the counters as varints (most are zero or small).
func (s *Sketch) MarshalBinary() ([]byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]byte, 0, 1<<20)
	out = append(out, 1)
	out = binary.AppendVarint(out, s.docs)
	for _, row := range s.rows {
		if row == nil { // never counted: every counter is zero
			out = append(out, make([]byte, sketchWidth)...) // the varint of 0 is one zero byte
			continue
		}
		for _, c := range row {
			out = binary.AppendUvarint(out, uint64(c))
		}
	}
	return out, nil
}

// UnmarshalBinary replaces the sketch with an encoded one.
func (s *Sketch) UnmarshalBinary(b []byte) error {
	if len(b) < 2 || b[0] != 1 {
		return errors.New("hashvec: unknown sketch encoding")
	}
	b = b[1:]
	docs, n := binary.Varint(b)
	if n <= 0 {
		return errors.New("hashvec: truncated sketch")
	}
	b = b[n:]
	var rows [sketchDepth][]uint32
	for r := range rows {
		rows[r] = make([]uint32, sketchWidth)
		for i := range rows[r] {
			c, n := binary.Uvarint(b)
			if n <= 0 || c > 1<<32-1 {
				return errors.New("hashvec: truncated sketch")
			}
			rows[r][i] = uint32(c)
			b = b[n:]
		}
	}
	if len(b) != 0 {
		return errors.New("hashvec: trailing bytes after sketch")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rows, s.docs = rows, docs
	return nil
}

// Replace makes s a copy of o.
func (s *Sketch) Replace(o *Sketch) {
	o.mu.RLock()
	var rows [sketchDepth][]uint32
	for i := range rows {
		if o.rows[i] != nil {
			rows[i] = append([]uint32(nil), o.rows[i]...)
		}
	}
	docs := o.docs
	o.mu.RUnlock()
	s.mu.Lock()
	s.rows, s.docs = rows, docs
	s.mu.Unlock()
}
