package window

import (
	"context"
)

// The models screen: pull progress (its calls are operations, Op).

// eventPull carries a protocol.PullProgress whenever a pull changes
// (docs/PROTOCOL.md): each pull's terminal state always, running figures
// coalesced to the latest.
const eventPull = "quire:pull"

// startModels runs with the window: it forwards every pull's progress.
func (h *Host) startModels(ctx context.Context) {
	if h.models == nil {
		return
	}
	go func() {
		for p := range h.models.Watch(ctx) {
			h.emit(ctx, eventPull, p)
		}
	}()
}
