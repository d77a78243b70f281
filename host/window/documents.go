package window

import (
	"context"

	wailsrt "github.com/wailsapp/wails/v2/pkg/runtime"

	"quire/host"
)

// The documents panel: indexing progress and file drops (its calls are
// operations, Op).

// Runtime events of the documents panel (docs/PROTOCOL.md).
const (
	eventIndexing = "quire:indexing"   // protocol.IndexProgress, whenever it changes
	eventDropFail = "quire:drop-error" // a sentence: a drop that could not be queued
)

// attachDocuments gives the window its documents panel and makes files
// dropped on the window go to it. onDrop registers the drop callback with
// Wails (runtime.OnFileDrop); tests replace it.
func (h *Host) attachDocuments(d host.Documents) {
	h.docs = d
	h.onDrop = wailsrt.OnFileDrop
}

// startDocuments runs with the window: it forwards indexing progress and
// takes file drops. Wails on Linux hands dropped files to OnFileDrop as
// absolute paths (its GTK drag-data-received / drag-drop handlers); the
// page stops WebKit from also opening the dropped file (STACK.md).
func (h *Host) startDocuments(ctx context.Context) {
	if h.docs == nil {
		return
	}
	go func() {
		for p := range h.docs.Watch(ctx) {
			h.emit(ctx, eventIndexing, p)
		}
	}()
	if h.onDrop != nil {
		h.onDrop(ctx, func(_, _ int, paths []string) { h.drop(ctx, paths) })
	}
}

// drop queues dropped paths; a drop that cannot be queued is said in the page.
func (h *Host) drop(ctx context.Context, paths []string) {
	if err := h.docs.Add(ctx, paths); err != nil {
		h.log.Warn("a drop could not be indexed", "paths", paths, "err", err)
		h.emit(ctx, eventDropFail, err.Error())
	}
}
