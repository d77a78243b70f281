package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"

	"quire/host/httpapi"
	"quire/kernel/protocol"
)

// notesCalls is a host.Notes that says what it was asked, and fails with
// err when set: the routes are under test, not the panel's back end
// (assembly's TestUndoFromTheChangesList tests that).
type notesCalls struct {
	asked []string
	err   error
}

func (n *notesCalls) record(format string, args ...any) error {
	n.asked = append(n.asked, fmt.Sprintf(format, args...))
	return n.err
}

func (n *notesCalls) Tree(_ context.Context, path string) (protocol.NoteFolder, error) {
	return protocol.NoteFolder{Path: path, Entries: []protocol.NoteEntry{}}, n.record("tree %s", path)
}
func (n *notesCalls) Read(_ context.Context, path string) (protocol.NoteText, error) {
	return protocol.NoteText{Path: path}, n.record("read %s", path)
}
func (n *notesCalls) Changes(context.Context) (protocol.ChangeList, error) {
	return protocol.ChangeList{Changes: []protocol.ChangeRecord{}}, n.record("changes")
}
func (n *notesCalls) Undo(_ context.Context, id string) (protocol.UndoOutcome, error) {
	return protocol.UndoOutcome{Undone: []string{id}}, n.record("undo %s", id)
}
func (n *notesCalls) UndoAll(_ context.Context, session string, ids []string) (protocol.UndoOutcome, error) {
	return protocol.UndoOutcome{Undone: ids}, n.record("undo all %s %s", session, strings.Join(ids, ","))
}
func (n *notesCalls) Versions(_ context.Context, id string) (protocol.NoteVersions, error) {
	return protocol.NoteVersions{ID: id}, n.record("versions %s", id)
}
func (n *notesCalls) Links(_ context.Context, path string) (protocol.NoteLinks, error) {
	return protocol.NoteLinks{Path: path, Indexed: true, Backlinks: []protocol.NoteLink{{From: "a.md", Target: "plan", Line: 3, Wiki: true}},
		Unresolved: []protocol.NoteLink{}, BacklinkCount: 1}, n.record("links %s", path)
}
func (n *notesCalls) Preview(_ context.Context, tool string, args json.RawMessage) (protocol.WritePreview, error) {
	return protocol.WritePreview{Tool: tool}, n.record("preview %s %s", tool, args)
}

// TestNotesRoutes: each route reaches the one method it names with what the
// page sent; a back end's error class becomes its status with its words; a
// body that says nothing usable is refused before the back end is asked;
// with no notes panel every route says so.
func TestNotesRoutes(t *testing.T) {
	for _, c := range []struct {
		name     string
		op, body string
		err      error
		code     int
		asked    string
		says     string
	}{
		{"tree", "Notes.Tree", `["projects/2026"]`, nil, 200, "tree projects/2026", `"path":"projects/2026"`},
		{"note", "Notes.Read", `["plan.md"]`, nil, 200, "read plan.md", `"path":"plan.md"`},
		{"changes", "Notes.Changes", "", nil, 200, "changes", `"changes":[]`},
		{"undo", "Notes.Undo", `["chg_1"]`, nil, 200, "undo chg_1", `"undone":["chg_1"]`},
		{"versions", "Notes.Versions", `["chg_1"]`, nil, 200, "versions chg_1", `"id":"chg_1"`},
		{"undo all", "Notes.UndoAll", `["s1",["chg_2","chg_1"]]`, nil, 200, "undo all s1 chg_2,chg_1", `"undone":["chg_2","chg_1"]`},
		{"undo all with no ids", "Notes.UndoAll", `["s1"]`, nil, 400, "", "takes 2"},
		{"undo all with ids not a list", "Notes.UndoAll", `["s1",{"all":true}]`, nil, 400, "", "argument 2"},
		{"preview", "Notes.Preview", `["edit_note",{"path":"a.md"}]`, nil, 200, `preview edit_note {"path":"a.md"}`, `"tool":"edit_note"`},
		{"links", "Notes.Links", `["a b/plan.md"]`, nil, 200, "links a b/plan.md", `"backlinks":[{"from":"a.md","target":"plan","line":3,"wiki":true}]`},
		{"links of a note with no folder", "Notes.Links", `["plan.md"]`, fmt.Errorf("no notes folder is chosen: %w", protocol.ErrNotFound), 404, "links plan.md", "no notes folder"},
		{"preview without a tool", "Notes.Preview", `[{}]`, nil, 400, "", "takes 2"},
		{"not found", "Notes.Read", `["gone.md"]`, fmt.Errorf("gone.md does not exist: %w", protocol.ErrNotFound), 404, "read gone.md", "gone.md does not exist"},
		{"a list that changed", "Notes.UndoAll", `["s1",[]]`, fmt.Errorf("look again: %w", protocol.ErrConflict), 409, "undo all s1 ", "look again"},
		{"a path refused", "Notes.Tree", `[".."]`, fmt.Errorf("outside the notes folder: %w", protocol.ErrBadPayload), 400, "tree ..", "outside the notes folder"},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := &notesCalls{err: c.err}
			srv := start(t, httpapi.New(httpapi.Backend{Notes: n}, fstest.MapFS{}, slog.New(slog.DiscardHandler)))
			res, err := http.DefaultClient.Do(srv.request(t, "POST", httpapi.OpPath+c.op, c.body))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != c.code || !strings.Contains(string(b), c.says) {
				t.Errorf("%d %s; want %d saying %q", res.StatusCode, b, c.code, c.says)
			}
			if got := strings.Join(n.asked, "; "); got != c.asked {
				t.Errorf("the back end was asked %q, want %q", got, c.asked)
			}
		})
	}
	srv := start(t, httpapi.New(httpapi.Backend{}, fstest.MapFS{}, slog.New(slog.DiscardHandler)))
	res, err := http.DefaultClient.Do(srv.request(t, "POST", httpapi.OpPath+"Notes.Changes", ""))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(b), "not available here") {
		t.Fatalf("with no notes panel: %d %s", res.StatusCode, b)
	}
}
