package eval

import (
	"maps"
	"strings"
	"testing"
)

// linked is a small vault: wikilinks, an embed, an alias, a heading link and
// a relative Markdown link, several of them to the hub.
var linked = map[string]string{
	"hub.md":        "---\naliases: [Home]\n---\n# Hub\n\n## Plans\n\nSee [[a]].\n",
	"a.md":          "# A\n\nBack to [[hub]] and [[hub#Plans|the plans]].\n![[pic.png]]\n",
	"notes/b.md":    "# B\n\n[the hub](../hub.md) and [[hub|Home]].\n",
	"pic.png":       "png",
	"loose/dead.md": "# Dead\n\n[[nowhere]]\n",
}

// moved is files after moving from → to through package vault's plan, as
// move_note does: the file moves and every link to it is rewritten.
func moved(t *testing.T, files map[string]string, from, to string) map[string]string {
	t.Helper()
	v, err := scanMap(t.Context(), files)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := v.PlanMove(from, to, func(p string) ([]byte, error) { return []byte(files[p]), nil })
	if err != nil {
		t.Fatal(err)
	}
	out := maps.Clone(files)
	for _, m := range plan.Moves {
		out[m.To] = out[m.From]
		delete(out, m.From)
	}
	for _, e := range plan.Edits {
		out[e.NewPath] = e.After
	}
	return out
}

func TestBrokenLinks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(t *testing.T, f map[string]string) map[string]string
		want   []string // texts the failures must contain, in order; none: intact
	}{
		{"nothing changed", func(_ *testing.T, f map[string]string) map[string]string { return f }, nil},
		{"hub renamed by the plan", func(t *testing.T, f map[string]string) map[string]string {
			return moved(t, f, "hub.md", "areas/Home base.md")
		}, nil},
		{"attachment moved by the plan", func(t *testing.T, f map[string]string) map[string]string {
			return moved(t, f, "pic.png", "assets/pic.png")
		}, nil},
		{"a note edited in place keeps its links", func(_ *testing.T, f map[string]string) map[string]string {
			f["a.md"] = strings.Replace(f["a.md"], "# A\n", "# A\n\nMerged: [[notes/b]].\n", 1)
			return f
		}, nil},
		{"hub renamed outside the tools", func(_ *testing.T, f map[string]string) map[string]string {
			f["areas/Hub2.md"] = f["hub.md"]
			delete(f, "hub.md")
			return f
		}, []string{
			"a.md line 3: the link [[hub]] is broken: it led to hub.md, now at areas/Hub2.md",
			"a.md line 3: the link [[hub#Plans|the plans]] is broken",
			"notes/b.md line 3: the link [the hub](../hub.md) is broken",
			"notes/b.md line 3: the link [[hub|Home]] is broken",
		}},
		{"a link retargeted by a write", func(_ *testing.T, f map[string]string) map[string]string {
			f["other.md"] = "# Other\n"
			f["a.md"] = strings.Replace(f["a.md"], "[[hub]]", "[[other]]", 1)
			return f
		}, []string{"a.md line 3: the link [[other]] leads to other.md, expected hub.md"}},
		{"a link deleted by an edit", func(_ *testing.T, f map[string]string) map[string]string {
			f["a.md"] = strings.Replace(f["a.md"], "[[hub]] and ", "", 1)
			return f
		}, []string{"a.md line 3: the link [[hub]] (to hub.md) is gone from a.md"}},
		{"the target deleted", func(_ *testing.T, f map[string]string) map[string]string {
			delete(f, "pic.png")
			return f
		}, []string{"a.md line 4: the link ![[pic.png]] led to pic.png, which no longer exists"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			after := tt.change(t, maps.Clone(linked))
			got := brokenLinks(t.Context(), linked, after)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d failures, want %d:\n%s", len(got), len(tt.want), strings.Join(got, "\n"))
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("failure %d is %q, want it to contain %q", i, got[i], w)
				}
			}
		})
	}
}
