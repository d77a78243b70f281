package skills

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"quire/kernel/prompt"
	"quire/kernel/tool"
)

type running []string

func (r running) ServerRunning(name string) bool { return slices.Contains(r, name) }

func skillText(name, desc string, extra ...string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n" + strings.Join(extra, "\n") + "\n---\nInstructions of " + name + ".\n"
}

func writeSkill(t *testing.T, dir, name, text string, files map[string]string) {
	t.Helper()
	d := filepath.Join(dir, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, FileName), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for k, v := range files {
		if err := os.WriteFile(filepath.Join(d, k), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// world is a catalog over two shipped skills and a user folder, judged
// against *st.
func world(t *testing.T, st *State) (*Catalog, string) {
	t.Helper()
	builtin := fstest.MapFS{
		"alpha/SKILL.md": {Data: []byte(skillText("alpha", "Shipped alpha.", "when: Alpha time."))},
		"beta/SKILL.md":  {Data: []byte(skillText("beta", "Shipped beta.", "requires:", "  notes: true"))},
	}
	user := t.TempDir()
	c, err := New(builtin, user, func(context.Context) State { return *st }, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return c, user
}

func TestShippedSkillsParse(t *testing.T) {
	t.Parallel()
	c, err := New(Builtin(), "", func(context.Context) State { return State{NotesDir: "/n", ModelCaps: []string{"tools"}} }, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	all, _ := c.List(t.Context())
	var got []string
	for _, e := range all {
		got = append(got, e.Name)
		if e.Unavailable != "" || !e.Enabled || e.Source != FromBuiltin {
			t.Errorf("%s: %+v", e.Name, e)
		}
	}
	if !slices.Equal(got, []string{"meeting-notes", "weekly-review"}) {
		t.Fatalf("shipped skills %v", got)
	}
}

func TestAvailability(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		requires []string
		st       State
		says     string // "" means available
	}{
		{"nothing required", nil, State{}, ""},
		{"tools, model takes them", []string{"requires:", "  model: [tools]"}, State{ModelCaps: []string{"completion", "tools"}}, ""},
		{"tools, model does not", []string{"requires:", "  model: [tools]"}, State{ModelCaps: []string{"completion"}}, "Needs a model that takes tools: choose one in Settings → Model."},
		{"tools, capabilities unknown", []string{"requires:", "  model: [tools]"}, State{}, ""},
		{"vision", []string{"requires:", "  model: [vision]"}, State{ModelCaps: []string{"tools"}}, "Needs a model with vision"},
		{"server running", []string{"requires:", "  mcp: [calendar]"}, State{Servers: running{"calendar"}}, ""},
		{"server stopped", []string{"requires:", "  mcp: [calendar]"}, State{Servers: running{"mail"}}, "Needs the MCP server 'calendar', which is not running: start it in Settings → Extensions."},
		{"no MCP client", []string{"requires:", "  mcp: [calendar]"}, State{}, "Needs the MCP server 'calendar'"},
		{"notes folder chosen", []string{"requires:", "  notes: true"}, State{NotesDir: "/n"}, ""},
		{"no notes folder", []string{"requires:", "  notes: true"}, State{}, "Needs a notes folder: choose one in Settings."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sk, err := ParseFile([]byte(skillText("s", "d", tc.requires...)))
			if err != nil {
				t.Fatal(err)
			}
			got := unavailable(sk, tc.st)
			if (tc.says == "") != (got == "") || !strings.Contains(got, tc.says) {
				t.Fatalf("unavailable = %q, want %q", got, tc.says)
			}
		})
	}
}

func TestUserSkillReplacesShippedAndBrokenFoldersAreSaid(t *testing.T) {
	t.Parallel()
	st := State{NotesDir: "/n"}
	c, user := world(t, &st)
	writeSkill(t, user, "alpha", skillText("alpha", "The user's alpha."), nil)
	writeSkill(t, user, "gamma", skillText("gamma", "User gamma."), nil)
	writeSkill(t, user, "broken", "no front matter", nil)
	writeSkill(t, user, "misnamed", skillText("other", "d"), nil)
	if err := os.WriteFile(filepath.Join(user, "loose.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	all, broken := c.List(t.Context())
	got := map[string]Entry{}
	for _, e := range all {
		got[e.Name] = e
	}
	if a := got["alpha"]; a.Source != FromUser || !a.Replaces || a.Description != "The user's alpha." {
		t.Fatalf("alpha: %+v", a)
	}
	if g := got["gamma"]; g.Source != FromUser || g.Replaces {
		t.Fatalf("gamma: %+v", g)
	}
	if b := got["beta"]; b.Source != FromBuiltin {
		t.Fatalf("beta: %+v", b)
	}
	if len(all) != 3 || len(broken) != 2 {
		t.Fatalf("entries %d, broken %+v", len(all), broken)
	}
	for _, b := range broken {
		if b.Reason == "" || (b.Folder != "broken" && b.Folder != "misnamed") {
			t.Fatalf("broken %+v", b)
		}
	}
}

func TestUserFolderIsBounded(t *testing.T) {
	t.Parallel()
	st := State{}
	c, user := world(t, &st)
	for i := range MaxUserSkills + 2 {
		name := "s" + strings.Repeat("x", i/26) + string(rune('a'+i%26))
		writeSkill(t, user, name, skillText(name, "d"), nil)
	}
	all, broken := c.List(t.Context())
	if len(all) != 2+MaxUserSkills || len(broken) != 2 || !strings.Contains(broken[0].Reason, "at most 64") {
		t.Fatalf("entries %d, broken %+v", len(all), broken)
	}
}

func TestDisabledAndUnavailableAreNotOffered(t *testing.T) {
	t.Parallel()
	st := State{}
	c, _ := world(t, &st)
	// beta needs a notes folder, which st has not.
	if got := offeredNames(c.Offered(t.Context())); got != "alpha" {
		t.Fatalf("offered %q", got)
	}
	st.NotesDir = "/n"
	if got := offeredNames(c.Offered(t.Context())); got != "alpha, beta" {
		t.Fatalf("offered %q", got)
	}
	st.Disabled = []string{"alpha"}
	if got := offeredNames(c.Offered(t.Context())); got != "beta" {
		t.Fatalf("offered %q", got)
	}
	st.Disabled = []string{"alpha", "beta"}
	if tools := c.Tools(); tools != nil {
		t.Fatalf("tools offered with no skill: %v", tools)
	}
}

// assemble is the system text a run offering tools would send: the
// listing as the runtime assembles it, with the run's frozen tools.
func assemble(t *testing.T, c *Catalog, tools []tool.Tool) string {
	t.Helper()
	params := map[string]map[string]any{}
	for _, tl := range tools {
		// Through JSON, as the log holds them.
		b, err := json.Marshal(tl.Spec().Parameters)
		if err != nil {
			t.Fatal(err)
		}
		var p map[string]any
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatal(err)
		}
		params[tl.Spec().Name] = p
	}
	text, err := c.Contributor().Contribute(prompt.WithTools(t.Context(), params), "s1")
	if err != nil {
		t.Fatal(err)
	}
	return text
}

func TestDisclosureListsNamesAndDescriptionsOnly(t *testing.T) {
	t.Parallel()
	st := State{NotesDir: "/n"}
	c, _ := world(t, &st)
	tools := c.Tools()
	if len(tools) != 1 || tools[0].Spec().Name != LoadTool {
		t.Fatalf("tools %v", tools)
	}
	spec := tools[0].Spec()
	if spec.Effects != tool.ReadFs || spec.Idempotency != tool.Safe {
		t.Fatalf("load_skill declares %v %v", spec.Effects, spec.Idempotency)
	}
	if enum := enumOf(spec.Parameters); !slices.Equal(enum, []string{"alpha", "beta"}) {
		t.Fatalf("enum %v", enum)
	}
	text := assemble(t, c, tools)
	for _, want := range []string{"call load_skill", "- alpha: Shipped alpha. Use when: Alpha time.", "- beta: Shipped beta."} {
		if !strings.Contains(text, want) {
			t.Errorf("listing lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "Instructions of") {
		t.Fatalf("listing holds instructions:\n%s", text)
	}
	if got := assemble(t, c, nil); got != "" {
		t.Fatalf("listing without load_skill: %q", got)
	}
}

func TestARunKeepsItsSkillsWhenSettingsChange(t *testing.T) {
	t.Parallel()
	st := State{NotesDir: "/n"}
	c, _ := world(t, &st)
	frozen := c.Tools()
	st.Disabled = []string{"alpha"} // mid-run
	text := assemble(t, c, frozen)
	if !strings.Contains(text, "- alpha:") {
		t.Fatalf("the running run's listing lost alpha:\n%s", text)
	}
	res, err := frozen[0].Run(t.Context(), tool.Call{Name: LoadTool, Arguments: json.RawMessage(`{"name":"alpha"}`)})
	if err != nil || res.Status != tool.Success || !strings.Contains(res.Content, "Instructions of alpha.") {
		t.Fatalf("load in the running run: %+v %v", res, err)
	}
	if next := assemble(t, c, c.Tools()); strings.Contains(next, "- alpha:") {
		t.Fatalf("the next run still lists alpha:\n%s", next)
	}
}

func TestLoadSkill(t *testing.T) {
	t.Parallel()
	st := State{}
	c, user := world(t, &st)
	writeSkill(t, user, "gamma", skillText("gamma", "User gamma.", "files: [ref.md]"), map[string]string{"ref.md": "reference text"})
	tools := c.Tools()
	if len(tools) != 2 || tools[1].Spec().Name != ReadFileTool || tools[1].Spec().Effects != tool.ReadFs {
		t.Fatalf("tools %v", tools)
	}
	load, read := tools[0], tools[1]
	cases := []struct {
		name   string
		t      tool.Tool
		args   string
		status tool.Status
		says   string
	}{
		{"load", load, `{"name":"gamma"}`, tool.Success, "Instructions of gamma.\n\nFiles this skill ships (read one with read_skill_file): ref.md"},
		{"load unknown", load, `{"name":"beta"}`, tool.Failure, `no skill "beta". The skills are: alpha, gamma`},
		{"read file", read, `{"name":"gamma","path":"ref.md"}`, tool.Success, "reference text"},
		{"read unlisted file", read, `{"name":"gamma","path":"SKILL.md"}`, tool.Failure, `ships no file "SKILL.md"`},
		{"read of another skill", read, `{"name":"alpha","path":"ref.md"}`, tool.Failure, `ships no file`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := tc.t.Run(t.Context(), tool.Call{Arguments: json.RawMessage(tc.args)})
			if err != nil || res.Status != tc.status || !strings.Contains(res.Content, tc.says) {
				t.Fatalf("%+v %v, want %s %q", res, err, tc.status, tc.says)
			}
		})
	}
	t.Run("a file swapped for a symlink after the run opened is refused", func(t *testing.T) {
		ref := filepath.Join(user, "gamma", "ref.md")
		if err := os.Remove(ref); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("/etc/passwd", ref); err != nil {
			t.Fatal(err)
		}
		res, err := read.Run(t.Context(), tool.Call{Arguments: json.RawMessage(`{"name":"gamma","path":"ref.md"}`)})
		if err != nil || res.Status != tool.Failure || strings.Contains(res.Content, "root:") {
			t.Fatalf("%+v %v", res, err)
		}
	})
}

type evolved []Skill

func (e *evolved) ActiveSkills(context.Context) []Skill { return *e }

// TestActivatedCandidatesAreListed: an activated skill candidate is a skill
// of source evolution, replacing one of its name, turned off like any
// other, and gone from the catalog once it is no longer active.
func TestActivatedCandidatesAreListed(t *testing.T) {
	t.Parallel()
	st := State{NotesDir: "/n"}
	c, _ := world(t, &st)
	parse := func(text string) Skill {
		sk, err := ParseFile([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		return sk
	}
	active := evolved{parse(skillText("alpha", "Evolved alpha.")), parse(skillText("gamma", "Evolved gamma."))}
	c.SetEvolved(&active)
	for _, tc := range []struct {
		name, desc string
		replaces   bool
	}{{"alpha", "Evolved alpha.", true}, {"gamma", "Evolved gamma.", false}} {
		e, ok := c.Find(t.Context(), tc.name)
		if !ok || e.Source != FromEvolution || e.Description != tc.desc || e.Replaces != tc.replaces {
			t.Errorf("%s: %+v, %v", tc.name, e, ok)
		}
	}
	if got := offeredNames(c.Offered(t.Context())); got != "alpha, beta, gamma" {
		t.Fatalf("offered %q", got)
	}
	st.Disabled = []string{"gamma"}
	if got := offeredNames(c.Offered(t.Context())); got != "alpha, beta" {
		t.Fatalf("offered with gamma off %q", got)
	}
	active = nil // rolled back
	if e, ok := c.Find(t.Context(), "alpha"); !ok || e.Source != FromBuiltin {
		t.Fatalf("alpha after the rollback: %+v", e)
	}
	if _, ok := c.Find(t.Context(), "gamma"); ok {
		t.Fatal("gamma still listed after the rollback")
	}
}
