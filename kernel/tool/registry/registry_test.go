package registry

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"quire/kernel/tool"
)

type fake struct{ spec tool.Spec }

func (f fake) Spec() tool.Spec { return f.spec }
func (f fake) Run(context.Context, tool.Call) (tool.Result, error) {
	return tool.Result{Status: tool.Success}, nil
}

var anyObject = map[string]any{"type": "object"}

// named is a valid tool with the given name.
func named(name string) tool.Tool {
	return fake{tool.Spec{Name: name, Parameters: anyObject, Idempotency: tool.Safe, Effects: tool.ReadFs}}
}

func withSpec(edit func(*tool.Spec)) tool.Tool {
	sp := tool.Spec{Name: "t", Parameters: anyObject, Idempotency: tool.Safe}
	edit(&sp)
	return fake{sp}
}

func names(specs []tool.Spec) []string {
	out := []string{}
	for _, s := range specs {
		out = append(out, s.Name)
	}
	return out
}

// TestNewRefusesDuplicateNames: two tools with one name fail at start, and
// the error names the tool.
func TestNewRefusesDuplicateNames(t *testing.T) {
	t.Parallel()
	_, err := New(named("read_note"), named("search"), named("read_note"))
	if !errors.Is(err, ErrDuplicate) {
		t.Fatalf("err = %v, want ErrDuplicate", err)
	}
	if !strings.Contains(err.Error(), `"read_note"`) {
		t.Errorf("error %q does not name the tool", err)
	}
}

// TestNewRefusesInvalidSpecs: each way a declaration can be unusable.
func TestNewRefusesInvalidSpecs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		tool    tool.Tool
		mention string
	}{
		{"nil tool", nil, "nil"},
		{"empty name", withSpec(func(s *tool.Spec) { s.Name = "" }), `name ""`},
		{"name with a space", withSpec(func(s *tool.Spec) { s.Name = "read note" }), `"read note"`},
		{"name with a dot", withSpec(func(s *tool.Spec) { s.Name = "notes.read" }), `"notes.read"`},
		{"name with a slash", withSpec(func(s *tool.Spec) { s.Name = "a/b" }), `"a/b"`},
		{"name not ascii", withSpec(func(s *tool.Spec) { s.Name = "lire_la_note_é" }), "lire_la_note"},
		{"name of 65 characters", withSpec(func(s *tool.Spec) { s.Name = strings.Repeat("a", 65) }), "aaaa"},
		{"empty idempotency", withSpec(func(s *tool.Spec) { s.Idempotency = "" }), `idempotency ""`},
		{"unknown idempotency", withSpec(func(s *tool.Spec) { s.Idempotency = "maybe" }), `idempotency "maybe"`},
		{"no parameters", withSpec(func(s *tool.Spec) { s.Parameters = nil }), `{"type": "object"}`},
		{"parameters of a string", withSpec(func(s *tool.Spec) { s.Parameters = map[string]any{"type": "string"} }), `"type" must be "object"`},
		{"parameters without a type", withSpec(func(s *tool.Spec) {
			s.Parameters = map[string]any{"properties": map[string]any{"a": map[string]any{"type": "string"}}}
		}), `"type" must be "object"`},
		{"misspelt type inside", withSpec(func(s *tool.Spec) {
			s.Parameters = map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "strng"}}}
		}), "parameters"},
		{"required not a list", withSpec(func(s *tool.Spec) {
			s.Parameters = map[string]any{"type": "object", "required": "path"}
		}), "parameters"},
		{"properties not an object", withSpec(func(s *tool.Spec) {
			s.Parameters = map[string]any{"type": "object", "properties": []any{"a"}}
		}), "parameters"},
		{"minimum not a number", withSpec(func(s *tool.Spec) {
			s.Parameters = map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"minimum": "one"}}}
		}), "parameters"},
		{"reference to a file", withSpec(func(s *tool.Spec) {
			s.Parameters = map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"$ref": "file:///etc/passwd"}}}
		}), "parameters"},
		{"reference to the network", withSpec(func(s *tool.Spec) {
			s.Parameters = map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"$ref": "https://example.com/s.json"}}}
		}), "parameters"},
		{"reference to nothing inside", withSpec(func(s *tool.Spec) {
			s.Parameters = map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"$ref": "#/$defs/missing"}}}
		}), "parameters"},
		{"parameters not JSON", withSpec(func(s *tool.Spec) {
			s.Parameters = map[string]any{"type": "object", "default": func() {}}
		}), "not JSON"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r, err := New(named("fine"), c.tool)
			if !errors.Is(err, ErrInvalidSpec) || r != nil {
				t.Fatalf("New = %v, %v; want ErrInvalidSpec", r, err)
			}
			if !strings.Contains(err.Error(), c.mention) {
				t.Errorf("error %q does not mention %q", err, c.mention)
			}
		})
	}
}

