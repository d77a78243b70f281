package vault

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// raw is what a link's range covers in the text.
func raw(text string, l Link) string { return text[l.Start:l.End] }

func TestParseLinks(t *testing.T) {
	t.Parallel()
	type want struct {
		raw, target, sub, text string
		wiki, embed            bool
		line                   int
		prop                   string
	}
	cases := []struct {
		name, text string
		want       []want
	}{
		{"wikilink", "see [[Note]] here", []want{{"[[Note]]", "Note", "", "", true, false, 1, ""}}},
		{"wikilink with sub and alias", "x [[folder/Note#Head ing|shown]]", []want{{"[[folder/Note#Head ing|shown]]", "folder/Note", "Head ing", "shown", true, false, 1, ""}}},
		{"block link", "[[Note#^abc-1]]", []want{{"[[Note#^abc-1]]", "Note", "^abc-1", "", true, false, 1, ""}}},
		{"same-note heading", "[[#Top]]", []want{{"[[#Top]]", "", "Top", "", true, false, 1, ""}}},
		{"embed", "a\n![[image.png|300]]", []want{{"![[image.png|300]]", "image.png", "", "300", true, true, 2, ""}}},
		{"escaped pipe in a table", "| [[Note\\|alias]] | b |", []want{{"[[Note\\|alias]]", "Note", "", "alias", true, false, 1, ""}}},
		{"markdown link", "[text](sub/Note.md)", []want{{"[text](sub/Note.md)", "sub/Note.md", "", "text", false, false, 1, ""}}},
		{"percent-encoded", "[t](../a%20b.md#Some%20Head)", []want{{"[t](../a%20b.md#Some%20Head)", "../a b.md", "Some Head", "t", false, false, 1, ""}}},
		{"angle destination", "[t](<a b.md>)", []want{{"[t](<a b.md>)", "a b.md", "", "t", false, false, 1, ""}}},
		{"markdown image", "![alt](img/x.png \"title\")", []want{{"![alt](img/x.png \"title\")", "img/x.png", "", "alt", false, true, 1, ""}}},
		{"same-note markdown heading", "[up](#Top)", []want{{"[up](#Top)", "", "Top", "up", false, false, 1, ""}}},
		{"external links are not vault links", "[w](https://x.org/a.md) [m](mailto:a@b.c) <https://x.org> [o](obsidian://open?x) [p](//host/x)", nil},
		{"fenced code", "```\n[[A]] [b](B.md)\n```\n", nil},
		{"tilde fence", "~~~md\n[[A]]\n~~~\n", nil},
		{"indented code", "para\n\n    [[A]]\n", nil},
		{"code span", "x `[[A]]` and ``[b](B.md)``", nil},
		{"escaped brackets", `\[[A]]`, nil},
		{"two on a line", "[[A]] [[B]]", []want{{"[[A]]", "A", "", "", true, false, 1, ""}, {"[[B]]", "B", "", "", true, false, 1, ""}}},
		{"in a list and a quote", "- [[A]]\n> [b](B.md)", []want{{"[[A]]", "A", "", "", true, false, 1, ""}, {"[b](B.md)", "B.md", "", "b", false, false, 2, ""}}},
		{"link ending a line", "see [b](B.md)\nnext", []want{{"[b](B.md)", "B.md", "", "b", false, false, 1, ""}}},
		{"multi-line label", "[a\nb](B.md)", []want{{"[a\nb](B.md)", "B.md", "", "a\nb", false, false, 1, ""}}},
		{"reference links are left out", "[a][r]\n\n[r]: B.md\n", nil},
		{"front matter property links", "---\nrelated: \"[[Other]]\"\nlist:\n  - \"[[A|x]]\"\n  - '[m](M.md)'\n---\nbody [[B]]\n",
			[]want{
				{"[[Other]]", "Other", "", "", true, false, 2, "related"},
				{"[[A|x]]", "A", "", "x", true, false, 4, "list"},
				{"[m](M.md)", "M.md", "", "m", false, false, 5, "list"},
				{"[[B]]", "B", "", "", true, false, 7, ""},
			}},
		{"unclosed front matter is body", "---\nx: [[A]]\n", []want{{"[[A]]", "A", "", "", true, false, 2, ""}}},
		{"logseq namespace and tag", "- [[lang/go]] #[[big idea]]", []want{{"[[lang/go]]", "lang/go", "", "", true, false, 1, ""}, {"[[big idea]]", "big idea", "", "", true, false, 1, ""}}},
		{"empty wikilink is text", "[[]] [[ ]]", nil},
		{"CRLF lines", "---\r\nup: \"[[A]]\"\r\n---\r\nsee [b](B.md)\r\nand [[C]]\r\n",
			[]want{{"[[A]]", "A", "", "", true, false, 2, "up"}, {"[b](B.md)", "B.md", "", "b", false, false, 4, ""}, {"[[C]]", "C", "", "", true, false, 5, ""}}},
		{"link in a heading", "# About [[A]]\n", []want{{"[[A]]", "A", "", "", true, false, 1, ""}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			n := Parse("n.md", []byte(c.text))
			var got []want
			for _, l := range n.Links {
				got = append(got, want{raw(c.text, l), l.Target, l.Sub, l.Text, l.Wiki, l.Embed, l.Line, l.Property})
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("links of %q:\n got %+v\nwant %+v", c.text, got, c.want)
			}
			if n.Problem != "" {
				t.Errorf("problem: %s", n.Problem)
			}
		})
	}
}

