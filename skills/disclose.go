package skills

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"quire/kernel/prompt"
	"quire/kernel/tool"
)

// Tool names of the progressive disclosure.
const (
	LoadTool     = "load_skill"
	ReadFileTool = "read_skill_file"
)

// stateWait bounds how long building a run's tools waits for the state
// (the model's capabilities come from Ollama, which may hang).
const stateWait = 3 * time.Second

// Tools is the catalog's ToolProvider facet: load_skill, offered only when
// at least one skill is, with a JSON Schema enum of the offered names, and
// read_skill_file when one of them ships files. The runtime calls it when a
// run opens and keeps what it returns for the whole run, so the tools hold
// the skills as they were then: a skill changed, disabled or removed
// mid-run changes the next run only.
func (c *Catalog) Tools() []tool.Tool {
	ctx, cancel := context.WithTimeout(context.Background(), stateWait)
	defer cancel()
	offered := c.Offered(ctx)
	if len(offered) == 0 {
		return nil
	}
	out := []tool.Tool{loadSkill{offered}}
	if slices.ContainsFunc(offered, func(e Entry) bool { return len(e.Files) > 0 }) {
		out = append(out, readSkillFile{offered})
	}
	return out
}

func names(es []Entry, keep func(Entry) bool) []any {
	var out []any
	for _, e := range es {
		if keep(e) {
			out = append(out, e.Name)
		}
	}
	return out
}

type loadSkill struct{ offered []Entry }

func (l loadSkill) Spec() tool.Spec {
	return tool.Spec{
		Name: LoadTool,
		Description: "Load the instructions of one of the skills listed under \"Skills\". " +
			"Call it first when the user's request matches a skill, then follow the instructions.",
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"name": map[string]any{"type": "string", "description": "The skill's name.",
					"enum": names(l.offered, func(Entry) bool { return true })},
			},
			"required":             []any{"name"},
			"additionalProperties": false,
		},
		// The instructions come from a folder on disk — the user's, or a
		// candidate the model wrote — and may say anything: they count as
		// a read, like a note's text, so what the model proposes after
		// them (a memory written without asking) is asked.
		Effects:     tool.ReadFs,
		Idempotency: tool.Safe,
		Timeout:     5 * time.Second,
		Parallel:    true,
	}
}

// Loaded is what load_skill returns as the result's data.
type Loaded struct {
	Name   string   `json:"name"`
	Source Source   `json:"source"`
	Files  []string `json:"files,omitempty"`
}

// skillArgs are the arguments of both tools: the skill, and for
// read_skill_file the file.
type skillArgs struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// pick reads a call's arguments and finds its skill among the offered. A
// name the run does not offer (the schema's enum keeps it out; this says so
// if one gets past) is answered with failed, a result the model reads.
func pick(offered []Entry, call tool.Call) (a skillArgs, e Entry, failed tool.Result, err error) {
	if err := json.Unmarshal(call.Arguments, &a); err != nil {
		return a, e, failed, fmt.Errorf("%w: %w", tool.ErrInvalidArgs, err)
	}
	e, ok := find(offered, a.Name)
	if !ok {
		failed = tool.Result{Status: tool.Failure, Content: fmt.Sprintf("There is no skill %q. The skills are: %s.", a.Name, offeredNames(offered))}
	}
	return a, e, failed, nil
}

