package main

import (
	"context"
	"errors"

	wailsrt "github.com/wailsapp/wails/v2/pkg/runtime"

	"quire/kernel/protocol"
)

// Documents is the documents panel's back end (the library package).
type Documents interface {
	State(ctx context.Context) (protocol.DocumentsState, error)
	Add(ctx context.Context, paths []string) error
	Cancel()
	Retry(ctx context.Context, path string) error
	Remove(ctx context.Context, path string) error
	Source(ctx context.Context, path string, page int) (protocol.DocumentSource, error)
	Watch(ctx context.Context) <-chan protocol.IndexProgress
}

// Runtime events of the documents panel (docs/PROTOCOL.md).
const (
	eventIndexing = "quire:indexing"   // protocol.IndexProgress, whenever it changes
	eventDropFail = "quire:drop-error" // a sentence: a drop that could not be queued
)

// errNoDocuments: the index could not be opened (doctor says why).
var errNoDocuments = errors.New("the document index is not available in this window; see the health checks")

// attachDocuments gives the window its documents panel and makes files
// dropped on the window go to it. onDrop registers the drop callback with
// Wails (runtime.OnFileDrop); tests replace it.
func (a *App) attachDocuments(d Documents) {
	a.docs = d
	a.onDrop = wailsrt.OnFileDrop
}

// startDocuments runs with the window: it forwards indexing progress and
// takes file drops. Wails on Linux hands dropped files to OnFileDrop as
// absolute paths (its GTK drag-data-received / drag-drop handlers); the
// page stops WebKit from also opening the dropped file (STACK.md).
func (a *App) startDocuments(ctx context.Context) {
	if a.docs == nil {
		return
	}
	go func() {
		for p := range a.docs.Watch(ctx) {
			a.emit(ctx, eventIndexing, p)
		}
	}()
	if a.onDrop != nil {
		a.onDrop(ctx, func(_, _ int, paths []string) { a.drop(ctx, paths) })
	}
}

// drop queues dropped paths; a drop that cannot be queued is said in the page.
func (a *App) drop(ctx context.Context, paths []string) {
	if err := a.docs.Add(ctx, paths); err != nil {
		a.log.Warn("a drop could not be indexed", "paths", paths, "err", err)
		a.emit(ctx, eventDropFail, err.Error())
	}
}

func (a *App) documents() (Documents, error) {
	if err := a.ready(); err != nil {
		return nil, err
	}
	if a.docs == nil {
		return nil, errNoDocuments
	}
	return a.docs, nil
}

// Documents is what the documents panel shows: every document with its
// status, the active embedder and the indexing progress.
func (a *App) Documents() (protocol.DocumentsState, error) {
	d, err := a.documents()
	if err != nil {
		return protocol.DocumentsState{}, err
	}
	return d.State(a.callCtx())
}

// IndexPaths indexes files or folders by their absolute paths, in the
// background (the same as dropping them on the window).
func (a *App) IndexPaths(paths []string) error {
	d, err := a.documents()
	if err != nil {
		return err
	}
	return d.Add(a.callCtx(), paths)
}

// CancelIndexing stops the running pass; what it finished stays indexed.
func (a *App) CancelIndexing() error {
	d, err := a.documents()
	if err != nil {
		return err
	}
	d.Cancel()
	return nil
}

// RetryDocument indexes a failed document (or the failed ones of a folder) again.
func (a *App) RetryDocument(path string) error {
	d, err := a.documents()
	if err != nil {
		return err
	}
	return d.Retry(a.callCtx(), path)
}

// RemoveDocument takes a document or folder out of the index (not off the disk).
func (a *App) RemoveDocument(path string) error {
	d, err := a.documents()
	if err != nil {
		return err
	}
	return d.Remove(a.callCtx(), path)
}

// DocumentSource is the text of an indexed document for the viewer a
// citation opens; any path that is not an indexed document is refused.
func (a *App) DocumentSource(path string, page int) (protocol.DocumentSource, error) {
	d, err := a.documents()
	if err != nil {
		return protocol.DocumentSource{}, err
	}
	return d.Source(a.callCtx(), path, page)
}
