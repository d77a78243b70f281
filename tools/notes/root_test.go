package notes

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResolveConfinesEveryPathToTheRoot is the adversarial table: every
// way out of the notes folder (or into a name Windows would misread) is
// refused with the right sentinel, and the look-alikes that are fine
// resolve to the expected place inside the root.
func TestResolveConfinesEveryPathToTheRoot(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	k := newKit(t)
	k.write("projects/plan.md", "plan")
	k.write("file.md", "a file")
	k.write("plan.md", "lower-case plan")
	k.write(".git/config", "[core]")
	link := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(k.dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	link(outside, "out")                                 // a folder link leading out
	link(filepath.Join(outside, "secret.md"), "leak.md") // a file link leading out
	link("projects", "alias")                            // a relative link inside: fine
	link(filepath.Join(k.dir, "projects"), "absalias")   // an absolute link inside: fine
	link("nowhere.md", "dangling.md")                    // points to nothing
	link(".git", "g")                                    // a way into .git
	link("out", "chain")                                 // a link to a link leading out
	link("..", "up")                                     // the root's parent
	link(filepath.Join("projects", "plan.md"), "pl.md")  // a file link inside: fine
	link("loop2", "loop1")                               // links in a circle
	link("loop1", "loop2")

	in := func(rel string) string { return filepath.Join(k.dir, filepath.FromSlash(rel)) }
	long := strings.Repeat("a", 300) + ".md"
	cases := []struct {
		name string
		rel  string
		want error  // nil: resolves
		abs  string // where it resolves
	}{
		{"absolute unix path", "/etc/passwd", ErrOutsideRoot, ""},
		{"drive path", `C:\x`, ErrOutsideRoot, ""},
		{"drive-relative path", "C:x.md", ErrOutsideRoot, ""},
		{"UNC path", `\\srv\share\x.md`, ErrOutsideRoot, ""},
		{"double-slash path", "//x", ErrOutsideRoot, ""},
		{"rooted backslash", `\x.md`, ErrOutsideRoot, ""},
		{"parent", "..", ErrOutsideRoot, ""},
		{"parent then name", "../x.md", ErrOutsideRoot, ""},
		{"climbs out after a folder", "a/../../b", ErrOutsideRoot, ""},
		{"the classic", "notes/../../etc/passwd", ErrOutsideRoot, ""},
		{"backslash separators climb out", `notes\..\..\x`, ErrOutsideRoot, ""},
		{"case trick climbs out", "NOTES/../..", ErrOutsideRoot, ""},
		{"folder link leads out", "out/secret.md", ErrOutsideRoot, ""},
		{"file link leads out", "leak.md", ErrOutsideRoot, ""},
		{"link to a link leads out", "chain/secret.md", ErrOutsideRoot, ""},
		{"link to the root's parent", "up/x.md", ErrOutsideRoot, ""},
		{"NUL byte", "a\x00b.md", ErrBadPath, ""},
		{"escape character", "\x1b[31mred.md", ErrBadPath, ""},
		{"tab", "a\tb.md", ErrBadPath, ""},
		{"right-to-left override", "evil\u202egpj.md", ErrBadPath, ""},
		{"left-to-right isolate", "a\u2066b.md", ErrBadPath, ""},
		{"pop directional isolate", "a\u2069b.md", ErrBadPath, ""},
		{"right-to-left mark", "plan\u200f.md", ErrBadPath, ""},
		{"zero-width space", "pl\u200ban.md", ErrBadPath, ""},
		{"zero-width non-joiner", "a\u200cb.md", ErrBadPath, ""},
		{"zero-width joiner in a folder", "a\u200db/x.md", ErrBadPath, ""},
		{"byte order mark", "\ufeffplan.md", ErrBadPath, ""},
		{"soft hyphen", "pl\u00adan.md", ErrBadPath, ""},
		{"word joiner", "pl\u2060an.md", ErrBadPath, ""},
		{"line separator", "plan\u2028.md", ErrBadPath, ""},
		{"paragraph separator", "a\u2029b.md", ErrBadPath, ""},
		{"Hangul filler, a blank letter", "\u3164.md", ErrBadPath, ""},
		{"Cyrillic a in a Latin word", "p\u0430ypal.md", ErrBadPath, ""},
		{"Cyrillic o in a Latin folder", "pr\u043ejects/plan.md", ErrBadPath, ""},
		{"Greek omicron in a Latin word", "n\u03bfte.md", ErrBadPath, ""},
		{"a Cyrillic name with a Latin extension", "отчёт.md", nil, in("отчёт.md")},
		{"Cyrillic and Latin words side by side", "план plan.md", nil, in("план plan.md")},
		{"Japanese mixes its scripts with Latin", "日本語のnoteカタカナ.md", nil, in("日本語のnoteカタカナ.md")},
		{"Korean with Latin", "한국어abc.md", nil, in("한국어abc.md")},
		{"accented Latin", "café-résumé.md", nil, in("café-résumé.md")},
		{"invalid UTF-8", "\xff.md", ErrBadPath, ""},
		{"empty", "", ErrBadPath, ""},
		{"device name with extension", "CON.md", ErrBadPath, ""},
		{"device name bare, lower case", "aux", ErrBadPath, ""},
		{"device name deeper", "projects/Lpt1.txt", ErrBadPath, ""},
		{"device name with superscript", "COM¹.md", ErrBadPath, ""},
		{"device name with space before the dot", "nul .md", ErrBadPath, ""},
		{"trailing dot", "a.", ErrBadPath, ""},
		{"trailing space", "a.md ", ErrBadPath, ""},
		{"trailing dot in a folder", "dir./x.md", ErrBadPath, ""},
		{"dots only", ".../x.md", ErrBadPath, ""},
		{"300-byte name", long, ErrBadPath, ""},
		{"path over 1024 bytes", strings.Repeat("abcdefgh/", 120) + "x.md", ErrBadPath, ""},
		{"alternate data stream", "x.md:hidden", ErrBadPath, ""},
		{".git", ".git/config", ErrBadPath, ""},
		{".git in another case", ".GIT/config", ErrBadPath, ""},
		{".git by its 8.3 short name", "GIT~1/config", ErrBadPath, ""},
		{"link into .git", "g/config", ErrBadPath, ""},
		{"dangling link", "dangling.md", ErrBadPath, ""},
		{"links in a circle", "loop1/x.md", ErrBadPath, ""},
		{"a file used as a folder", "file.md/x.md", ErrBadPath, ""},
		{"dot-dot that stays inside", "./a/../a.md", nil, in("a.md")},
		{"percent-encoded dots are a literal name", "%2e%2e/x", nil, in("%2e%2e/x")},
		{"full-width dots are a literal name", "．．/x.md", nil, in("．．/x.md")},
		{"tilde is a literal name", "~/x.md", nil, in("~/x.md")},
		{"relative link inside", "alias/plan.md", nil, in("projects/plan.md")},
		{"absolute link inside", "absalias/plan.md", nil, in("projects/plan.md")},
		{"file link inside", "pl.md", nil, in("projects/plan.md")},
		{"a name with device letters", "console.md", nil, in("console.md")},
		{"link then dot-dot is lexical", "out/../x.md", nil, in("x.md")},
		{"redundant separators", "a/./b//c.md", nil, in("a/b/c.md")},
		{"trailing slash", "projects/", nil, in("projects")},
		{"backslash separators inside", `projects\plan.md`, nil, in("projects/plan.md")},
		{"the root itself", ".", nil, k.dir},
		{"dotfile", ".obsidian/app.json", nil, in(".obsidian/app.json")},
	}
	if len(cases) < 30 {
		t.Fatalf("only %d adversarial cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := k.root.Resolve(c.rel)
			if c.want == nil {
				if err != nil {
					t.Fatalf("Resolve(%q): %v", c.rel, err)
				}
				if got != c.abs {
					t.Fatalf("Resolve(%q) = %s, want %s", c.rel, got, c.abs)
				}
				return
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("Resolve(%q) = %q, %v; want %v", c.rel, got, err, c.want)
			}
			if got != "" {
				t.Errorf("Resolve(%q) returned a path with its error: %s", c.rel, got)
			}
			if msg := err.Error(); !strings.Contains(msg, ";") || strings.Contains(msg, outside) {
				t.Errorf("Resolve(%q): %q is not a sentence the model can act on, or names the outside folder", c.rel, msg)
			}
		})
	}
}

