package skills

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"quire/kernel/protocol"
)

const good = `---
name: weekly-review
description: Gather the week's notes into a summary note.
when: The user asks for a weekly review or a summary of the week.
requires:
  model: [tools]
  mcp: [calendar]
  notes: true
files: [template.md, examples/one.md]
license: MIT
---

# Weekly review

1. List the notes.
`

func mapFS(skill string, extra map[string]string) fstest.MapFS {
	m := fstest.MapFS{FileName: {Data: []byte(skill)}}
	for k, v := range extra {
		m[k] = &fstest.MapFile{Data: []byte(v)}
	}
	return m
}

var shippedFiles = map[string]string{"template.md": "# Week", "examples/one.md": "x"}

func TestParseReadsEveryField(t *testing.T) {
	t.Parallel()
	sk, err := Parse(mapFS(good, shippedFiles))
	if err != nil {
		t.Fatal(err)
	}
	want := Skill{
		Name: "weekly-review", Description: "Gather the week's notes into a summary note.",
		When:     "The user asks for a weekly review or a summary of the week.",
		Requires: Requires{Model: []Capability{CapTools}, MCP: []string{"calendar"}, Notes: true},
		Files:    []string{"template.md", "examples/one.md"}, License: "MIT",
		Instructions: "# Weekly review\n\n1. List the notes.",
	}
	if !reflect.DeepEqual(sk, want) {
		t.Fatalf("got %#v\nwant %#v", sk, want)
	}
}

