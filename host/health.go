package host

import (
	"context"
	"slices"
	"sync"
	"time"

	"quire/doctor"
	"quire/internal/latest"
)

// Health watches the health checks on its own, so the window and a `quire
// serve` page see Ollama appear (or go away) without a click: it asks the
// quick checks (Ollama and the chat model, doctor.OllamaChecks) again and
// again, with a bounded back-off while they fail, and when their answer
// changes it runs the whole report and offers it to every watcher.
//
// Delivery: Watch gives the latest report first (once there is one), then
// every change, lossily — a slow watcher gets the newest report, never a
// queue of stale ones.
type Health struct {
	quick, full Doctor
	after       func(time.Duration) <-chan time.Time
	first, most time.Duration

	mu       sync.Mutex
	report   doctor.Report
	have     bool
	last     doctor.Report // the quick answer the report was made for
	watchers map[chan doctor.Report]struct{}
	now      chan struct{} // Recheck: check at once, from the first delay
}

// HealthOption configures a Health.
type HealthOption func(*Health)

// WithClock replaces time.After: tests hand the watcher its waits and end
// them themselves, so no test sleeps.
func WithClock(after func(time.Duration) <-chan time.Time) HealthOption {
	return func(h *Health) { h.after = after }
}

// WithBackoff sets the first wait after a change (doubled while the checks
// keep failing) and the longest (also the pace once they pass).
func WithBackoff(first, most time.Duration) HealthOption {
	return func(h *Health) { h.first, h.most = first, most }
}

// Default back-off: a second after Ollama was found missing (the user is
// installing or starting it), doubling to half a minute, which is also how
// often a healthy Ollama is asked whether it is still there.
const (
	HealthFirstWait = time.Second
	HealthMostWait  = 30 * time.Second
)

// NewHealth builds the watcher: quick are the checks it repeats, full the
// whole report it offers when their answer changed. Run starts it.
func NewHealth(quick, full Doctor, opts ...HealthOption) *Health {
	h := &Health{quick: quick, full: full, after: time.After, first: HealthFirstWait, most: HealthMostWait,
		watchers: map[chan doctor.Report]struct{}{}, now: make(chan struct{}, 1)}
	for _, o := range opts {
		o(h)
	}
	return h
}

// Run checks until ctx ends.
func (h *Health) Run(ctx context.Context) {
	wait := h.first
	for ctx.Err() == nil {
		q := h.quick(ctx)
		if ctx.Err() != nil {
			return
		}
		h.mu.Lock()
		changed := !h.have || !sameChecks(q, h.last)
		h.mu.Unlock()
		if changed {
			full := h.full(ctx)
			if ctx.Err() != nil {
				return
			}
			h.publish(q, full)
		}
		switch {
		case q.OK:
			wait = h.most
		case changed:
			wait = h.first
		default:
			wait = min(wait*2, h.most)
		}
		select {
		case <-h.after(wait):
		case <-h.now:
			wait = h.first
		case <-ctx.Done():
			return
		}
	}
}

// Recheck asks the watcher to check at once (the window's "Check again",
// the end of a download) instead of waiting out its back-off.
func (h *Health) Recheck() {
	select {
	case h.now <- struct{}{}:
	default: // one is already asked for
	}
}

// Report is the whole report as it was last made; ok is false before the
// first check ended.
func (h *Health) Report() (doctor.Report, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.report, h.have
}

// Check makes the whole report now (the window's "Check again", a page
// that loads), offers it to every watcher when it changed, and has the
// watcher start its back-off again from the first wait. A report whose
// request ended meanwhile (a tab closed during the database check) is
// returned to nobody's page and offered to none: its checks were cut
// short, and what they said is not the file's state (issue 31 item 1).
func (h *Health) Check(ctx context.Context) doctor.Report {
	q := h.quick(ctx)
	full := h.full(ctx)
	if ctx.Err() != nil {
		return full
	}
	h.publish(q, full)
	h.Recheck()
	return full
}

func (h *Health) publish(quick, full doctor.Report) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.have && sameChecks(full, h.report) {
		h.last = quick
		return
	}
	h.report, h.last, h.have = full, quick, true
	for ch := range h.watchers {
		latest.Offer(ch, full) // replacing what a slow watcher has not taken yet
	}
}

// Watch delivers reports until ctx ends: the latest first (once there is
// one), then each change, the newest when the reader is slow.
func (h *Health) Watch(ctx context.Context) <-chan doctor.Report {
	ch := make(chan doctor.Report, 1)
	h.mu.Lock()
	h.watchers[ch] = struct{}{}
	if h.have {
		ch <- h.report
	}
	h.mu.Unlock()
	return latest.Relay(ctx, ch, func() {
		h.mu.Lock()
		delete(h.watchers, ch)
		h.mu.Unlock()
	})
}

// sameChecks: the two reports would show the user the same thing.
func sameChecks(a, b doctor.Report) bool {
	return a.OK == b.OK && slices.Equal(a.Checks, b.Checks)
}
