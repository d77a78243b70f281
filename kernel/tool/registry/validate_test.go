package registry

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"quire/kernel/tool"
)

func obj(props map[string]any, required ...string) map[string]any {
	s := map[string]any{"type": "object", "properties": props}
	if required != nil {
		s["required"] = required
	}
	return s
}

var readNote = tool.Spec{Name: "read_note", Idempotency: tool.Safe, Effects: tool.ReadFs,
	Parameters: obj(map[string]any{
		"path":  map[string]any{"type": "string", "minLength": 1},
		"limit": map[string]any{"type": "integer", "minimum": 1, "maximum": 500},
	}, "path")}

var search = tool.Spec{Name: "search", Idempotency: tool.Safe, Effects: tool.ReadFs,
	Parameters: map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"required":             []any{"query"},
		"properties": map[string]any{
			"query": map[string]any{"type": "string", "maxLength": 10, "pattern": "^[a-z ]+$"},
			"mode":  map[string]any{"enum": []any{"lexical", "vector", "hybrid"}},
			"exact": map[string]any{"const": true},
			"since": map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "null"}}},
			"tags": map[string]any{"type": "array", "maxItems": 2, "uniqueItems": true,
				"items": map[string]any{"type": "string"}},
			"filter": obj(map[string]any{
				"folder": map[string]any{"type": "string"},
				"a/b~c":  map[string]any{"type": "integer"},
			}, "folder"),
			"score": map[string]any{"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.5},
			"shape": map[string]any{"oneOf": []any{
				map[string]any{"type": "string", "maxLength": 3},
				map[string]any{"type": "string", "minLength": 2},
			}},
		},
	}}

