package httpapi

import (
	"context"
	"encoding/json"
	"net/http"

	"quire/host"
	"quire/kernel/protocol"
)

// The owner's ports besides its kernel, over its local channel, for the
// terminal hosts: the Notes panel's back end (`quire chat`'s /undo), the
// task queue (`quire organise`), the skills (`quire skills`) and the MCP
// servers (`quire mcp`). Each call is the owner's operation of that name
// (OpPath), as the page calls it; a port's Watch is its stream.

// op is the owner's operation name with args, answered with a T.
func op[T any](ctx context.Context, l *Local, name string, args ...any) (T, error) {
	var out T
	err := l.do(ctx, http.MethodPost, OpPath+name, opArgs(args), &out)
	return out, err
}

// opDo is the owner's operation name with args, for one without a result.
func opDo(ctx context.Context, l *Local, name string, args ...any) error {
	return l.do(ctx, http.MethodPost, OpPath+name, opArgs(args), nil)
}

// opArgs is the arguments as the JSON array the route reads ([] for none).
func opArgs(args []any) []any {
	if args == nil {
		return []any{}
	}
	return args
}

// Notes is the owner's Notes panel back end over its local channel, so a
// terminal's /undo reverts a change directly, as the window's Changes list
// does, under the owner's write lock.
func (l *Local) Notes() host.Notes { return localNotes{l} }

type localNotes struct{ l *Local }

func (n localNotes) Tree(ctx context.Context, path string) (protocol.NoteFolder, error) {
	return op[protocol.NoteFolder](ctx, n.l, "Notes.Tree", path)
}

func (n localNotes) Read(ctx context.Context, path string) (protocol.NoteText, error) {
	return op[protocol.NoteText](ctx, n.l, "Notes.Read", path)
}

func (n localNotes) Changes(ctx context.Context) (protocol.ChangeList, error) {
	return op[protocol.ChangeList](ctx, n.l, "Notes.Changes")
}

func (n localNotes) Undo(ctx context.Context, id string) (protocol.UndoOutcome, error) {
	return op[protocol.UndoOutcome](ctx, n.l, "Notes.Undo", id)
}

func (n localNotes) UndoAll(ctx context.Context, session string, ids []string) (protocol.UndoOutcome, error) {
	return op[protocol.UndoOutcome](ctx, n.l, "Notes.UndoAll", session, ids)
}

func (n localNotes) Versions(ctx context.Context, id string) (protocol.NoteVersions, error) {
	return op[protocol.NoteVersions](ctx, n.l, "Notes.Versions", id)
}

func (n localNotes) Preview(ctx context.Context, tool string, args json.RawMessage) (protocol.WritePreview, error) {
	return op[protocol.WritePreview](ctx, n.l, "Notes.Preview", tool, args)
}

func (n localNotes) Links(ctx context.Context, path string) (protocol.NoteLinks, error) {
	return op[protocol.NoteLinks](ctx, n.l, "Notes.Links", path)
}

var _ host.Notes = localNotes{}

// Batches is the owner's task queue over its local channel, so `quire
// organise` works through the window's or `quire serve`'s workers while
// one of them owns the folder, as `quire index` works through its index.
func (l *Local) Batches() host.Batches { return localBatches{l} }

type localBatches struct{ l *Local }

func (b localBatches) Start(ctx context.Context, folder string) (protocol.Batch, error) {
	return op[protocol.Batch](ctx, b.l, "Batches.Start", folder)
}

func (b localBatches) List(ctx context.Context) ([]protocol.Batch, error) {
	return op[[]protocol.Batch](ctx, b.l, "Batches.List")
}

func (b localBatches) Get(ctx context.Context, id string) (protocol.BatchReview, error) {
	return op[protocol.BatchReview](ctx, b.l, "Batches.Get", id)
}

func (b localBatches) Pause(ctx context.Context, id string) (protocol.Batch, error) {
	return op[protocol.Batch](ctx, b.l, "Batches.Pause", id)
}