func TestFormatRoundTrips(t *testing.T) {
	t.Parallel()
	sk, err := ParseFile([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	text, err := Format(sk)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseFile(text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if !reflect.DeepEqual(back, sk) {
		t.Fatalf("round trip changed the skill:\n%#v\n%#v", back, sk)
	}
}

func TestParseAcceptsMinimalAndCRLF(t *testing.T) {
	t.Parallel()
	for name, text := range map[string]string{
		"minimal":       "---\nname: a\ndescription: d\n---\nDo it.\n",
		"crlf and bom":  "\uFEFF---\r\nname: a\r\ndescription: d\r\n---\r\nDo it.\r\n",
		"quoted values": "---\nname: \"a\"\ndescription: 'd: with a colon'\n---\nDo it.",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := ParseFile([]byte(text)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	t.Parallel()
	head := func(lines ...string) string {
		return "---\n" + strings.Join(lines, "\n") + "\n---\nDo it.\n"
	}
	nd := "description: d"
	type refusal struct {
		name     string
		fsys     fstest.MapFS
		sentinel error
		says     string
	}
	cases := []refusal{
		{"no SKILL.md", fstest.MapFS{"README.md": {Data: []byte("x")}}, ErrNoSkillFile, "has no SKILL.md"},
		{"SKILL.md a folder", fstest.MapFS{"SKILL.md/x": {Data: []byte("x")}}, ErrNoSkillFile, "is not a file"},
		{"SKILL.md a symlink", fstest.MapFS{FileName: {Data: []byte("/etc/passwd"), Mode: os.ModeSymlink}}, ErrNoSkillFile, "symlink"},
		{"SKILL.md too large", mapFS(head("name: a", nd)+strings.Repeat("x", MaxSkillFile), nil), ErrTooLarge, "larger than 64 KiB"},
		{"not UTF-8", mapFS("---\nname: a\ndescription: \xff\n---\nx", nil), ErrFrontMatter, "UTF-8"},
		{"no front matter", mapFS("# Just Markdown", nil), ErrFrontMatter, "must start with a line ---"},
		{"empty front matter", mapFS("---\n---\nx", nil), ErrFrontMatter, "is empty"},
		{"unclosed front matter", mapFS("---\nname: a\ndescription: d\n", nil), ErrFrontMatter, "no closing line"},
		{"invalid YAML", mapFS(head("name: [a", nd), nil), ErrFrontMatter, "not valid YAML"},
		{"alias bomb", mapFS(head("name: a", nd, "x: &a [l, l, l, l, l, l, l, l, l]", "y: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]", "z: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]", "files: [*c, *c, *c, *c, *c, *c, *c, *c, *c]"), nil), ErrFrontMatter, "unknown field \"x\""},
		{"alias bomb in a known field", mapFS(head("name: a", nd, "requires:", "  model: &a [tools, tools, tools, tools, tools, tools, tools, tools]", "  mcp: [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]"), nil), ErrFrontMatter, "wrong kind of value"},
		{"duplicate key", mapFS(head("name: a", "name: b", nd), nil), ErrFrontMatter, `"name" twice (line 2)`},
		{"front matter a list", mapFS(head("- a"), nil), ErrFrontMatter, "must be fields"},
		{"unknown key", mapFS(head("name: a", nd, "allowed-tools: x"), nil), ErrFrontMatter, `unknown field "allowed-tools" (line 3)`},
		{"unknown requires key", mapFS(head("name: a", nd, "requires:", "  gpu: true"), nil), ErrFrontMatter, `unknown field "requires.gpu"`},
		{"wrong type", mapFS(head("name: a", nd, "files: one.md"), nil), ErrFrontMatter, "wrong kind of value"},
		{"no name", mapFS(head(nd), nil), ErrBadField, "has no name"},
		{"name too long", mapFS(head("name: "+strings.Repeat("a", MaxName+1), nd), nil), ErrBadField, "the most is 64"},
		{"name uppercase", mapFS(head("name: Weekly", nd), nil), ErrBadField, "lowercase letters"},
		{"name double hyphen", mapFS(head("name: a--b", nd), nil), ErrBadField, "single hyphens"},
		{"name leading hyphen", mapFS(head("name: -a", nd), nil), ErrBadField, "single hyphens"},
		{"name with a slash", mapFS(head("name: ../a", nd), nil), ErrBadField, "lowercase letters"},
		{"no description", mapFS(head("name: a"), nil), ErrBadField, "has no description"},
		{"description two lines", mapFS(head("name: a", "description: |", "  one", "  two"), nil), ErrBadField, "one line"},
		{"description too long", mapFS(head("name: a", "description: "+strings.Repeat("d", MaxDescription+1)), nil), ErrBadField, "the most is 1024"},
		{"when too long", mapFS(head("name: a", nd, "when: "+strings.Repeat("w", MaxWhen+1)), nil), ErrBadField, "when has 1025"},
		{"license with a tab", mapFS(head("name: a", nd, "license: \"MIT\\tor\""), nil), ErrBadField, "license must be one line"},
		{"unknown capability", mapFS(head("name: a", nd, "requires:", "  model: [gpu]"), nil), ErrBadField, `"gpu", which Quire does not know`},
		{"bad server name", mapFS(head("name: a", nd, "requires:", "  mcp: [\"a b\"]"), nil), ErrBadField, "not an MCP server name"},
		{"server twice", mapFS(head("name: a", nd, "requires:", "  mcp: [c, c]"), nil), ErrBadField, `"c" twice`},
		{"too many servers", mapFS(head("name: a", nd, "requires:", "  mcp: [a, b, c, d, e, f, g, h, i]"), nil), ErrBadField, "the most is 8"},
		{"no instructions", mapFS("---\nname: a\ndescription: d\n---\n\n  \n", nil), ErrNoInstruction, "no instructions"},
		{"dot-dot file", mapFS(head("name: a", nd, "files: [../secret]"), nil), ErrBadFile, "not a path inside"},
		{"absolute file", mapFS(head("name: a", nd, "files: [/etc/passwd]"), nil), ErrBadFile, "not a path inside"},
		{"backslash file", mapFS(head("name: a", nd, `files: ['a\b']`), nil), ErrBadFile, "not a path inside"},
		{"file lists SKILL.md", mapFS(head("name: a", nd, "files: [SKILL.md]"), nil), ErrBadFile, "SKILL.md itself"},
		{"file twice", mapFS(head("name: a", nd, "files: [a.md, a.md]"), map[string]string{"a.md": "x"}), ErrBadFile, "twice"},
		{"too many files", mapFS(head("name: a", nd, "files: [a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q]"), nil), ErrBadFile, "the most is 16"},
		{"file path too long", mapFS(head("name: a", nd, "files: ["+strings.Repeat("p", MaxFilePath+1)+"]"), nil), ErrBadFile, "too long path"},
		{"missing file", mapFS(head("name: a", nd, "files: [a.md]"), nil), ErrBadFile, "not in the skill's folder"},
		{"file is a folder", mapFS(head("name: a", nd, "files: [d]"), map[string]string{"d/x": "x"}), ErrBadFile, "not a regular file"},
		{"file too large", mapFS(head("name: a", nd, "files: [a.md]"), map[string]string{"a.md": strings.Repeat("x", MaxFileSize+1)}), ErrTooLarge, "larger than 256 KiB"},
		{"files too large together", mapFS(head("name: a", nd, "files: [a, b, c, d, e]"), map[string]string{
			"a": strings.Repeat("x", MaxFileSize), "b": strings.Repeat("x", MaxFileSize), "c": strings.Repeat("x", MaxFileSize),
			"d": strings.Repeat("x", MaxFileSize), "e": "x",
		}), ErrTooLarge, "add up to more than 1024 KiB"},
	}
	cases = append(cases,
		refusal{"file a symlink", fstest.MapFS{
			FileName: {Data: []byte(head("name: a", nd, "files: [a.md]"))},
			"a.md":   {Data: []byte("/etc/passwd"), Mode: os.ModeSymlink},
		}, ErrBadFile, "symlink"},
		refusal{"file under a symlinked folder", fstest.MapFS{
			FileName: {Data: []byte(head("name: a", nd, "files: [d/a.md]"))},
			"d":      {Data: []byte("/etc"), Mode: os.ModeSymlink},
		}, ErrBadFile, "symlink"},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse(c.fsys)
			if err == nil {
				t.Fatal("accepted")
			}
			if !errors.Is(err, c.sentinel) || !errors.Is(err, protocol.ErrBadPayload) {
				t.Fatalf("error %v does not wrap %v and ErrBadPayload", err, c.sentinel)
			}
			if !strings.Contains(err.Error(), c.says) {
				t.Fatalf("error %q does not say %q", err, c.says)
			}
		})
	}
}

func TestParseDir(t *testing.T) {
	t.Parallel()
	write := func(t *testing.T, dir, name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	skill := "---\nname: notes-helper\ndescription: d\nfiles: [ref.md]\n---\nDo it.\n"
	t.Run("reads a folder", func(t *testing.T) {
		t.Parallel()
		dir := filepath.Join(t.TempDir(), "notes-helper")
		write(t, dir, FileName, skill)
		write(t, dir, "ref.md", "ref")
		sk, err := ParseDir(dir)
		if err != nil || sk.Name != "notes-helper" || sk.Files[0] != "ref.md" {
			t.Fatalf("%+v %v", sk, err)
		}
	})
	t.Run("refuses a name that is not the folder's", func(t *testing.T) {
		t.Parallel()
		dir := filepath.Join(t.TempDir(), "other")
		write(t, dir, FileName, skill)
		write(t, dir, "ref.md", "ref")
		if _, err := ParseDir(dir); !errors.Is(err, ErrBadField) || !strings.Contains(err.Error(), `folder is "other"`) {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("refuses a symlink out of the folder", func(t *testing.T) {
		t.Parallel()
		base := t.TempDir()
		write(t, base, "outside.md", "secret")
		dir := filepath.Join(base, "notes-helper")
		write(t, dir, FileName, skill)
		if err := os.Symlink(filepath.Join(base, "outside.md"), filepath.Join(dir, "ref.md")); err != nil {
			t.Fatal(err)
		}
		if _, err := ParseDir(dir); !errors.Is(err, ErrBadFile) || !strings.Contains(err.Error(), "symlink") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("refuses a missing folder", func(t *testing.T) {
		t.Parallel()
		if _, err := ParseDir(filepath.Join(t.TempDir(), "none")); !errors.Is(err, ErrNoSkillFile) {
			t.Fatalf("got %v", err)
		}
	})
}
