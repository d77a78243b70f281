package notes

import (
	"encoding/json"
	"strings"
	"testing"

	"quire/kernel/tool"
)

func TestDescribeShowsWhatWillChange(t *testing.T) {
	root, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	byName := map[string]tool.Tool{}
	for _, tl := range Tools(root, nil) {
		byName[tl.Spec().Name] = tl
	}
	call := func(name string, args map[string]any) string {
		b, _ := json.Marshal(args)
		return tool.Describe(byName[name], tool.Call{Name: name, Arguments: b})
	}
	cases := []struct {
		name string
		got  string
		want []string
	}{
		{"edit is a compact diff", call("edit_note", map[string]any{"path": "plan.md", "find": "# Plan\nbuy milk\nsee Bob", "replace": "# Plan\nbuy oat milk\nsee Bob"}),
			[]string{"Change plan.md:", "  # Plan", "- buy milk", "+ buy oat milk", "  see Bob"}},
		{"move names both places", call("move_note", map[string]any{"from": "inbox/a.md", "to": "projects/a.md"}), []string{"Move inbox/a.md → projects/a.md"}},
		{"create shows the first lines", call("create_note", map[string]any{"path": "new.md", "content": strings.Repeat("line\n", 20)}), []string{"Create new.md:", "+ line", "… 8 more lines"}},
		{"tags are listed", call("set_tags", map[string]any{"path": "a.md", "tags": []any{"work", "q3"}}), []string{"Set the tags of a.md to: work, q3"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, w := range tc.want {
				if !strings.Contains(tc.got, w) {
					t.Fatalf("description lacks %q:\n%s", w, tc.got)
				}
			}
		})
	}
	if got := tool.Describe(byName["read_note"], tool.Call{Name: "read_note", Arguments: []byte(`{"path":"x"}`)}); got != `read_note {"path":"x"}` {
		t.Fatalf("a tool without a description: %q", got)
	}
}