func (l loadSkill) Run(_ context.Context, call tool.Call) (tool.Result, error) {
	_, e, failed, err := pick(l.offered, call)
	if failed.Status != "" || err != nil {
		return failed, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Skill %s loaded. Follow these instructions.\n\n%s", e.Name, e.Instructions)
	if len(e.Files) > 0 {
		fmt.Fprintf(&b, "\n\nFiles this skill ships (read one with %s): %s", ReadFileTool, strings.Join(e.Files, ", "))
	}
	return tool.Result{Status: tool.Success, Content: b.String(), Data: Loaded{Name: e.Name, Source: e.Source, Files: e.Files}}, nil
}

type readSkillFile struct{ offered []Entry }

func (r readSkillFile) Spec() tool.Spec {
	var paths []any
	for _, e := range r.offered {
		for _, f := range e.Files {
			if !slices.Contains(paths, any(f)) {
				paths = append(paths, f)
			}
		}
	}
	return tool.Spec{
		Name:        ReadFileTool,
		Description: "Read a file a loaded skill ships (load_skill lists them).",
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"name": map[string]any{"type": "string", "description": "The skill's name.",
					"enum": names(r.offered, func(e Entry) bool { return len(e.Files) > 0 })},
				"path": map[string]any{"type": "string", "description": "The file, as load_skill listed it.", "enum": paths},
			},
			"required":             []any{"name", "path"},
			"additionalProperties": false,
		},
		// The file comes from disk and may say anything: it counts as a
		// read, like a note's text.
		Effects:     tool.ReadFs,
		Idempotency: tool.Safe,
		Timeout:     5 * time.Second,
		Parallel:    true,
	}
}

func (r readSkillFile) Run(_ context.Context, call tool.Call) (tool.Result, error) {
	a, e, failed, err := pick(r.offered, call)
	if failed.Status != "" || err != nil {
		return failed, err
	}
	if !slices.Contains(e.Files, a.Path) {
		return tool.Result{Status: tool.Failure, Content: fmt.Sprintf("The skill %s ships no file %q; its files are: %s.", e.Name, a.Path, strings.Join(e.Files, ", "))}, nil
	}
	data, err := e.read(a.Path)
	if err != nil {
		return tool.Result{Status: tool.Failure, Content: fmt.Sprintf("The file %s of the skill %s cannot be read now: %v.", a.Path, e.Name, err)}, nil
	}
	return tool.Result{Status: tool.Success, Content: string(data)}, nil
}

func find(es []Entry, name string) (Entry, bool) {
	i := slices.IndexFunc(es, func(e Entry) bool { return e.Name == name })
	if i < 0 {
		return Entry{}, false
	}
	return es[i], true
}

func offeredNames(es []Entry) string {
	n := make([]string, len(es))
	for i, e := range es {
		n[i] = e.Name
	}
	return strings.Join(n, ", ")
}

// Listing is the catalog's ContextContributor: the offered skills by name,
// description and when to use them — never their instructions, which
// load_skill returns. It lists exactly the names of the run's frozen
// load_skill enum (prompt.OfferedTools), so every step of a run says the
// same list the run can load, and nothing when the run offers no
// load_skill (no skill available, tools withheld or turned off).
type Listing struct{ c *Catalog }

// Contributor returns the catalog's listing contributor.
func (c *Catalog) Contributor() Listing { return Listing{c} }

// Name heads the listing in the system text.
func (Listing) Name() string { return "Skills" }

// Contribute renders the listing for the run being assembled.
func (l Listing) Contribute(ctx context.Context, _ string) (string, error) {
	frozen := enumOf(prompt.OfferedTools(ctx)[LoadTool])
	if len(frozen) == 0 {
		return "", nil
	}
	all, _ := l.c.List(ctx)
	var b strings.Builder
	b.WriteString("When the user's request matches one of these skills, call load_skill with its name first, then follow the instructions it returns.\n")
	for _, name := range frozen {
		fmt.Fprintf(&b, "- %s", name)
		if e, ok := find(all, name); ok {
			fmt.Fprintf(&b, ": %s", e.Description)
			if e.When != "" {
				fmt.Fprintf(&b, " Use when: %s", e.When)
			}
		}
		b.WriteString("\n")
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// enumOf is the enum of the "name" property of a load_skill schema.
func enumOf(params map[string]any) []string {
	props, _ := params["properties"].(map[string]any)
	name, _ := props["name"].(map[string]any)
	var out []string
	switch enum := name["enum"].(type) {
	case []any:
		for _, v := range enum {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
	case []string:
		out = enum
	}
	return out
}