// TestNewReportsEveryProblemAtOnce: a start that fails says all that is
// wrong, not the first thing.
func TestNewReportsEveryProblemAtOnce(t *testing.T) {
	t.Parallel()
	_, err := New(named("a"), named("a"), withSpec(func(s *tool.Spec) { s.Name = "b c" }))
	if !errors.Is(err, ErrDuplicate) || !errors.Is(err, ErrInvalidSpec) {
		t.Errorf("err = %v, want both ErrDuplicate and ErrInvalidSpec", err)
	}
}

// TestNewAcceptsTheEdgesOfValid: the longest name, every idempotency, a
// schema with its own $defs, and an explicit older draft.
func TestNewAcceptsTheEdgesOfValid(t *testing.T) {
	t.Parallel()
	tools := []tool.Tool{
		named(strings.Repeat("x", 64)),
		named("A-b_9"),
		withSpec(func(s *tool.Spec) { s.Name = "keyed"; s.Idempotency = tool.Keyed }),
		withSpec(func(s *tool.Spec) { s.Name = "unsafe"; s.Idempotency = tool.Unsafe }),
		withSpec(func(s *tool.Spec) {
			s.Name = "defs"
			s.Parameters = map[string]any{"type": "object",
				"$defs":      map[string]any{"path": map[string]any{"type": "string", "minLength": 1}},
				"properties": map[string]any{"path": map[string]any{"$ref": "#/$defs/path"}}}
		}),
		withSpec(func(s *tool.Spec) {
			s.Name = "draft7"
			s.Parameters = map[string]any{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
				"required": []string{"q"}, "properties": map[string]any{"q": map[string]any{"type": "string"}}}
		}),
	}
	if _, err := New(tools...); err != nil {
		t.Fatal(err)
	}
	if _, err := New(); err != nil {
		t.Errorf("an empty registry: %v", err)
	}
}

// TestGetAndSpecs: lookup by name, and every spec sorted by name.
func TestGetAndSpecs(t *testing.T) {
	t.Parallel()
	r, err := New(named("search"), named("read_note"), named("append_line"))
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := r.Get("read_note"); !ok || got.Spec().Name != "read_note" {
		t.Errorf("Get(read_note) = %v, %v", got, ok)
	}
	if got, ok := r.Get("missing"); ok || got != nil {
		t.Errorf("Get(missing) = %v, %v", got, ok)
	}
	if got, want := names(r.Specs()), []string{"append_line", "read_note", "search"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Specs() = %v, want %v", got, want)
	}
}

