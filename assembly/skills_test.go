package assembly

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"quire/config"
	"quire/kernel/protocol"
	"quire/skills"
	"quire/test/mcptest"
	"quire/test/ollamatest"
)

// TestSkillsPanel: Settings → Skills over the real parts lists the shipped
// skills with their reasons, turns one off (saved in settings.json and out
// of the next run's request), refuses an unknown name, installs a folder,
// and says why a broken folder in the skills folder is not a skill.
func TestSkillsPanel(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.Script(ollamatest.Turn{Content: []string{"one"}}, ollamatest.Turn{Content: []string{"two"}})
	dataDir := t.TempDir()
	p := ownerSayingYes(t, fake, dataDir, t.TempDir())
	sk := p.Skills()
	if sk == nil {
		t.Fatal("an Owner has no skills")
	}
	list, err := sk.SkillList(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Skills) != 2 || list.Folder != filepath.Join(dataDir, SkillsFolder) {
		t.Fatalf("%+v", list)
	}
	for _, s := range list.Skills {
		if s.Source != "builtin" || !s.Enabled || s.Unavailable != "" || len(s.Requires.Model) != 1 || !s.Requires.Notes {
			t.Fatalf("%+v", s)
		}
	}
	say(t, p, "hello")
	if req := string(fake.Requests()[0].Body); !strings.Contains(req, "- weekly-review:") || !strings.Contains(req, `"load_skill"`) {
		t.Fatal("the first run is not offered the shipped skills")
	}

	if err := sk.SetSkillEnabled(t.Context(), "weekly-review", false); err != nil {
		t.Fatal(err)
	}
	saved, err := config.ReadSettings(dataDir)
	if err != nil || len(saved.Skills.Disabled) != 1 || saved.Skills.Disabled[0] != "weekly-review" {
		t.Fatalf("settings.json: %+v %v", saved.Skills, err)
	}
	say(t, p, "again")
	if req := string(fake.Requests()[1].Body); strings.Contains(req, "- weekly-review:") || !strings.Contains(req, "- meeting-notes:") {
		t.Fatal("the run after weekly-review was turned off still lists it")
	}
	if err := sk.SetSkillEnabled(t.Context(), "no-such", true); !errors.Is(err, protocol.ErrNotFound) || !errors.Is(err, skills.ErrUnknownSkill) {
		t.Fatalf("an unknown skill: %v", err)
	}

	src := filepath.Join(t.TempDir(), "standup")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	text := "---\nname: standup\ndescription: Write the standup note.\nrequires:\n  mcp: [calendar]\n---\nDo it.\n"
	if err := os.WriteFile(filepath.Join(src, skills.FileName), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	info, err := sk.InstallSkill(t.Context(), src)
	if err != nil || info.Source != "user" || info.Unavailable != "Needs the MCP server 'calendar', which is not running: start it in Settings → Extensions." {
		t.Fatalf("%+v %v", info, err)
	}
	if _, err := sk.InstallSkill(t.Context(), src); !errors.Is(err, protocol.ErrConflict) {
		t.Fatalf("a second install: %v", err)
	}
	if err := os.MkdirAll(filepath.Join(list.Folder, "junk"), 0o755); err != nil {
		t.Fatal(err)
	}
	list, _ = sk.SkillList(t.Context())
	if len(list.Skills) != 3 || len(list.Problems) != 1 || list.Problems[0].Folder != "junk" || !strings.Contains(list.Problems[0].Reason, "has no SKILL.md") {
		t.Fatalf("%+v", list)
	}
}

// A skill that needs an MCP server follows the server through the real
// client: unavailable with its sentence (in Settings' list and absent
// from the run's listing) while the server is stopped, offered on the next
// run once it runs, and withdrawn again after its process dies.
func TestSkillNeedingAnMCPServerFollowsTheServer(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.Script(ollamatest.Turn{Content: []string{"one"}}, ollamatest.Turn{Content: []string{"two"}}, ollamatest.Turn{Content: []string{"three"}})
	dir := t.TempDir()
	folder := filepath.Join(dir, SkillsFolder, "standup")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	text := "---\nname: standup\ndescription: Write the standup note.\nrequires:\n  mcp: [calendar]\n---\nDo it.\n"
	if err := os.WriteFile(filepath.Join(folder, skills.FileName), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	writeMCPJSON(t, dir, mcptest.Stdio(t, "calendar", filepath.Join(dir, "r")))
	o := openMCPOwner(t, fake, dir, 0, true)
	mcptest.WaitState(t, o.MCP(), "calendar", protocol.MCPRunning)
	if _, err := o.MCP().Stop(t.Context(), "calendar"); err != nil {
		t.Fatal(err)
	}
	const stopped = "Needs the MCP server 'calendar', which is not running: start it in Settings → Extensions."
	standup := func() protocol.SkillInfo {
		t.Helper()
		list, err := o.Skills().SkillList(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range list.Skills {
			if s.Name == "standup" {
				return s
			}
		}
		t.Fatalf("standup is not listed: %+v", list)
		return protocol.SkillInfo{}
	}
	listed := func(run int) bool {
		t.Helper()
		reqs := fake.Requests()
		if len(reqs) != run {
			t.Fatalf("%d requests, want %d", len(reqs), run)
		}
		return strings.Contains(string(reqs[run-1].Body), "- standup:")
	}
	steps := []struct {
		name   string
		act    func()
		reason string
	}{
		{"stopped", func() {}, stopped},
		{"running", func() {
			if _, err := o.MCP().Start(t.Context(), "calendar"); err != nil {
				t.Fatal(err)
			}
			mcptest.WaitState(t, o.MCP(), "calendar", protocol.MCPRunning)
		}, ""},
		{"died", func() {
			list, _ := o.MCP().Servers(t.Context())
			if err := syscall.Kill(list.Servers[0].PID, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			mcptest.WaitState(t, o.MCP(), "calendar", protocol.MCPFailed)
		}, stopped},
	}
	for i, step := range steps {
		step.act()
		if got := standup().Unavailable; got != step.reason {
			t.Errorf("%s: Settings says %q, want %q", step.name, got, step.reason)
		}
		o.say(t, "", step.name, 1)
		if got := listed(i + 1); got != (step.reason == "") {
			t.Errorf("%s: the run's listing has standup: %v", step.name, got)
		}
	}
}