// TestWritesRefuseWhatReadsWouldFind covers the rules that apply when a
// name is made: .git is never written, a name differing from an existing
// one only in capitals is refused (it would clobber it on macOS and
// Windows), and names must be portable.
func TestWritesRefuseWhatReadsWouldFind(t *testing.T) {
	k := newKit(t)
	k.write("plan.md", "lower-case plan")
	k.write("projects/a.md", "a")
	k.write(".git/config", "[core]")
	cases := []struct {
		name, tool string
		args       map[string]any
		code       string
	}{
		{"create inside .git", "create_note", map[string]any{"path": ".git/hooks/x.md", "content": "x"}, "bad_path"},
		{"append to .git/config", "append_note", map[string]any{"path": ".git/config", "text": "x"}, "bad_path"},
		{"case-only collision with a note", "create_note", map[string]any{"path": "Plan.md", "content": "x"}, "exists"},
		{"case-only collision with a folder", "create_note", map[string]any{"path": "PROJECTS/new.md", "content": "x"}, "exists"},
		{"case-only collision on move", "move_note", map[string]any{"from": "projects/a.md", "to": "PLAN.md"}, "exists"},
		{"case-only collision on make_folder", "make_folder", map[string]any{"path": "Projects"}, "exists"},
		{"not portable", "create_note", map[string]any{"path": "why?.md", "content": "x"}, "bad_path"},
		{"move into .git", "move_note", map[string]any{"from": "plan.md", "to": ".git/plan.md"}, "bad_path"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			msg := k.fails(c.tool, c.args, c.code)
			if c.code == "exists" {
				contains(t, msg, "capitalisation")
			}
		})
	}
	// Every refused write left the folder as it was: the same names (spelt
	// as they were, so a case-insensitive file system cannot hide a new
	// Plan.md behind plan.md) with the same contents.
	if got, want := k.tree(), "\n.git/config=[core]\nplan.md=lower-case plan\nprojects/a.md=a"; got != want {
		t.Errorf("a refused write happened: the folder holds %q, want %q", got, want)
	}
}

func TestOpenNeedsAnExistingFolder(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.md")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, bad := range []string{"", filepath.Join(dir, "missing"), file} {
		if r, err := Open(bad); err == nil {
			r.Close()
			t.Errorf("Open(%q) succeeded", bad)
		}
	}
	// A root reached through a link is resolved once, at Open.
	link := filepath.Join(t.TempDir(), "notes")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	r, err := Open(link)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	real, _ := filepath.EvalSymlinks(dir)
	if r.Dir() != real {
		t.Errorf("Dir() = %s, want %s", r.Dir(), real)
	}
	if got, err := r.Resolve("f.md"); err != nil || got != filepath.Join(real, "f.md") {
		t.Errorf("Resolve(f.md) = %s, %v", got, err)
	}
}