func (b localBatches) Resume(ctx context.Context, id string) (protocol.Batch, error) {
	return op[protocol.Batch](ctx, b.l, "Batches.Resume", id)
}

func (b localBatches) Cancel(ctx context.Context, id string) (protocol.Batch, error) {
	return op[protocol.Batch](ctx, b.l, "Batches.Cancel", id)
}

func (b localBatches) Apply(ctx context.Context, id string, d protocol.BatchDecision) (protocol.Batch, error) {
	return op[protocol.Batch](ctx, b.l, "Batches.Apply", id, d)
}

func (b localBatches) Undo(ctx context.Context, id string) (protocol.Batch, error) {
	return op[protocol.Batch](ctx, b.l, "Batches.Undo", id)
}

// Watch follows the owner's batch stream (watchStream).
func (b localBatches) Watch(ctx context.Context) <-chan protocol.BatchProgress {
	return watchStream[protocol.BatchProgress](ctx, b.l, "/api/batches/stream", "batch")
}

var _ host.Batches = localBatches{}

// Skills is the owner's skills over its local channel, so `quire skills
// list` says what the window or `quire serve` offers: availability judged
// against the MCP servers it runs.
func (l *Local) Skills() host.Skills { return localSkills{l} }

type localSkills struct{ l *Local }

func (s localSkills) SkillList(ctx context.Context) (protocol.SkillList, error) {
	return op[protocol.SkillList](ctx, s.l, "Skills.SkillList")
}

func (s localSkills) SetSkillEnabled(ctx context.Context, name string, on bool) error {
	return opDo(ctx, s.l, "Skills.SetSkillEnabled", name, on)
}

func (s localSkills) InstallSkill(ctx context.Context, dir string) (protocol.SkillInfo, error) {
	return op[protocol.SkillInfo](ctx, s.l, "Skills.InstallSkill", dir)
}

var _ host.Skills = localSkills{}

// MCP is the owner's MCP servers over its local channel, so `quire mcp`
// lists and changes the servers the window or `quire serve` runs, as they
// run them.
func (l *Local) MCP() host.MCP { return localMCP{l} }

type localMCP struct{ l *Local }

func (m localMCP) Servers(ctx context.Context) (protocol.MCPList, error) {
	return op[protocol.MCPList](ctx, m.l, "MCP.Servers")
}

func (m localMCP) Put(ctx context.Context, c protocol.MCPServerConfig) (protocol.MCPServer, error) {
	return op[protocol.MCPServer](ctx, m.l, "MCP.Put", c)
}

func (m localMCP) Remove(ctx context.Context, name string) error {
	return opDo(ctx, m.l, "MCP.Remove", name)
}

func (m localMCP) Import(ctx context.Context, text string) (protocol.MCPImport, error) {
	return op[protocol.MCPImport](ctx, m.l, "MCP.Import", text)
}

func (m localMCP) Start(ctx context.Context, name string) (protocol.MCPServer, error) {
	return op[protocol.MCPServer](ctx, m.l, "MCP.Start", name)
}

func (m localMCP) Stop(ctx context.Context, name string) (protocol.MCPServer, error) {
	return op[protocol.MCPServer](ctx, m.l, "MCP.Stop", name)
}

func (m localMCP) Restart(ctx context.Context, name string) (protocol.MCPServer, error) {
	return op[protocol.MCPServer](ctx, m.l, "MCP.Restart", name)
}

func (m localMCP) SetTool(ctx context.Context, c protocol.MCPToolChoice) (protocol.MCPServer, error) {
	return op[protocol.MCPServer](ctx, m.l, "MCP.SetTool", c)
}

// Watch follows the owner's MCP stream (watchStream).
func (m localMCP) Watch(ctx context.Context) <-chan protocol.MCPServer {
	return watchStream[protocol.MCPServer](ctx, m.l, "/api/mcp/stream", "mcp")
}

var _ host.MCP = localMCP{}

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
