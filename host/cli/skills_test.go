package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"quire/config"
	"quire/kernel/protocol"
	"quire/test/mcptest"
	"quire/test/ollamatest"
)

func TestSkillsCommand(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	data, notes := t.TempDir(), t.TempDir()
	flags := []string{"-data-dir", data, "-ollama-host", fake.URL(), "-notes-dir", notes}
	src := filepath.Join(t.TempDir(), "standup")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	skill := "---\nname: standup\ndescription: Write the standup note.\nrequires:\n  mcp: [calendar]\n---\nDo it.\n"
	if err := os.WriteFile(filepath.Join(src, "SKILL.md"), []byte(skill), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr string
	}{
		{"list", []string{"skills", "list"}, 0, []string{"meeting-notes (on, builtin)", "weekly-review (on, builtin)", "needs a model with tools, a notes folder", "Your skills folder: " + filepath.Join(data, "skills")}, ""},
		{"add", []string{"skills", "add", src}, 0, []string{"Installed standup: Write the standup note.", "Needs the MCP server 'calendar', which is not running"}, ""},
		{"add twice", []string{"skills", "add", src}, 1, nil, "installed already"},
		{"add a folder that is not a skill", []string{"skills", "add", t.TempDir()}, 1, nil, "has no SKILL.md"},
		{"list after", []string{"skills", "list"}, 0, []string{"standup (unavailable, user)", "needs the MCP server calendar"}, ""},
		{"no subcommand", []string{"skills"}, 2, nil, "usage: quire skills"},
		{"unknown subcommand", []string{"skills", "remove", "x"}, 2, nil, "usage: quire skills"},
		{"add without a folder", []string{"skills", "add"}, 2, nil, "usage: quire skills"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			// The helper parses flags before the words (main's parses them anywhere).
			if code := run(append(append([]string{"skills"}, flags...), c.args[1:]...), &out, &errb); code != c.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, c.code, out.String(), errb.String())
			}
			for _, want := range c.stdout {
				if !strings.Contains(out.String(), want) {
					t.Errorf("stdout lacks %q:\n%s", want, out.String())
				}
			}
			if !strings.Contains(errb.String(), c.stderr) {
				t.Errorf("stderr %q lacks %q", errb.String(), c.stderr)
			}
		})
	}
	t.Run("json", func(t *testing.T) {
		var out, errb bytes.Buffer
		if code := run(append(append([]string{"skills", "-json"}, flags...), "list"), &out, &errb); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		var list protocol.SkillList
		if err := json.Unmarshal(out.Bytes(), &list); err != nil || len(list.Skills) != 3 || list.Skills[1].Name != "standup" || list.Skills[1].Unavailable == "" {
			t.Fatalf("%v %s", err, out.String())
		}
	})
}

// While `quire serve` owns the folder, `quire skills list` says what that
// owner offers: a skill needing its MCP server is on while the server runs
// there and unavailable, with the sentence, once it is stopped — as the
// owner's Settings says — and the list says whose it is.
func TestSkillsListThroughTheRunningOwnerFollowsItsServers(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "skills", "standup")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	skill := "---\nname: standup\ndescription: Write the standup note.\nrequires:\n  mcp: [garden]\n---\nDo it.\n"
	if err := os.WriteFile(filepath.Join(folder, "SKILL.md"), []byte(skill), 0o644); err != nil {
		t.Fatal(err)
	}
	p := servingOwner(t, config.NewStore(config.Config{DataDir: dir, Model: "qwen3:4b", NumCtx: 8192}))
	var out, errb bytes.Buffer
	if code := run(addArgs(t, dir, "garden"), &out, &errb); code != 0 {
		t.Fatalf("add: exit %d: %s", code, errb.String())
	}
	mcptest.WaitState(t, p.MCP(), "garden", protocol.MCPRunning)
	steps := []struct {
		name    string
		act     func()
		state   string
		without string
	}{
		{"running", func() {}, "standup (on, user)", "not running"},
		{"stopped", func() {
			if _, err := p.MCP().Stop(t.Context(), "garden"); err != nil {
				t.Fatal(err)
			}
		}, "standup (unavailable, user)\n  Write the standup note.\n  Needs the MCP server 'garden', which is not running: start it in Settings → Extensions.", ""},
	}
	for _, step := range steps {
		step.act()
		out.Reset()
		errb.Reset()
		if code := run([]string{"skills", "-data-dir", dir, "list"}, &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", step.name, code, errb.String())
		}
		if !strings.Contains(out.String(), step.state) || step.without != "" && strings.Contains(out.String(), step.without) {
			t.Errorf("%s: the list:\n%s", step.name, out.String())
		}
		if !strings.Contains(errb.String(), "As `quire serve` (process") {
			t.Errorf("%s: stderr does not say whose list it is: %s", step.name, errb.String())
		}
	}
}
