package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"

	"quire/host"
	"quire/kernel/protocol"
)

// Notes is the owner's Notes panel back end over its local channel (the
// /api/notes routes), so a terminal's /undo reverts a change directly, as
// the window's Changes list does, under the owner's write lock.
func (l *Local) Notes() host.Notes { return localNotes{l} }

type localNotes struct{ l *Local }

func (n localNotes) Tree(ctx context.Context, path string) (protocol.NoteFolder, error) {
	var f protocol.NoteFolder
	err := n.l.do(ctx, http.MethodGet, "/api/notes/tree?path="+url.QueryEscape(path), nil, &f)
	return f, err
}

func (n localNotes) Read(ctx context.Context, path string) (protocol.NoteText, error) {
	var t protocol.NoteText
	err := n.l.do(ctx, http.MethodGet, "/api/notes/note?path="+url.QueryEscape(path), nil, &t)
	return t, err
}

func (n localNotes) Changes(ctx context.Context) (protocol.ChangeList, error) {
	var c protocol.ChangeList
	err := n.l.do(ctx, http.MethodGet, "/api/notes/changes", nil, &c)
	return c, err
}

func (n localNotes) Undo(ctx context.Context, id string) (protocol.UndoOutcome, error) {
	var o protocol.UndoOutcome
	err := n.l.do(ctx, http.MethodPost, "/api/notes/changes/"+url.PathEscape(id)+"/undo", struct{}{}, &o)
	return o, err
}

func (n localNotes) UndoAll(ctx context.Context, session string, ids []string) (protocol.UndoOutcome, error) {
	var o protocol.UndoOutcome
	err := n.l.do(ctx, http.MethodPost, "/api/notes/sessions/"+url.PathEscape(session)+"/undo", map[string][]string{"ids": ids}, &o)
	return o, err
}

func (n localNotes) Versions(ctx context.Context, id string) (protocol.NoteVersions, error) {
	var v protocol.NoteVersions
	err := n.l.do(ctx, http.MethodGet, "/api/notes/changes/"+url.PathEscape(id)+"/versions", nil, &v)
	return v, err
}

func (n localNotes) Preview(ctx context.Context, tool string, args json.RawMessage) (protocol.WritePreview, error) {
	var p protocol.WritePreview
	err := n.l.do(ctx, http.MethodPost, "/api/notes/preview", map[string]any{"tool": tool, "arguments": args}, &p)
	return p, err
}

var _ host.Notes = localNotes{}