// TestValidateTellsTheModelWhatToFix: one readable sentence per problem,
// every problem listed, at the path of the value at fault, sorted by path.
func TestValidateTellsTheModelWhatToFix(t *testing.T) {
	t.Parallel()
	r, err := New(fake{readNote}, fake{search})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		tool string
		args string
		want string // "" when valid
	}{
		{"valid", "read_note", `{"path": "a.md", "limit": 10}`, ""},
		{"valid without the optional", "read_note", `{"path": "a.md"}`, ""},
		{"valid after a repair", "read_note", "```json\n{\"path\": \"a.md\",}\n```", ""},
		{"valid with extra properties where allowed", "read_note", `{"path": "a.md", "x": 1}`, ""},
		{"the brief's example", "read_note", `{"limit": "ten"}`,
			`arguments for read_note: "limit" must be an integer (got "ten"); "path" is required`},
		{"a float is not an integer", "read_note", `{"path": "a", "limit": 2.5}`,
			`arguments for read_note: "limit" must be an integer (got 2.5)`},
		{"out of range", "read_note", `{"path": "a", "limit": 0}`,
			`arguments for read_note: "limit" must be at least 1 (got 0)`},
		{"above range", "read_note", `{"path": "a", "limit": 501}`,
			`arguments for read_note: "limit" must be at most 500 (got 501)`},
		{"empty string", "read_note", `{"path": ""}`,
			`arguments for read_note: "path" must be at least 1 characters long (got 0)`},
		{"wrong type of everything", "read_note", `{"path": null, "limit": true}`,
			`arguments for read_note: "limit" must be an integer (got true); "path" must be a string (got null)`},
		{"not an object at all", "read_note", `["a.md"]`,
			`arguments for read_note are not a JSON object: ["a.md"]`},
		{"empty arguments", "read_note", ``,
			`arguments for read_note are not a JSON object: (empty)`},
		{"long text is cut at 200 characters", "read_note", strings.Repeat("é", 300),
			`arguments for read_note are not a JSON object: ` + strings.Repeat("é", 200) + "…"},
		{"unknown property", "search", `{"query": "a", "qurey": "a"}`,
			`arguments for search: "qurey" is not an accepted property`},
		{"enum", "search", `{"query": "a", "mode": "semantic"}`,
			`arguments for search: "mode" must be one of "lexical", "vector", "hybrid" (got "semantic")`},
		{"const", "search", `{"query": "a", "exact": false}`,
			`arguments for search: "exact" must be true (got false)`},
		{"pattern and length", "search", `{"query": "Hello World!"}`,
			`arguments for search: "query" must be at most 10 characters long (got 12); "query" must match the pattern ^[a-z ]+$ (got "Hello World!")`},
		{"string or null", "search", `{"query": "a", "since": 5}`,
			`arguments for search: "since" must be a string or null (got 5)`},
		{"nested paths are JSON pointers", "search", `{"query": "a", "tags": ["x", 3]}`,
			`arguments for search: "tags/1" must be a string (got 3)`},
		{"array limits", "search", `{"query": "a", "tags": ["x", "x", "y"]}`,
			`arguments for search: "tags" must have at most 2 items (got 3); "tags" must not repeat items (items 0 and 1 are equal)`},
		{"nested required", "search", `{"query": "a", "filter": {}}`,
			`arguments for search: "filter/folder" is required`},
		{"pointer escapes", "search", `{"query": "a", "filter": {"folder": "f", "a/b~c": "x"}}`,
			`arguments for search: "filter/a~1b~0c" must be an integer (got "x")`},
		{"number rules", "search", `{"query": "a", "score": 0}`,
			`arguments for search: "score" must be greater than 0 (got 0)`},
		{"multiple of", "search", `{"query": "a", "score": 0.7}`,
			`arguments for search: "score" must be a multiple of 0.5 (got 0.7)`},
		{"one of matches two", "search", `{"query": "a", "shape": "ab"}`,
			`arguments for search: "shape" matches more than one of the allowed forms (forms 1 and 2); it must match exactly one`},
		{"one of matches none", "search", `{"query": "a", "shape": 7}`,
			`arguments for search: "shape" must be a string (got 7)`},
		{"the value shown is cut", "read_note", `{"path": 1, "limit": "` + strings.Repeat("x", 100) + `"}`,
			`arguments for read_note: "limit" must be an integer (got "` + strings.Repeat("x", 59) + `…); "path" must be a string (got 1)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			err := r.Validate(c.tool, tool.ParseArgs(c.args))
			if c.want == "" {
				if err != nil {
					t.Errorf("Validate(%s) = %v, want nil", c.args, err)
				}
				return
			}
			if !errors.Is(err, tool.ErrInvalidArgs) {
				t.Fatalf("Validate(%s) = %v, want ErrInvalidArgs", c.args, err)
			}
			if err.Error() != c.want {
				t.Errorf("Validate(%s)\n got %s\nwant %s", c.args, err, c.want)
			}
		})
	}
}

// TestValidateShowsNoLibraryInternals: whatever fails, the model reads no
// schema URL, keyword location or library name.
func TestValidateShowsNoLibraryInternals(t *testing.T) {
	t.Parallel()
	r, err := New(fake{search})
	if err != nil {
		t.Fatal(err)
	}
	err = r.Validate("search", tool.ParseArgs(`{"qurey": 1, "mode": 2, "tags": 3, "filter": [], "score": "x", "shape": null}`))
	if err == nil {
		t.Fatal("invalid arguments passed")
	}
	for _, leak := range []string{"quire://", "jsonschema", "#/", "properties", "validation failed", "got number, want"} {
		if strings.Contains(err.Error(), leak) {
			t.Errorf("message leaks %q: %s", leak, err)
		}
	}
}

// TestValidateOutsideARegistry: the same check for a spec in no registry,
// and a bad schema is the spec's fault, not the arguments'.
func TestValidateOutsideARegistry(t *testing.T) {
	t.Parallel()
	err := Validate(readNote, tool.ParseArgs(`{"limit": "ten"}`))
	if want := `arguments for read_note: "limit" must be an integer (got "ten"); "path" is required`; err == nil || err.Error() != want {
		t.Errorf("Validate = %v, want %s", err, want)
	}
	bad := readNote
	bad.Parameters = map[string]any{"type": "array"}
	if err := Validate(bad, tool.ParseArgs(`{}`)); !errors.Is(err, ErrInvalidSpec) || errors.Is(err, tool.ErrInvalidArgs) {
		t.Errorf("Validate with a bad schema = %v, want ErrInvalidSpec only", err)
	}
}

// TestValidateRefusesAnUnknownTool: a name the registry does not hold.
func TestValidateRefusesAnUnknownTool(t *testing.T) {
	t.Parallel()
	r, err := New(fake{readNote})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Validate("delete_everything", tool.ParseArgs(`{}`)); !errors.Is(err, ErrUnknownTool) {
		t.Errorf("err = %v, want ErrUnknownTool", err)
	}
}

// TestValidateIsSafeForConcurrentCalls: parallel tool calls validate
// against one compiled schema at once (run with -race).
func TestValidateIsSafeForConcurrentCalls(t *testing.T) {
	t.Parallel()
	r, err := New(fake{readNote}, fake{search})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range errs {
		wg.Go(func() {
			if i%2 == 0 {
				errs[i] = r.Validate("read_note", tool.ParseArgs(`{"path": "a", "limit": 3}`))
			} else if r.Validate("search", tool.ParseArgs(`{"query": 1}`)) == nil {
				errs[i] = errors.New("invalid arguments passed")
			}
			_ = r.Visible(Layer{Deny: []string{"search"}})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("call %d: %v", i, err)
		}
	}
}
