package window

import (
	"context"

	wailsrt "github.com/wailsapp/wails/v2/pkg/runtime"

	"quire/host"
	"quire/kernel/protocol"
)

// The documents panel: bound methods, indexing progress and file drops.

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

func (h *Host) documents() (host.Documents, error) { return partOf(h, h.docs, errNoDocuments) }

// Documents is what the documents panel shows: every document with its
// status, the active embedder and the indexing progress.
func (h *Host) Documents() (protocol.DocumentsState, error) {
	d, err := h.documents()
	if err != nil {
		return protocol.DocumentsState{}, err
	}
	return d.State(h.callCtx())
}

// IndexPaths indexes files or folders by their absolute paths, in the
// background (the same as dropping them on the window).
func (h *Host) IndexPaths(paths []string) error {
	d, err := h.documents()
	if err != nil {
		return err
	}
	return d.Add(h.callCtx(), paths)
}

// CancelIndexing stops the running pass; what it finished stays indexed.
func (h *Host) CancelIndexing() error {
	d, err := h.documents()
	if err != nil {
		return err
	}
	d.Cancel()
	return nil
}

// RetryDocument indexes a failed document (or the failed ones of a folder) again.
func (h *Host) RetryDocument(path string) error {
	d, err := h.documents()
	if err != nil {
		return err
	}
	return d.Retry(h.callCtx(), path)
}

// RemoveDocument takes a document or folder out of the index (not off the disk).
func (h *Host) RemoveDocument(path string) error {
	d, err := h.documents()
	if err != nil {
		return err
	}
	return d.Remove(h.callCtx(), path)
}

// SetEmbedModel chooses the embedding model of the documents ("" for
// none); they are re-embedded in the background (quire:indexing says how).
func (h *Host) SetEmbedModel(model string) error {
	d, err := h.documents()
	if err != nil {
		return err
	}
	return d.SetEmbedModel(h.callCtx(), model)
}

// DocumentSource is the text of an indexed document for the viewer a
// citation opens; any path that is not an indexed document is refused.
func (h *Host) DocumentSource(path string, page int) (protocol.DocumentSource, error) {
	d, err := h.documents()
	if err != nil {
		return protocol.DocumentSource{}, err
	}
	return d.Source(h.callCtx(), path, page)
}
