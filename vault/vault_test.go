package vault

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// scanDir scans a fixture folder on disk.
func scanDir(t testing.TB, dir string) *Vault {
	t.Helper()
	v, skipped, err := Scan(context.Background(), os.DirFS(dir), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if len(skipped) > 0 {
		t.Fatalf("skipped: %+v", skipped)
	}
	return v
}

// memVault builds a vault from texts by path (a path not ending in .md is an attachment).
func memVault(files map[string]string) *Vault {
	v := New(Style{Format: FormatShortest})
	for p, text := range files {
		if isNotePath(p) {
			v.Put(Parse(p, []byte(text)))
		} else {
			v.PutFile(p)
		}
	}
	return v
}

func TestResolveObsidian(t *testing.T) {
	t.Parallel()
	v := memVault(map[string]string{
		"Note.md": "", "a/Note.md": "", "a/b/Note.md": "", "zzzz/Note.md": "", "zzzz/deep/x.md": "",
		"Other.md": "", "a/Only.md": "", "x/y/Only.md": "", "img/pic.png": "", "a/pic.png": "", "Notes 2.md": "",
		"b/Solo.md": "", "q/v1.2.md": "", "Upper/Case.md": "",
	})
	cases := []struct {
		from   string
		link   Link
		want   string
		wantOK bool
	}{
		{"zzzz/deep/x.md", Link{Wiki: true, Target: "Note"}, "Note.md", true},       // the exact path from the root wins
		{"a/x.md", Link{Wiki: true, Target: "Note"}, "Note.md", true},               // even over one in the same folder
		{"a/b/x.md", Link{Wiki: true, Target: "Only"}, "a/Only.md", true},           // no same-folder one: shortest path
		{"x/y/z.md", Link{Wiki: true, Target: "Only"}, "x/y/Only.md", true},         // same folder first
		{"x.md", Link{Wiki: true, Target: "b/Note"}, "a/b/Note.md", true},           // a path suffix
		{"x.md", Link{Wiki: true, Target: "zzzz/Note.md"}, "zzzz/Note.md", true},    // with .md
		{"x.md", Link{Wiki: true, Target: "note"}, "Note.md", true},                 // any case
		{"x.md", Link{Wiki: true, Target: "upper/case"}, "Upper/Case.md", true},     // any case, path
		{"x.md", Link{Wiki: true, Target: "pic.png"}, "a/pic.png", true},            // attachment, shortest path
		{"img/n.md", Link{Wiki: true, Target: "pic.png"}, "img/pic.png", true},      // attachment, same folder
		{"x.md", Link{Wiki: true, Target: "v1.2"}, "q/v1.2.md", true},               // a dot in a note's name
		{"x.md", Link{Wiki: true, Target: "Missing"}, "", false},                    // nothing by that name
		{"x.md", Link{Wiki: true, Target: "c/Note"}, "", false},                     // no path ends that way
		{"a/x.md", Link{Target: "../Other.md"}, "Other.md", true},                   // Markdown: relative
		{"a/x.md", Link{Target: "b/Note.md"}, "a/b/Note.md", true},                  // relative to the folder first
		{"q/x.md", Link{Target: "a/Only.md"}, "a/Only.md", true},                    // then from the root
		{"q/x.md", Link{Target: "Solo.md"}, "b/Solo.md", true},                      // then by name
		{"q/x.md", Link{Target: "/Other.md"}, "Other.md", true},                     // a leading slash is the root
		{"a/x.md", Link{Target: "../../Other.md"}, "", false},                       // out of the vault
		{"a/x.md", Link{Target: "./Only.md"}, "a/Only.md", true},                    // ./ relative
		{"a/x.md", Link{Wiki: true, Target: "./Only"}, "a/Only.md", true},           // ./ in a wikilink
		{"a/Only.md", Link{Wiki: true, Target: "", Sub: "Head"}, "a/Only.md", true}, // the note itself
		{"x.md", Link{Target: "Notes 2.md"}, "Notes 2.md", true},                    // decoded spaces
		{"x.md", Link{Wiki: true, Target: "Note", Embed: true, Sub: "^blk"}, "Note.md", true},
	}
	for _, c := range cases {
		got, ok := v.Resolve(c.from, c.link)
		if got != c.want || ok != c.wantOK {
			t.Errorf("Resolve(%s, %+v) = %q, %v; want %q, %v", c.from, c.link, got, ok, c.want, c.wantOK)
		}
	}
}

func TestResolveLogseq(t *testing.T) {
	t.Parallel()
	v := scanDir(t, "testdata/logseq")
	cases := []struct{ target, want string }{
		{"lang/go", "pages/lang___go.md"},           // namespace ↔ ___
		{"project ideas", "pages/Project Ideas.md"}, // any case
		{"ideas", "pages/Project Ideas.md"},         // alias::
		{"Brainstorm", "pages/Project Ideas.md"},
		{"Not A Page", ""},
		{"Jan 15th, 2024", "journals/2024_01_15.md"}, // a journal by Logseq's default title
		{"jan 15th, 2024", "journals/2024_01_15.md"},
		{"2024_01_15", "journals/2024_01_15.md"},
	}
	for _, c := range cases {
		got, _ := v.Resolve("journals/2024_01_15.md", Link{Wiki: true, Target: c.target})
		if got != c.want {
			t.Errorf("[[%s]] → %q, want %q", c.target, got, c.want)
		}
	}
	for _, c := range []struct{ file, name string }{
		{"journals/2021_03_01.md", "Mar 1st, 2021"}, {"journals/2021_03_02.md", "Mar 2nd, 2021"},
		{"journals/2021_03_03.md", "Mar 3rd, 2021"}, {"journals/2021_03_11.md", "Mar 11th, 2021"},
		{"journals/2021_03_12.md", "Mar 12th, 2021"}, {"journals/2021_03_22.md", "Mar 22nd, 2021"},
	} {
		v.Put(Note{Path: c.file})
		if got, _ := v.Resolve("x.md", Link{Wiki: true, Target: c.name}); got != c.file {
			t.Errorf("[[%s]] → %q, want %s", c.name, got, c.file)
		}
	}
	v.PutFile("pages/a%2Fb.md")
	if got, _ := v.Resolve("x.md", Link{Wiki: true, Target: "A/B"}); got != "pages/a%2Fb.md" {
		t.Errorf("[[A/B]] → %q, want the %%2F file", got)
	}
}

func refsOf(refs []Ref) []string {
	var out []string
	for _, r := range refs {
		out = append(out, r.From+"→"+r.To+":"+r.Link.Target)
	}
	return out
}

func TestGraphQuestions(t *testing.T) {
	t.Parallel()
	v := scanDir(t, "testdata/obsidian")
	if got, want := v.Paths(), []string{"Archive/Lonely.md", "Home.md", "Personal/Meeting.md", "Projects/Alpha.md", "Projects/Beta Plan.md", "Work/Meeting.md"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Paths = %q, want %q (hidden .trash left out)", got, want)
	}
	cases := []struct {
		name string
		got  []string
		want []string
	}{
		{"backlinks of Alpha", refsOf(v.Backlinks("Projects/Alpha.md")), []string{
			"Home.md→Projects/Alpha.md:Projects/Alpha", "Home.md→Projects/Alpha.md:Alpha", "Home.md→Projects/Alpha.md:Projects/Alpha",
			"Projects/Beta Plan.md→Projects/Alpha.md:Alpha", "Work/Meeting.md→Projects/Alpha.md:Alpha"}},
		{"backlinks of the attachment", refsOf(v.Backlinks("attachments/diagram.png")), []string{
			"Home.md→attachments/diagram.png:diagram.png", "Projects/Beta Plan.md→attachments/diagram.png:diagram.png"}},
		{"backlinks include the note's own heading links", refsOf(v.Backlinks("Home.md")), []string{
			"Home.md→Home.md:", "Projects/Alpha.md→Home.md:../Home.md", "Projects/Beta Plan.md→Home.md:../Home.md"}},
		{"unresolved in Home", refsOf(v.Unresolved("Home.md")), []string{"Home.md→:Missing Property", "Home.md→:Missing"}},
		{"unresolved everywhere", refsOf(v.Unresolved("")), []string{"Home.md→:Missing Property", "Home.md→:Missing"}},
		{"orphans", v.Orphans(), []string{"Archive/Lonely.md", "Personal/Meeting.md"}},
	}
	for _, c := range cases {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.name, c.got, c.want)
		}
	}
	out := v.Outgoing("Projects/Alpha.md")
	if len(out) != 4 || out[0].To != "Home.md" || out[2].To != "Work/Meeting.md" {
		t.Errorf("outgoing of Alpha: %q", refsOf(out))
	}
	// A change is seen by the next question.
	v.Remove("Work/Meeting.md")
	if got, _ := v.Resolve("Home.md", Link{Wiki: true, Target: "Meeting"}); got != "Personal/Meeting.md" {
		t.Errorf("after removing Work/Meeting, [[Meeting]] → %q", got)
	}
	if n := len(v.Backlinks("Personal/Meeting.md")); n != 2 {
		t.Errorf("Personal/Meeting has %d backlinks after the removal, want 2 (Home and itself)", n)
	}
	v.Put(Parse("Archive/Lonely.md", []byte("now [[Home]]")))
	if slices.Contains(v.Orphans(), "Archive/Lonely.md") {
		t.Error("a note that links out is still an orphan")
	}
}

