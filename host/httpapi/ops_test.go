package httpapi_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"

	"quire/host"
	"quire/host/httpapi"
	"quire/kernel/protocol"
)

// TestEveryOperationHasItsRoute: every operation the ports declare is
// routed, without a line written for it: with no back ends each answers
// that its part is not available (503), never that it does not exist.
func TestEveryOperationHasItsRoute(t *testing.T) {
	srv := start(t, httpapi.New(httpapi.Backend{}, fstest.MapFS{}, slog.New(slog.DiscardHandler)))
	ops := host.NewWire().Ops()
	if len(ops) < 60 {
		t.Fatalf("only %d operations derived from the ports", len(ops))
	}
	for _, op := range ops {
		args := strings.TrimSuffix(strings.Repeat("null,", len(op.Params)), ",")
		code, body := srv.do(t, "POST", httpapi.OpPath+op.Name, "["+args+"]")
		if code != http.StatusServiceUnavailable || !strings.Contains(body, "not available") {
			t.Errorf("%s: %d %s; want 503 saying it is not available", op.Name, code, body)
		}
	}
}

// TestOperationRoute: an operation reaches its port's method with the
// arguments in order and answers its result; an error class keeps its
// status; what does not fit is refused before the port is asked, with a
// sentence that says what is wrong.
func TestOperationRoute(t *testing.T) {
	big := `["` + strings.Repeat("a", 1<<20) + `"]`
	for _, c := range []struct {
		name, op, body string
		err            error
		code           int
		asked, says    string
	}{
		{"a read", "Notes.Tree", `["projects/2026"]`, nil, 200, "tree projects/2026", `"path":"projects/2026"`},
		{"no body for no arguments", "Notes.Changes", ``, nil, 200, "changes", `"changes":[]`},
		{"an empty list for no arguments", "Notes.Changes", `[]`, nil, 200, "changes", `"changes":[]`},
		{"two arguments in order", "Notes.UndoAll", `["s1",["chg_2","chg_1"]]`, nil, 200, "undo all s1 chg_2,chg_1", `"undone":["chg_2","chg_1"]`},
		{"raw JSON passes whole", "Notes.Preview", `["edit_note",{"path":"a.md"}]`, nil, 200, `preview edit_note {"path":"a.md"}`, `"tool":"edit_note"`},
		{"an error class keeps its status", "Notes.Read", `["gone.md"]`, fmt.Errorf("gone.md does not exist: %w", protocol.ErrNotFound), 404, "read gone.md", "gone.md does not exist"},
		{"a conflict", "Notes.Undo", `["chg_1"]`, fmt.Errorf("the note changed since: %w", protocol.ErrConflict), 409, "undo chg_1", "the note changed since"},
		{"an unknown operation", "Notes.Burn", `[]`, nil, 404, "", `no such operation: \"Notes.Burn\"`},
		{"an off-wire method", "Evolution.RecordEvaluation", `[{}]`, nil, 404, "", "no such operation"},
		{"bad JSON", "Notes.Tree", `["a"`, nil, 400, "", "the request body is not the JSON expected"},
		{"not an array", "Notes.Tree", `{"path":"a"}`, nil, 400, "", "the request body is not the JSON expected"},
		{"too few arguments", "Notes.UndoAll", `["s1"]`, nil, 400, "", "Notes.UndoAll takes 2, not 1"},
		{"an argument of another type", "Notes.Tree", `[7]`, nil, 400, "", "Notes.Tree argument 1"},
		{"over the body bound", "Notes.Tree", big, nil, 413, "", "larger than 1 MiB"},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := &notesCalls{err: c.err}
			srv := start(t, httpapi.New(httpapi.Backend{Notes: n}, fstest.MapFS{}, slog.New(slog.DiscardHandler)))
			code, body := srv.do(t, "POST", httpapi.OpPath+c.op, c.body)
			if code != c.code || !strings.Contains(body, c.says) {
				t.Errorf("%d %s; want %d saying %q", code, body, c.code, c.says)
			}
			if got := strings.Join(n.asked, "; "); got != c.asked {
				t.Errorf("the back end was asked %q, want %q", got, c.asked)
			}
		})
	}
}

// TestOperationWithoutResultAnswersNoContent: an operation whose method
// returns only an error answers 204; a refused setting names its field.
func TestOperationWithoutResultAnswersNoContent(t *testing.T) {
	set := &settings{dir: "/notes"}
	srv := start(t, httpapi.New(httpapi.Backend{Settings: set, Notes: &notesCalls{}}, fstest.MapFS{}, slog.New(slog.DiscardHandler)))
	if code, body := srv.do(t, "POST", httpapi.OpPath+"Settings.Update", `[{"temperature":3}]`); code != 400 || !strings.Contains(body, `"field":"temperature"`) {
		t.Errorf("a refused setting: %d %s", code, body)
	}
	if code, body := srv.do(t, "POST", httpapi.OpPath+"Settings.Update", `[{"temprature":1}]`); code != 400 || !strings.Contains(body, `unknown field \"temprature\"`) {
		t.Errorf("a misspelt setting: %d %s", code, body)
	}
	if code, body := srv.do(t, "POST", httpapi.OpPath+"Settings.CheckOllama", `["http://127.0.0.1:1"]`); code != 200 || len(set.checked) != 1 {
		t.Errorf("a result without an error: %d %s (checked %v)", code, body, set.checked)
	}
}

// TestOperationRouteKeepsTheGuard: the derived route sits behind the same
// checks as every /api route: the secret, JSON only, the protocol version,
// POST only.
func TestOperationRouteKeepsTheGuard(t *testing.T) {
	n := &notesCalls{}
	srv := start(t, httpapi.New(httpapi.Backend{Notes: n}, fstest.MapFS{}, slog.New(slog.DiscardHandler)))
	for _, c := range []struct {
		name    string
		method  string
		headers []string
		code    int
	}{
		{"no secret", "POST", []string{"Authorization", ""}, 401},
		{"a form", "POST", []string{"Content-Type", "text/plain"}, 415},
		{"another site", "POST", []string{"Sec-Fetch-Site", "cross-site"}, 403},
		{"no protocol version", "POST", []string{httpapi.ProtocolHeader, ""}, 426},
		{"a GET", "GET", nil, 405},
	} {
		t.Run(c.name, func(t *testing.T) {
			if code, body := srv.do(t, c.method, httpapi.OpPath+"Notes.Changes", "[]", c.headers...); code != c.code {
				t.Errorf("%d %s; want %d", code, body, c.code)
			}
		})
	}
	if len(n.asked) != 0 {
		t.Errorf("the back end was asked %v through a refused request", n.asked)
	}
}
