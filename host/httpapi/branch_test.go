package httpapi_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"quire/kernel/event"
	"quire/kernel/protocol"
)

// TestBranchRoutes: edit, regenerate and continue over HTTP are the
// kernel's commands, with their statuses: an edit or a regenerate answers
// 201 with the branch (the same one again under the same key), a continue
// with nothing to continue and a delete of a conversation with a branch
// are conflicts, a misspelt body is refused.
func TestBranchRoutes(t *testing.T) {
	e := serve(t, "")
	id := newSession(t, e)
	if status, body := e.srv.do(t, "POST", "/api/sessions/"+id+"/messages", `{"text":"hi"}`); status != 202 {
		t.Fatalf("send: %d %s", status, body)
	}
	evs := e.k.WaitRuns(t, id, 1)
	var user, reply int64
	for _, ev := range evs {
		switch ev.Type {
		case event.UserMessage:
			user = ev.Seq
		case event.AssistantMessage:
			reply = ev.Seq
		}
	}
	path := "/api/sessions/" + id
	branchOf := func(body string) protocol.BranchResult {
		t.Helper()
		var r protocol.BranchResult
		if err := json.Unmarshal([]byte(body), &r); err != nil || r.Session.ID == "" || r.RunID == "" {
			t.Fatalf("not a branch: %s (%v)", body, err)
		}
		return r
	}
	edit := `{"seq":` + strconv.FormatInt(user, 10) + `,"text":"hello"}`
	status, body := e.srv.do(t, "POST", path+"/edit", edit, "Idempotency-Key", "k1")
	if status != 201 {
		t.Fatalf("edit: %d %s", status, body)
	}
	first := branchOf(body)
	if first.Session.Parent != id || first.Session.ParentSeq != user-1 || first.Session.Title != "hello" {
		t.Fatalf("the edit's branch %+v, want %s at %d titled hello", first.Session, id, user-1)
	}
	if _, again := e.srv.do(t, "POST", path+"/edit", edit, "Idempotency-Key", "k1"); branchOf(again).Session.ID != first.Session.ID {
		t.Fatalf("the edit repeated under its key made another branch: %s", again)
	}
	e.k.WaitRuns(t, first.Session.ID, 1)
	for _, c := range []struct {
		method, path, body string
		status             int
		contains           string
	}{
		{"POST", path + "/regenerate", `{"seq":` + strconv.FormatInt(reply, 10) + `}`, 201, `"title":"branch 3"`},
		{"POST", path + "/regenerate", `{"seq":` + strconv.FormatInt(user, 10) + `}`, 400, "not a reply"},
		{"POST", path + "/edit", `{"seq":1,"txt":"x"}`, 400, "not the JSON expected"},
		{"POST", path + "/edit", `{"seq":` + strconv.FormatInt(reply, 10) + `,"text":"x"}`, 400, "not a message the user wrote"},
		{"POST", "/api/sessions/zz/edit", `{"seq":1,"text":"x"}`, 404, "no such session"},
		{"POST", path + "/continue", "", 409, "nothing to continue"},
		{"DELETE", path, "", 409, "delete those branches first"},
	} {
		t.Run(c.method+" "+c.path+" "+c.body, func(t *testing.T) {
			status, body := e.srv.do(t, c.method, c.path, c.body)
			if status != c.status || !strings.Contains(body, c.contains) {
				t.Fatalf("%d %q, want %d containing %q", status, body, c.status, c.contains)
			}
		})
	}
}
