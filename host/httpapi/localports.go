package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"

	"quire/host"
	"quire/kernel/protocol"
)

// The owner's ports besides its kernel, over its local channel, for the
// terminal hosts: the Notes panel's back end (`quire chat`'s /undo) and the
// task queue (`quire organise`).

// Notes is the owner's Notes panel back end over its local channel (the
// /api/notes routes), so a terminal's /undo reverts a change directly, as
// the window's Changes list does, under the owner's write lock.
func (l *Local) Notes() host.Notes { return localNotes{l} }

// call is one route of the owner's API answered with a T.
func call[T any](ctx context.Context, l *Local, method, path string, body any) (T, error) {
	var out T
	err := l.do(ctx, method, path, body, &out)
	return out, err
}

type localNotes struct{ l *Local }

func (n localNotes) Tree(ctx context.Context, path string) (protocol.NoteFolder, error) {
	return call[protocol.NoteFolder](ctx, n.l, http.MethodGet, "/api/notes/tree?path="+url.QueryEscape(path), nil)
}

func (n localNotes) Read(ctx context.Context, path string) (protocol.NoteText, error) {
	return call[protocol.NoteText](ctx, n.l, http.MethodGet, "/api/notes/note?path="+url.QueryEscape(path), nil)
}

func (n localNotes) Changes(ctx context.Context) (protocol.ChangeList, error) {
	return call[protocol.ChangeList](ctx, n.l, http.MethodGet, "/api/notes/changes", nil)
}

func (n localNotes) Undo(ctx context.Context, id string) (protocol.UndoOutcome, error) {
	return call[protocol.UndoOutcome](ctx, n.l, http.MethodPost, "/api/notes/changes/"+url.PathEscape(id)+"/undo", struct{}{})
}

func (n localNotes) UndoAll(ctx context.Context, session string, ids []string) (protocol.UndoOutcome, error) {
	return call[protocol.UndoOutcome](ctx, n.l, http.MethodPost, "/api/notes/sessions/"+url.PathEscape(session)+"/undo", map[string][]string{"ids": ids})
}

func (n localNotes) Versions(ctx context.Context, id string) (protocol.NoteVersions, error) {
	return call[protocol.NoteVersions](ctx, n.l, http.MethodGet, "/api/notes/changes/"+url.PathEscape(id)+"/versions", nil)
}

func (n localNotes) Preview(ctx context.Context, tool string, args json.RawMessage) (protocol.WritePreview, error) {
	return call[protocol.WritePreview](ctx, n.l, http.MethodPost, "/api/notes/preview", map[string]any{"tool": tool, "arguments": args})
}

func (n localNotes) Links(ctx context.Context, path string) (protocol.NoteLinks, error) {
	return call[protocol.NoteLinks](ctx, n.l, http.MethodGet, "/api/notes/links?path="+url.QueryEscape(path), nil)
}

var _ host.Notes = localNotes{}

// Batches is the owner's task queue over its local channel (the
// /api/batches routes and their stream), so `quire organise` works through
// the window's or `quire serve`'s workers while one of them owns the
// folder, as `quire index` works through its index.
func (l *Local) Batches() host.Batches { return localBatches{l} }

type localBatches struct{ l *Local }

func (b localBatches) Start(ctx context.Context, folder string) (protocol.Batch, error) {
	return call[protocol.Batch](ctx, b.l, http.MethodPost, "/api/batches", folderBody{Folder: folder})
}

func (b localBatches) List(ctx context.Context) ([]protocol.Batch, error) {
	return call[[]protocol.Batch](ctx, b.l, http.MethodGet, "/api/batches", nil)
}

func (b localBatches) Get(ctx context.Context, id string) (protocol.BatchReview, error) {
	return call[protocol.BatchReview](ctx, b.l, http.MethodGet, "/api/batches/"+url.PathEscape(id), nil)
}

// act is a route that acts on one batch and answers it.
func (b localBatches) act(ctx context.Context, id, action string, body any) (protocol.Batch, error) {
	return call[protocol.Batch](ctx, b.l, http.MethodPost, "/api/batches/"+url.PathEscape(id)+"/"+action, body)
}

func (b localBatches) Pause(ctx context.Context, id string) (protocol.Batch, error) {
	return b.act(ctx, id, "pause", struct{}{})
}

func (b localBatches) Resume(ctx context.Context, id string) (protocol.Batch, error) {
	return b.act(ctx, id, "resume", struct{}{})
}

func (b localBatches) Cancel(ctx context.Context, id string) (protocol.Batch, error) {
	return b.act(ctx, id, "cancel", struct{}{})
}

func (b localBatches) Apply(ctx context.Context, id string, d protocol.BatchDecision) (protocol.Batch, error) {
	return b.act(ctx, id, "apply", d)
}

func (b localBatches) Undo(ctx context.Context, id string) (protocol.Batch, error) {
	return b.act(ctx, id, "undo", struct{}{})
}

// Watch follows the owner's batch stream (watchStream).
func (b localBatches) Watch(ctx context.Context) <-chan protocol.BatchProgress {
	return watchStream[protocol.BatchProgress](ctx, b.l, "/api/batches/stream", "batch")
}

// watchStream delivers the owner's stream at path — its events called
// name, each read as a T; others, and one that does not read, skipped — in
// order until ctx ends or the stream does (the owner went away): the
// channel closes then, as a port's own Watch closes when its ctx ends.
func watchStream[T any](ctx context.Context, l *Local, path, name string) <-chan T {
	out := make(chan T)
	events, _, err := l.stream(ctx, path)
	if err != nil {
		close(out)
		return out
	}
	go func() {
		defer close(out)
		for e := range events {
			var v T
			if e.name != name || json.Unmarshal(e.data, &v) != nil {
				continue
			}
			select {
			case out <- v:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

var _ host.Batches = localBatches{}
