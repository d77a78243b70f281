package notes

import (
	"strings"
	"testing"
)

// TestSetTagsKeepsEveryOtherByte: only the tags entry changes; the rest of
// the front matter (comments, order, spacing) and the body stay byte for
// byte.
func TestSetTagsKeepsEveryOtherByte(t *testing.T) {
	body := "\n# Plan\n\nSome *text* with trailing spaces   \n\n---\n\nA thematic break above.\n"
	cases := []struct {
		name, doc, want string
	}{
		{"no front matter",
			"# Plan\ntext\n",
			"---\ntags:\n  - garden\n  - c++\n---\n# Plan\ntext\n"},
		{"front matter without tags",
			"---\ntitle: Plan   # a comment\ndate: 2026-03-01\n---" + body,
			"---\ntitle: Plan   # a comment\ndate: 2026-03-01\ntags:\n  - garden\n  - c++\n---" + body},
		{"block list replaced, keys after it kept",
			"---\ntitle: Plan\ntags:\n  - old\n  - older\nstatus: draft\n---" + body,
			"---\ntitle: Plan\ntags:\n  - garden\n  - c++\nstatus: draft\n---" + body},
		{"flow list replaced",
			"---\ntags: [old, 'older one']\n\n# comment kept\nstatus: draft\n---" + body,
			"---\ntags:\n  - garden\n  - c++\n\n# comment kept\nstatus: draft\n---" + body},
		{"list at the margin and blank lines inside it",
			"---\ntags:\n- old\n\n- older\nz: 1\n...\nbody\n",
			"---\ntags:\n  - garden\n  - c++\nz: 1\n...\nbody\n"},
		{"windows line endings",
			"---\r\ntitle: Plan\r\n---\r\nbody\r\n",
			"---\r\ntitle: Plan\r\ntags:\r\n  - garden\r\n  - c++\r\n---\r\nbody\r\n"},
		{"byte order mark",
			"\ufeff# Plan\n",
			"\ufeff---\ntags:\n  - garden\n  - c++\n---\n# Plan\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := newKit(t)
			k.write("plan.md", c.doc)
			ch := change(t, k.ok("set_tags", map[string]any{"path": "plan.md", "tags": []string{"garden", "#c++", "garden"}}))
			if got := k.read("plan.md"); got != c.want {
				t.Fatalf("got\n%q\nwant\n%q", got, c.want)
			}
			if *ch.Before != c.doc {
				t.Errorf("the change's before is not the old note")
			}
		})
	}
}

func TestSetTagsQuotesWhatYAMLWouldMisread(t *testing.T) {
	k := newKit(t)
	k.write("n.md", "x\n")
	k.ok("set_tags", map[string]any{"path": "n.md", "tags": []string{"2026", "yes", "a: b", "[x]", "ünïcode"}})
	got := k.read("n.md")
	contains(t, got, `- "2026"`, `- "yes"`, `- 'a: b'`, `- '[x]'`, "- ünïcode")
	// Setting them again changes nothing.
	res := k.ok("set_tags", map[string]any{"path": "n.md", "tags": []string{"2026", "yes", "a: b", "[x]", "ünïcode"}})
	if res.Data != nil || k.read("n.md") != got {
		t.Errorf("setting the same tags again changed the note: %s", res.Content)
	}
	k.ok("set_tags", map[string]any{"path": "n.md", "tags": []string{}})
	if got := k.read("n.md"); got != "---\ntags: []\n---\nx\n" {
		t.Errorf("removing the tags: %q", got)
	}
}

func TestSetTagsRefusesFrontMatterItCannotEditSafely(t *testing.T) {
	k := newKit(t)
	for name, doc := range map[string]string{
		"invalid.md":  "---\ntitle: [unclosed\n---\nbody\n",
		"unclosed.md": "---\ntitle: Plan\nbody without an end\n",
		"list.md":     "---\n- a\n- b\n---\nbody\n",
		"dup.md":      "---\ntags: [a]\ntags: [b]\n---\nbody\n",
	} {
		k.write(name, doc)
		msg := k.fails("set_tags", map[string]any{"path": name, "tags": []string{"x"}}, "front_matter")
		contains(t, msg, name, "edit_note")
		if k.read(name) != doc {
			t.Errorf("%s changed", name)
		}
	}
	k.write("ok.md", "x")
	k.fails("set_tags", map[string]any{"path": "ok.md"}, "invalid_args")
	k.fails("set_tags", map[string]any{"path": "ok.md", "tags": []string{" # "}}, "invalid_args")
	k.fails("set_tags", map[string]any{"path": "ok.md", "tags": []string{"a\nb"}}, "invalid_args")
	if strings.Contains(k.read("ok.md"), "tags") {
		t.Error("a refused call wrote tags")
	}
}

func TestLinkNotesAppendsARelativeLink(t *testing.T) {
	k := newKit(t)
	k.write("projects/garden/plan.md", "# Plan\nSee also:")
	k.write("people/Ana Maria (friend).md", "# Ana\n")
	res := k.ok("link_notes", map[string]any{"from": "projects/garden/plan.md", "to": "people/Ana Maria (friend).md"})
	want := "# Plan\nSee also:\n\n[Ana Maria (friend)](../../people/Ana%20Maria%20%28friend%29.md)\n"
	if got := k.read("projects/garden/plan.md"); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	contains(t, res.Content, "../../people/Ana%20Maria%20%28friend%29.md")

	again := k.ok("link_notes", map[string]any{"from": "projects/garden/plan.md", "to": "people/Ana Maria (friend).md", "text": "Ana"})
	if again.Data != nil || k.read("projects/garden/plan.md") != want {
		t.Errorf("linking twice added a second link: %s", again.Content)
	}
	k.write("projects/garden/beds.md", "")
	k.ok("link_notes", map[string]any{"from": "projects/garden/plan.md", "to": "projects/garden/beds.md", "text": "The [raised] beds"})
	contains(t, k.read("projects/garden/plan.md"), want+"\n[The \\[raised\\] beds](beds.md)\n")

	k.fails("link_notes", map[string]any{"from": "projects/garden/plan.md", "to": "missing.md"}, "not_found")
	k.fails("link_notes", map[string]any{"from": "projects/garden/plan.md", "to": "projects/garden/plan.md"}, "invalid_args")
	k.fails("link_notes", map[string]any{"from": "projects/garden/plan.md", "to": "../x.md"}, "outside_root")
}

func TestLinkDest(t *testing.T) {
	for _, c := range []struct{ dir, to, want string }{
		{".", "a.md", "a.md"},
		{".", "people/ana.md", "people/ana.md"},
		{"people", "a.md", "../a.md"},
		{"a/b", "a/c/d.md", "../c/d.md"},
		{"a", "a/b.md", "b.md"},
		{"x", "100% #1?.md", "../100%25%20%231%3F.md"},
	} {
		if got := linkDest(c.dir, c.to); got != c.want {
			t.Errorf("linkDest(%q, %q) = %q, want %q", c.dir, c.to, got, c.want)
		}
	}
}
