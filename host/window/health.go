package window

import (
	"context"

	"quire/doctor"
)

// The first screen's health checks, and their changes as they happen.

// startHealth forwards every change of the health checks the watcher
// noticed on its own, so the first screen follows Ollama appearing
// without a click.
func (h *Host) startHealth(ctx context.Context) {
	if h.health == nil {
		return
	}
	go func() {
		for r := range h.health.Watch(ctx) {
			h.emit(ctx, eventHealth, r)
		}
	}()
}

// Doctor runs the health checks shown on the first screen (and by its
// "Check again"); with a watcher the report is also what it sends next.
func (h *Host) Doctor() doctor.Report {
	if h.health != nil {
		return h.health.Check(h.callCtx())
	}
	return h.diagnose(h.callCtx())
}
