package window

import (
	"context"
	"errors"
	"sync"

	"quire/kernel/protocol"
)

// The conversations' updates, forwarded to the page in order and paced by
// what it acknowledges.

// Names of the runtime events the frontend listens to (docs/PROTOCOL.md).
const (
	eventEvents   = "quire:events"   // []protocol.Event, then the delivery number
	eventSessions = "quire:sessions" // []protocol.Session, then the delivery number
	eventResync   = "quire:resync"   // no data: the page reloads from its last seq
	// Events the page sends: that it listens (before it loads anything), and
	// the delivery number of each update it has handled.
	eventListening = "quire:listening"
	eventTaken     = "quire:taken"
	eventQuestion  = "quire:question"
	eventHealth    = "quire:health" // doctor.Report, whenever the checks change
)

// windowBound is how many updates (each batch of events, each list) the
// page may have been sent and not yet handled before it counts as lagging.
// Wails' emit never blocks: what the page has not run yet waits in the
// window's queues, so the bound is kept by counting what the page says it
// has taken.
const windowBound = 256

// audience is what the window shows: public events only, for now.
var audience = protocol.Audience{}

// forward relays kernel updates to the frontend in order; the runtime already
// batches streamed text, so one update is one small ExecJS call. Once the
// page said it listens, each update carries a delivery number the page
// acknowledges; a page more than windowBound behind (or a watch the kernel
// dropped) is sent nothing more until it has caught up, then told to resync:
// it reloads each session from its last seq, so nothing is lost and nothing
// waits in memory for it meanwhile.
func (h *Host) forward(ctx context.Context) {
	if h.listen != nil {
		defer h.listen(ctx, eventListening, func(...any) { h.pace.reset() })()
		defer h.listen(ctx, eventTaken, func(data ...any) { h.pace.took(data) })()
	}
	resync := false
	for ctx.Err() == nil {
		watch, stop := context.WithCancel(ctx)
		updates, cause := h.kernel.Watch(watch)
		if resync {
			// Told only once the new watch is on: what changes while the
			// page reloads is sent after the resync, not lost between.
			h.emit(ctx, eventResync)
		}
		lagged := h.relay(ctx, updates)
		stop()
		if !lagged && !errors.Is(cause(), protocol.ErrLagging) {
			return // ctx ended, or a kernel with nothing to watch
		}
		h.log.Info("the window fell behind its updates; it will reload what it missed", "err", cause())
		if !h.pace.caughtUp(ctx) {
			return
		}
		resync = true
	}
}

// relay emits updates until they end (false) or the page lags (true).
func (h *Host) relay(ctx context.Context, updates <-chan protocol.Update) bool {
	for u := range updates {
		if h.pace.behind() >= windowBound {
			return true
		}
		if evs := protocol.Filter(u.Events, audience); len(evs) > 0 {
			h.emit(ctx, eventEvents, evs, h.pace.send())
		}
		if u.Sessions != nil {
			h.emit(ctx, eventSessions, u.Sessions, h.pace.send())
		}
	}
	return false
}

// pace counts the updates sent to the page and those it has taken. Until the
// page says it listens, nothing is counted: the page loads everything when
// it starts, and a test without a page acknowledges nothing.
type pace struct {
	mu        sync.Mutex
	listening bool
	sent      int64
	taken     int64
	changed   chan struct{} // closed and replaced when taken moves
}

func (p *pace) send() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sent++
	return p.sent
}

// behind is how many sent updates the page has not taken yet.
func (p *pace) behind() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.listening {
		return 0
	}
	return p.sent - p.taken
}

// reset: a page (re)loaded and listens; it will load everything itself.
func (p *pace) reset() {
	p.mu.Lock()
	p.listening, p.taken = true, p.sent
	p.wake()
	p.mu.Unlock()
}

// took records the delivery number the page acknowledged; Wails runs each
// acknowledgement in its own goroutine, so they may arrive out of order.
func (p *pace) took(data []any) {
	if len(data) == 0 {
		return
	}
	n, ok := data[0].(float64) // a JSON number
	if !ok {
		return
	}
	p.mu.Lock()
	if int64(n) > p.taken && int64(n) <= p.sent {
		p.taken = int64(n)
		p.wake()
	}
	p.mu.Unlock()
}

func (p *pace) wake() {
	if p.changed != nil {
		close(p.changed)
		p.changed = nil
	}
}

// caughtUp waits until the page has taken everything sent; false if ctx ended.
func (p *pace) caughtUp(ctx context.Context) bool {
	for {
		p.mu.Lock()
		if !p.listening || p.taken >= p.sent {
			p.mu.Unlock()
			return true
		}
		if p.changed == nil {
			p.changed = make(chan struct{})
		}
		changed := p.changed
		p.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return false
		}
	}
}
