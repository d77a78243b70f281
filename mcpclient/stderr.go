package mcpclient

import (
	"strings"
	"sync"
)

// tail keeps the last max bytes written to it: a server's stderr, read
// after it failed. It is safe for concurrent use (the child's stderr is
// copied in by exec's goroutine while a host reads it).
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func newTail(max int) *tail { return &tail{max: max} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return n, nil
	}
	if over := len(t.buf) + len(p) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	// The cut may fall inside a character.
	return strings.ToValidUTF8(string(t.buf), "")
}
