package testkit

import (
	"sync"
	"time"
)

// Clock is a clock a test moves, for code that takes one (a back-off, a
// deadline): the test says when time passes instead of waiting for it.
// Safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock starts a clock at a fixed instant.
func NewClock() *Clock { return &Clock{now: time.Unix(1_800_000_000, 0)} }

// Now is the clock's time; pass it where a func() time.Time is taken.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Add moves the clock on by d.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