// TestSpecsCannotChangeTheRegistry: the declaration is taken once, and
// what Specs hands out is a copy down to the schema.
func TestSpecsCannotChangeTheRegistry(t *testing.T) {
	t.Parallel()
	params := map[string]any{"type": "object", "required": []any{"path"},
		"properties": map[string]any{"path": map[string]any{"type": "string"}}}
	r, err := New(fake{tool.Spec{Name: "read_note", Description: "Read.", Parameters: params, Idempotency: tool.Safe, Effects: tool.ReadFs}})
	if err != nil {
		t.Fatal(err)
	}
	params["required"] = []any{}                  // the tool's own map, after registration
	r.Specs()[0].Parameters["required"] = []any{} // a copy handed out

	sp := r.Specs()[0]
	if sp.Description != "Read." || sp.Effects != tool.ReadFs || sp.Idempotency != tool.Safe {
		t.Errorf("spec = %+v", sp)
	}
	if !reflect.DeepEqual(sp.Parameters["required"], []any{"path"}) {
		t.Errorf("required = %v, want [path]", sp.Parameters["required"])
	}
	if err := r.Validate("read_note", tool.ParseArgs(`{}`)); !errors.Is(err, tool.ErrInvalidArgs) {
		t.Errorf("Validate after changes = %v, want the schema as registered", err)
	}
}

// TestVisibleLayers: which tools the layers let the model see.
func TestVisibleLayers(t *testing.T) {
	t.Parallel()
	r, err := New(named("read"), named("search"), named("shell"), named("write"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		layers []Layer
		want   []string
	}{
		{"no layers show everything", nil, []string{"read", "search", "shell", "write"}},
		{"nil allow lists show everything", []Layer{{Name: "global"}, {Name: "mode"}},
			[]string{"read", "search", "shell", "write"}},
		{"an allow list narrows", []Layer{{Name: "mode", Allow: []string{"read", "search"}}},
			[]string{"read", "search"}},
		{"allow lists intersect", []Layer{
			{Name: "mode", Allow: []string{"read", "search", "write"}},
			{Name: "agent", Allow: []string{"search", "write", "shell"}}},
			[]string{"search", "write"}},
		{"a later allow cannot widen an earlier one", []Layer{
			{Name: "mode", Allow: []string{"read"}},
			{Name: "agent", Allow: []string{"read", "shell"}}},
			[]string{"read"}},
		{"an empty allow list shows nothing", []Layer{{Name: "agent", Allow: []string{}}}, []string{}},
		{"an empty allow list after others still shows nothing", []Layer{
			{Name: "global", Allow: []string{"read"}}, {Name: "agent", Allow: []string{}}}, []string{}},
		{"a deny hides", []Layer{{Name: "user", Deny: []string{"shell"}}}, []string{"read", "search", "write"}},
		{"a deny is never lifted by a later allow", []Layer{
			{Name: "global", Deny: []string{"shell"}},
			{Name: "mode", Allow: []string{"shell", "read"}},
			{Name: "agent", Allow: []string{"shell", "read"}},
			{Name: "user", Allow: []string{"shell", "read"}}},
			[]string{"read"}},
		{"a deny in the same layer wins over its allow", []Layer{
			{Name: "user", Allow: []string{"shell", "read"}, Deny: []string{"shell"}}},
			[]string{"read"}},
		{"a later deny hides what an earlier layer allowed", []Layer{
			{Name: "mode", Allow: []string{"read", "shell"}},
			{Name: "user", Deny: []string{"shell"}}},
			[]string{"read"}},
		{"unknown names are ignored", []Layer{
			{Name: "mode", Allow: []string{"read", "no_such_tool"}, Deny: []string{"ghost"}}},
			[]string{"read"}},
		{"an allow list of only unknown names shows nothing", []Layer{
			{Name: "mode", Allow: []string{"no_such_tool"}}}, []string{}},
		{"the layer name changes nothing", []Layer{{Name: "global", Deny: []string{"write"}}, {Name: "global", Deny: []string{"read"}}},
			[]string{"search", "shell"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := names(r.Visible(c.layers...)); !reflect.DeepEqual(got, c.want) {
				t.Errorf("Visible = %v, want %v", got, c.want)
			}
		})
	}
}