func TestParseNoteFields(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, path, text string
		want             Note
	}{
		{"title from H1, tags from both", "a/My Note.md",
			"---\naliases: [One, \"Two\"]\ntags: [x, \"#y\"]\n---\n# The Title\n\nText #inline and #nested/tag, not#this, not #123, `#code`.\n\n## Second\n",
			Note{Title: "The Title", Aliases: []string{"One", "Two"}, Tags: []string{"x", "y", "inline", "nested/tag"}, Headings: []string{"The Title", "Second"}}},
		{"title from file name, string forms", "b/Plain.md",
			"---\nalias: Solo\ntags: a, b c\n---\n## Not H1\n",
			Note{Title: "Plain", Aliases: []string{"Solo"}, Tags: []string{"a", "b", "c"}, Headings: []string{"Not H1"}}},
		{"block ids at line ends", "c.md", "First ^one\n\nSecond\n^two\n\nNot ^three here\n\n```\ncode ^four\n```\n",
			Note{Title: "c", Blocks: []string{"one", "two"}}},
		{"heading hash is not a tag", "d.md", "# Heading\n#tag-at-start\n", Note{Title: "Heading", Headings: []string{"Heading"}, Tags: []string{"tag-at-start"}}},
		{"logseq properties", "pages/p.md", "alias:: Alpha, [[Beta]]\ntags:: t1, #t2\ntitle:: lang/go\n\n- body",
			Note{Title: "lang/go", Aliases: []string{"Alpha", "Beta", "lang/go"}, Tags: []string{"t1", "t2"}, Links: []Link{{Wiki: true, Target: "Beta", Start: 15, End: 23, Line: 1}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := Parse(c.path, []byte(c.text))
			c.want.Path = c.path
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("Parse(%q):\n got %+v\nwant %+v", c.text, got, c.want)
			}
		})
	}
}

func TestParseProblems(t *testing.T) {
	t.Parallel()
	huge := bytes.Repeat([]byte("[[Link]] words words words\n"), (MaxParseBytes/27)+100)
	cases := []struct {
		name    string
		text    []byte
		problem string // a part of the sentence; "" for none
		links   int    // -1: any
	}{
		{"invalid yaml", []byte("---\na: [unclosed\nrel: \"[[A]]\"\n---\n[[B]]\n"), "front matter is not valid YAML", 2},
		{"invalid utf-8", []byte("ok [[A]] \xff\xfe bad"), "not valid UTF-8", 1},
		{"binary", []byte("PK\x03\x04\x00\x00[[A]]"), "binary", 0},
		{"over the size bound", huge, "larger than 4 MiB", -1},
		{"empty", nil, "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			n := Parse("x.md", c.text)
			if c.problem == "" && n.Problem != "" || !strings.Contains(n.Problem, c.problem) {
				t.Errorf("problem %q, want one with %q", n.Problem, c.problem)
			}
			if c.links >= 0 && len(n.Links) != c.links {
				t.Errorf("%d links, want %d: %+v", len(n.Links), c.links, n.Links)
			}
		})
	}
}