func TestDetectStyle(t *testing.T) {
	t.Parallel()
	wikiNotes := []Note{Parse("a.md", []byte("[[A]] [[B]] [c](C.md)"))}
	mdNotes := []Note{Parse("a.md", []byte("[a](../A.md) [b](./B.md) [[C]]"))}
	absNotes := []Note{Parse("a.md", []byte("[[x/A]] [[y/B]] [[C]]"))}
	cases := []struct {
		name  string
		app   []byte
		notes []Note
		want  Style
	}{
		{"app.json markdown relative", []byte(`{"useMarkdownLinks":true,"newLinkFormat":"relative"}`), wikiNotes, Style{true, FormatRelative}},
		{"app.json without the keys", []byte(`{}`), mdNotes, Style{false, FormatShortest}},
		{"app.json absolute", []byte(`{"newLinkFormat":"absolute"}`), nil, Style{false, FormatAbsolute}},
		{"no app.json: wiki shortest", nil, wikiNotes, Style{false, FormatShortest}},
		{"no app.json: markdown relative", nil, mdNotes, Style{true, FormatRelative}},
		{"no app.json: paths", nil, absNotes, Style{false, FormatAbsolute}},
		{"bad app.json falls back to the notes", []byte(`{`), mdNotes, Style{true, FormatRelative}},
		{"nothing", nil, nil, Style{false, FormatShortest}},
	}
	for _, c := range cases {
		if got := DetectStyle(c.app, c.notes); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
	v := scanDir(t, "testdata/obsidian")
	if got := v.Style(); got != (Style{false, FormatShortest}) {
		t.Errorf("the fixture's style from app.json: %+v", got)
	}
	v.SetStyle(Style{true, FormatAbsolute})
	if got := v.Style(); got != (Style{true, FormatAbsolute}) {
		t.Errorf("SetStyle: %+v", got)
	}
}

func TestScanBounds(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"a.md":               {Data: []byte("[[b]]")},
		"b.md":               {Data: []byte("# B")},
		"big.md":             {Data: []byte(strings.Repeat("x", 200))},
		"bin.md":             {Data: []byte("\x00\x01\x02")},
		".obsidian/app.json": {Data: []byte(`{"useMarkdownLinks":true}`)},
		".obsidian/x.md":     {Data: []byte("[[a]]")},
		".trash/old.md":      {Data: []byte("[[a]]")},
		".hidden.md":         {Data: []byte("[[a]]")},
		"d1/d2/d3/deep.md":   {Data: []byte("[[a]]")},
		"img/pic.png":        {Data: []byte("png")},
	}
	v, skipped, err := Scan(context.Background(), fsys, Limits{MaxNoteBytes: 100, MaxFiles: 100, MaxDepth: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := v.Paths(), []string{"a.md", "b.md", "big.md", "bin.md"}; !reflect.DeepEqual(got, want) {
		t.Errorf("paths %q, want %q", got, want)
	}
	reasons := map[string]string{}
	for _, s := range skipped {
		reasons[s.Path] = s.Reason
	}
	for p, part := range map[string]string{"big.md": "larger than 100 bytes", "bin.md": "binary", "d1/d2/d3": "more than 2 folders deep"} {
		if !strings.Contains(reasons[p], part) {
			t.Errorf("skipped %s: %q, want a reason with %q (all: %+v)", p, reasons[p], part, skipped)
		}
	}
	if !v.Style().Markdown {
		t.Error("the style of .obsidian/app.json was not read")
	}
	if got, _ := v.Resolve("a.md", Link{Wiki: true, Target: "pic.png"}); got != "img/pic.png" {
		t.Errorf("attachment not known: %q", got)
	}

	_, skipped, err = Scan(context.Background(), fsys, Limits{MaxFiles: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(skipped) == 0 || !strings.Contains(skipped[len(skipped)-1].Reason, "more than 3 files") {
		t.Errorf("MaxFiles not said: %+v", skipped)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Scan(ctx, fsys, DefaultLimits()); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled scan: %v", err)
	}
}

func TestScanSkipsLogseqBackupsAndSymlinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("logseq/config.edn", "{}")
	write("logseq/bak/pages/a.md", "old")
	write("pages/a.md", "- [[b]]")
	write("pages/b.md", "- b")
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "pages", "link.md")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "linked")); err != nil {
		t.Fatal(err)
	}
	v, skipped, err := Scan(context.Background(), os.DirFS(dir), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := v.Paths(), []string{"pages/a.md", "pages/b.md"}; !reflect.DeepEqual(got, want) {
		t.Errorf("paths %q, want %q", got, want)
	}
	var links []string
	for _, s := range skipped {
		if strings.Contains(s.Reason, "symbolic link") {
			links = append(links, s.Path)
		}
	}
	if !reflect.DeepEqual(links, []string{"linked", "pages/link.md"}) {
		t.Errorf("symbolic links skipped: %+v", skipped)
	}
}

// TestChangesKeepTheGraphAsAFreshOne: after every change (a note added,
// changed, removed, an attachment added or removed), the graph the
// vault keeps up to date answers as one resolved from scratch.
func TestChangesKeepTheGraphAsAFreshOne(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{"testdata/obsidian", "testdata/logseq"} {
		files := loadDir(t, dir)
		v := memVault(files)
		_ = v.Orphans() // the graph exists from here on
		rng := rand.New(rand.NewPCG(3, 4))
		names := []string{"Alpha", "Meeting", "Home", "lang___go", "Ideas", "Beta Plan", "New"}
		folders := []string{"", "Projects", "Work", "pages", "x/y"}
		for i := 0; i < 300; i++ {
			p := path.Join(folders[rng.IntN(len(folders))], names[rng.IntN(len(names))])
			switch rng.IntN(5) {
			case 0, 1:
				text := fmt.Sprintf("alias:: %s\n\n[[%s]] [[%s]] [l](../%s.md) ![[pic.png]]\n", names[rng.IntN(len(names))],
					names[rng.IntN(len(names))], strings.ToLower(names[rng.IntN(len(names))]), names[rng.IntN(len(names))])
				files[p+".md"] = text
				v.Put(Parse(p+".md", []byte(text)))
			case 2:
				delete(files, p+".md")
				v.Remove(p + ".md")
			case 3:
				files[path.Join(path.Dir(p), "pic.png")] = ""
				v.PutFile(path.Join(path.Dir(p), "pic.png"))
			default:
				delete(files, path.Join(path.Dir(p), "pic.png"))
				v.Remove(path.Join(path.Dir(p), "pic.png"))
			}
			fresh := memVault(files)
			for _, q := range fresh.Paths() {
				if got, want := refsOf(v.Outgoing(q)), refsOf(fresh.Outgoing(q)); !reflect.DeepEqual(got, want) {
					t.Fatalf("%s, change %d: outgoing of %s\n got %q\nwant %q", dir, i, q, got, want)
				}
				if got, want := refsOf(v.Backlinks(q)), refsOf(fresh.Backlinks(q)); !reflect.DeepEqual(got, want) {
					t.Fatalf("%s, change %d: backlinks of %s\n got %q\nwant %q", dir, i, q, got, want)
				}
			}
			if got, want := v.Orphans(), fresh.Orphans(); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, change %d: orphans %q, want %q", dir, i, got, want)
			}
		}
	}
}

