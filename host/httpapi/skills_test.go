package httpapi_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"quire/host/httpapi"
	"quire/kernel/protocol"
)

// skillsBack is the Skills port over a fixed list: the routes are under
// test here (the catalog behind them is tested in skills and assembly).
type skillsBack struct {
	mu      sync.Mutex
	enabled map[string]bool
	dirs    []string
}

var errNotSkill = errors.New("not a skill")

func (b *skillsBack) SkillList(context.Context) (protocol.SkillList, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return protocol.SkillList{Skills: []protocol.SkillInfo{{Name: "weekly-review", Source: "builtin", Enabled: b.enabled["weekly-review"], Files: []string{}}}, Problems: []protocol.SkillProblem{}, Folder: "/d/skills"}, nil
}

func (b *skillsBack) SetSkillEnabled(_ context.Context, name string, on bool) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if name != "weekly-review" {
		return protocol.Refusal(protocol.ErrNotFound, errNotSkill, "No skill named \""+name+"\" is installed: reload the list of skills.")
	}
	b.enabled[name] = on
	return nil
}

func (b *skillsBack) InstallSkill(_ context.Context, dir string) (protocol.SkillInfo, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch dir {
	case "/bad":
		return protocol.SkillInfo{}, protocol.Refusal(protocol.ErrBadPayload, errNotSkill, "The folder has no SKILL.md: a skill is a folder with a SKILL.md file at its top.")
	case "/twice":
		return protocol.SkillInfo{}, protocol.Refusal(protocol.ErrConflict, errNotSkill, "A skill named x is installed already")
	}
	b.dirs = append(b.dirs, dir)
	return protocol.SkillInfo{Name: "mine", Source: "user"}, nil
}

func TestSkillRoutes(t *testing.T) {
	back := &skillsBack{enabled: map[string]bool{"weekly-review": true}}
	srv := start(t, httpapi.New(httpapi.Backend{Skills: back}, fstest.MapFS{}, slog.New(slog.DiscardHandler)))
	none := start(t, httpapi.New(httpapi.Backend{}, fstest.MapFS{}, slog.New(slog.DiscardHandler)))
	for _, c := range []struct {
		name     string
		on       client
		op, body string
		code     int
		says     string
	}{
		{"list", srv, "Skills.SkillList", "", 200, `"name":"weekly-review"`},
		{"turn off", srv, "Skills.SetSkillEnabled", `["weekly-review",false]`, 204, ""},
		{"listed off", srv, "Skills.SkillList", "", 200, `"enabled":false`},
		{"no value", srv, "Skills.SetSkillEnabled", `["weekly-review"]`, 400, "takes 2"},
		{"a value not a yes or no", srv, "Skills.SetSkillEnabled", `["weekly-review","write"]`, 400, "argument 2"},
		{"unknown skill", srv, "Skills.SetSkillEnabled", `["nope",true]`, 404, "No skill named"},
		{"install", srv, "Skills.InstallSkill", `["/home/me/mine"]`, 200, `"name":"mine"`},
		{"install with no folder", srv, "Skills.InstallSkill", `[]`, 400, "takes 1"},
		{"install an invalid folder", srv, "Skills.InstallSkill", `["/bad"]`, 400, "has no SKILL.md"},
		{"install twice", srv, "Skills.InstallSkill", `["/twice"]`, 409, "installed already"},
		{"no skills", none, "Skills.SkillList", "", 503, "not available here"},
		{"no skills to turn off", none, "Skills.SetSkillEnabled", `["weekly-review",true]`, 503, "not available here"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := http.DefaultClient.Do(c.on.request(t, "POST", httpapi.OpPath+c.op, c.body))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != c.code || !strings.Contains(string(b), c.says) {
				t.Fatalf("%d %s; want %d saying %q", res.StatusCode, b, c.code, c.says)
			}
		})
	}
	if len(back.dirs) != 1 || back.dirs[0] != "/home/me/mine" {
		t.Fatalf("installs reached the backend: %v", back.dirs)
	}
}