func TestParseYAMLProblemNamesTheLine(t *testing.T) {
	t.Parallel()
	n := Parse("x.md", []byte("---\nok: 1\nbad: [x\n---\n"))
	if !strings.Contains(n.Problem, "(line ") || !strings.Contains(n.Problem, "its links were still read") {
		t.Errorf("problem %q does not name the line", n.Problem)
	}
}

// FuzzParse: any bytes parse without a panic, and every link's range is
// inside the text, in order, on the line it names.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"[[a]]", "![[a#b|c]]", "[a](b.md)", "---\nx: \"[[y]]\"\n---\n", "```\n[[x]]\n```", "[a](<b c.md>)",
		"- [[x]]\n  > [y](z%20w.md#h)", "alias:: a\n\n#tag ^id", "[[a\\|b]]", "[x\n](y)", "\xff[[\x00]]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		n, spans := parse(newParser(), "f.md", b)
		last := 0
		for i, l := range n.Links {
			if l.Start < last || l.End <= l.Start || l.End > len(b) {
				t.Fatalf("link %d range %d-%d of %d (previous start %d)", i, l.Start, l.End, len(b), last)
			}
			last = l.Start
			if l.Line != bytes.Count(b[:l.Start], []byte("\n"))+1 {
				t.Fatalf("link %d line %d", i, l.Line)
			}
			s := spans[i]
			if s.tStart < l.Start || s.tEnd > l.End || s.tStart > s.tEnd {
				t.Fatalf("link %d target %d-%d outside %d-%d", i, s.tStart, s.tEnd, l.Start, l.End)
			}
		}
	})
}

// TestParseBoundsHostileText: floods of brackets that make goldmark's
// link parser scan ahead for each one are left out with a sentence, so a
// note costs about its size; the same links in real shapes (many
// paragraphs, a long list) are all read.
func TestParseBoundsHostileText(t *testing.T) {
	t.Parallel()
	for _, unit := range []string{"[[", "[", "![[a", "[a](", "- [[", "[x]: y\n", "*[", "[a](\n", "[\n", "> [", "[a][b]"} {
		n := Parse("x.md", bytes.Repeat([]byte(unit), (256<<10)/len(unit)))
		if !strings.Contains(n.Problem, "too full of brackets") {
			t.Errorf("%q flood: problem %q", unit, n.Problem)
		}
	}
	var prose, list bytes.Buffer
	for prose.Len() < MaxParseBytes-4096 {
		prose.WriteString("Some words [[Note A]] and more words\nanother line with [a](b%20c.md) in it\nand ![[pic.png]] last.\n\n")
	}
	for i := 0; i < 20_000; i++ {
		list.WriteString("- [[Item]] and [[Other|o]]\n")
	}
	for name, c := range map[string]struct {
		text  []byte
		links int
	}{
		"4 MiB of paragraphs":    {prose.Bytes(), 3 * bytes.Count(prose.Bytes(), []byte("\n\n"))},
		"a list of 40,000 links": {list.Bytes(), 40_000},
	} {
		n := Parse("x.md", c.text)
		if n.Problem != "" || len(n.Links) != c.links {
			t.Errorf("%s: %d links (want %d), problem %q", name, len(n.Links), c.links, n.Problem)
		}
	}
}

func TestProperties(t *testing.T) {
	t.Parallel()
	cases := []struct {
		text string
		want map[string]any
	}{
		{"---\ntitle: A\ntags: [x, y]\nn: 3\n---\nbody", map[string]any{"title": "A", "tags": []any{"x", "y"}, "n": 3}},
		{"no front matter", nil},
		{"---\nbad: [\n---\n", nil},
		{"---\n---\n", nil},
	}
	for _, c := range cases {
		if got := Properties([]byte(c.text)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Properties(%q) = %#v, want %#v", c.text, got, c.want)
		}
	}
}