func TestNewLinkFollowsTheStyle(t *testing.T) {
	t.Parallel()
	v := scanDir(t, "testdata/obsidian")
	cases := []struct {
		style         Style
		from, to, sub string
		text, want    string
	}{
		{Style{false, FormatShortest}, "Home.md", "Projects/Alpha.md", "", "", "[[Alpha]]"},
		{Style{false, FormatShortest}, "Home.md", "Personal/Meeting.md", "Top", "", "[[Personal/Meeting#Top]]"},
		{Style{false, FormatShortest}, "Personal/x.md", "Personal/Meeting.md", "", "m", "[[Meeting|m]]"},
		{Style{false, FormatShortest}, "Home.md", "attachments/diagram.png", "", "", "[[diagram.png]]"},
		{Style{false, FormatAbsolute}, "Home.md", "Projects/Alpha.md", "", "", "[[Projects/Alpha]]"},
		{Style{false, FormatRelative}, "Work/Meeting.md", "Projects/Alpha.md", "", "", "[[../Projects/Alpha]]"},
		{Style{true, FormatRelative}, "Work/Meeting.md", "Projects/Beta Plan.md", "Risks", "", "[Beta Plan](../Projects/Beta%20Plan.md#Risks)"},
		{Style{true, FormatShortest}, "Home.md", "Projects/Beta Plan.md", "", "the plan", "[the plan](Beta%20Plan.md)"},
		{Style{true, FormatAbsolute}, "Work/Meeting.md", "Projects/Alpha.md", "", "A", "[A](Projects/Alpha.md)"},
	}
	for _, c := range cases {
		v.SetStyle(c.style)
		got := v.NewLink(c.from, c.to, c.sub, c.text)
		if got != c.want {
			t.Errorf("%+v %s → %s: %q, want %q", c.style, c.from, c.to, got, c.want)
			continue
		}
		l := Parse(c.from, []byte(got)).Links
		if len(l) != 1 {
			t.Errorf("%q is not one link", got)
			continue
		}
		if to, _ := v.Resolve(c.from, l[0]); to != c.to {
			t.Errorf("%q from %s resolves to %q, want %s", got, c.from, to, c.to)
		}
	}
}
