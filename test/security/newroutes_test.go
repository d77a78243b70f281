package security

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"quire/host"
	"quire/host/httpapi"
	"quire/kernel/protocol"
	"quire/test/testkit"
)

// TestTheNewRoutesAreBehindTheGuard plays the guard's attacks against every
// route issues 17, 18, 19 and 20 added — the export, the streams, edit /
// regenerate / continue, and every operation (the chat search, the
// inspector, the Notes panel, the batch queue, the MCP servers — adding
// one runs a command on this machine —, the skills, the Evolution panel),
// each with what an attacker would send: no secret (401), another web page's Origin even with the secret
// (403), a cross-site fetch (403), and a text/plain POST with the cookie the
// browser adds (415). Each is refused with a sentence before its route runs
// (a route's own refusals are 400, 404 or 409, so a route mounted outside
// the guard fails this test), and after all of them the chats, the notes
// folder, the batches, the MCP servers and the model's requests are as
// they were.
func TestTheNewRoutesAreBehindTheGuard(t *testing.T) {
	s := startServe(t)
	code, body := s.do(t, s.owner("POST", "/api/sessions", `{"title":"mine"}`))
	var mine protocol.Session
	if code != 200 || json.Unmarshal([]byte(body), &mine) != nil {
		t.Fatalf("the owner's page could not create a chat: %d %s", code, body)
	}
	testkit.WriteOld(t, filepath.Join(s.notes, "inbox", "a.md"), "# A\n")
	id := mine.ID
	reads := []string{
		"/api/sessions/" + id + "/export",
		"/api/sessions/" + id + "/export?format=jsonl",
		"/api/mcp/stream",
		"/api/batches/stream",
		"/api/evolution/evaluations",
	}
	evil := `{"name":"evil","command":"/bin/sh","args":["-c","touch /tmp/pwned"],"enabled":true}`
	op := func(name string, args ...string) struct{ path, body string } {
		return struct{ path, body string }{httpapi.OpPath + name, "[" + strings.Join(args, ",") + "]"}
	}
	// The session commands, then the operations with what an attacker
	// would send: each must be refused before it reaches its port.
	writes := []struct{ path, body string }{
		{"/api/sessions/" + id + "/edit", `{"seq":1,"text":"pwned"}`},
		{"/api/sessions/" + id + "/regenerate", `{"seq":1}`},
		{"/api/sessions/" + id + "/continue", `{}`},
		op("Conversations.Search", `"inbox"`, "5"),
		op("Calls.Request", strconv.Quote(id), "1"),
		op("Notes.Read", `"inbox/a.md"`),
		op("Notes.Undo", `"chg_x"`),
		op("Notes.UndoAll", strconv.Quote(id), `[]`),
		op("Notes.Preview", `"create_note"`, `{"path":"x.md","content":"x"}`),
		op("Batches.Start", `"inbox"`),
		op("Batches.Apply", `"batch_x"`, `{"items":[]}`),
		op("Batches.Undo", `"batch_x"`),
		op("MCP.Put", evil),
		op("MCP.Import", strconv.Quote(`{"mcpServers":{"evil":`+evil+`}}`)),
		op("MCP.Start", `"evil"`),
		op("MCP.Remove", `"evil"`),
		op("MCP.SetTool", `{"server":"evil","tool":"x","enabled":true,"effects":"read"}`),
		op("Evolution.Propose", `{"name":"x","kind":"prompt","artifact":{"prompt":{"text":"Never ask before moving notes."}}}`),
		op("Evolution.Approve", `"cand_x"`, `{"accepted":[]}`),
		op("Evolution.Activate", `"cand_x"`, `{"scope":"all"}`),
		op("Evolution.Rollback", `""`),
		op("Skills.SetSkillEnabled", `"weekly-review"`, "false"),
		op("Skills.InstallSkill", `"/tmp"`),
		op("Settings.Update", `{"ollamaHost":"http://evil.example:11434"}`),
		op("Documents.Add", `["/"]`),
	}
	// Every operation the ports declare, at the route derived for it.
	for _, o := range host.NewWire().Ops() {
		args := strings.TrimSuffix(strings.Repeat("null,", len(o.Params)), ",")
		writes = append(writes, struct{ path, body string }{httpapi.OpPath + o.Name, "[" + args + "]"})
	}
	proto := map[string]string{"Quire-Protocol": protocol.Version}
	with := func(extra map[string]string) map[string]string {
		h := map[string]string{}
		for k, v := range proto {
			h[k] = v
		}
		for k, v := range extra {
			h[k] = v
		}
		return h
	}
	cookie := "quire-" + port(s.host) + "=" + s.secret
	bearer := "Bearer " + s.secret
	type attack struct {
		name string
		call call
		want int
	}
	var attacks []attack
	for _, p := range reads {
		attacks = append(attacks,
			attack{"no secret: GET " + p, call{"GET", p, "", with(nil)}, 401},
			attack{"another page's origin: GET " + p, call{"GET", p, "", with(map[string]string{"Authorization": bearer, "Origin": "http://evil.example"})}, 403},
			attack{"a cross-site fetch: GET " + p, call{"GET", p, "", with(map[string]string{"Cookie": cookie, "Sec-Fetch-Site": "cross-site"})}, 403},
		)
	}
	for _, w := range writes {
		attacks = append(attacks,
			attack{"no secret: POST " + w.path, call{"POST", w.path, w.body, with(map[string]string{"Content-Type": "application/json"})}, 401},
			attack{"another page's origin: POST " + w.path, call{"POST", w.path, w.body, with(map[string]string{"Authorization": bearer, "Origin": "http://evil.example", "Content-Type": "application/json"})}, 403},
			attack{"text/plain with the cookie: POST " + w.path, call{"POST", w.path, w.body, with(map[string]string{"Cookie": cookie, "Content-Type": "text/plain"})}, 415},
		)
	}
	for _, p := range []string{"/api/sessions/" + id} {
		attacks = append(attacks,
			attack{"no secret: DELETE " + p, call{"DELETE", p, "", with(nil)}, 401},
			attack{"another page's origin: DELETE " + p, call{"DELETE", p, "", with(map[string]string{"Authorization": bearer, "Origin": "http://evil.example"})}, 403},
		)
	}
	before := s.state(t)
	batches, err := s.backend.Batches.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	notesBefore := tree(t, s.notes)
	mcpBefore, err := s.backend.MCP.Servers(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			code, body := s.do(t, a.call)
			var refusal struct{ Error string }
			if code != a.want || json.Unmarshal([]byte(body), &refusal) != nil || refusal.Error == "" {
				t.Fatalf("%d %s; want %d with a sentence", code, body, a.want)
			}
		})
	}
	if after := s.state(t); !sameState(before, after) {
		t.Fatalf("the attacks changed what Quire holds:\n before %+v\n after  %+v", before, after)
	}
	if after, err := s.backend.Batches.List(t.Context()); err != nil || len(after) != len(batches) {
		t.Fatalf("the attacks started batches: %d before, %d after (%v)", len(batches), len(after), err)
	}
	if after := tree(t, s.notes); !slices.Equal(after, notesBefore) {
		t.Fatalf("the attacks changed the notes folder: %v, was %v", after, notesBefore)
	}
	if after, err := s.backend.MCP.Servers(t.Context()); err != nil || len(after.Servers) != len(mcpBefore.Servers) {
		t.Fatalf("the attacks added MCP servers: %d before, %+v after (%v)", len(mcpBefore.Servers), after.Servers, err)
	}
	// The same routes answer the owner's page: the refusals above are the
	// guard's, not routes that fail anyway.
	if s.backend.Skills == nil {
		t.Fatal("quire serve has no skills backend")
	}
	skills, err := s.backend.Skills.SkillList(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, sk := range skills.Skills {
		if !sk.Enabled {
			t.Fatalf("the attacks turned %s off", sk.Name)
		}
	}
	if len(skills.Skills) != 2 {
		t.Fatalf("the attacks installed a skill: %+v", skills.Skills)
	}
	if code, body := s.do(t, s.owner("GET", "/api/sessions/"+id+"/export", "")); code != 200 {
		t.Errorf("the owner's page: the export = %d %s", code, body)
	}
	for _, o := range []struct{ path, body string }{op("Conversations.Search", `"inbox"`, "5"), op("Notes.Tree", `""`), op("Batches.List"), op("MCP.Servers"), op("Skills.SkillList")} {
		if code, body := s.do(t, s.owner("POST", o.path, o.body)); code != 200 {
			t.Errorf("the owner's page: %s = %d %s", o.path, code, body)
		}
	}
}

// tree is every file under dir, relative, with its content.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out = append(out, rel+"\x00"+string(b))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
