package vault

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"reflect"
	"sort"
	"strings"
	"testing"

	"quire/vault/vaultgen"
)

// loadDir reads a fixture folder into texts by path (hidden ones left out).
func loadDir(t testing.TB, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != "." && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(path.Join(dir, p))
		files[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func reader(files map[string]string) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		s, ok := files[p]
		if !ok {
			return nil, fs.ErrNotExist
		}
		return []byte(s), nil
	}
}

// applyPlan does in memory what a plan says: edits, then moves.
func applyPlan(t testing.TB, files map[string]string, p Plan) map[string]string {
	t.Helper()
	out := make(map[string]string, len(files))
	for k, v := range files {
		out[k] = v
	}
	for _, e := range p.Edits {
		if out[e.Path] != e.Before {
			t.Fatalf("edit of %s: Before is not the text", e.Path)
		}
		out[e.Path] = e.After
	}
	moved := map[string]string{}
	for _, m := range p.Moves {
		moved[m.To] = out[m.From]
		delete(out, m.From)
	}
	for k, v := range moved {
		out[k] = v
	}
	return out
}

// changed lists each edit as "path: before-link → after-link" for the
// links that differ, by comparing the link ranges of both texts.
func changed(p Plan) []string {
	var out []string
	for _, e := range p.Edits {
		b := Parse(e.Path, []byte(e.Before)).Links
		a := Parse(e.NewPath, []byte(e.After)).Links
		if len(a) != len(b) {
			out = append(out, fmt.Sprintf("%s: %d links became %d", e.Path, len(b), len(a)))
			continue
		}
		for i := range b {
			if x, y := e.Before[b[i].Start:b[i].End], e.After[a[i].Start:a[i].End]; x != y {
				out = append(out, e.Path+": "+x+" → "+y)
			}
		}
	}
	return out
}

func TestPlanMove(t *testing.T) {
	t.Parallel()
	files := loadDir(t, "testdata/obsidian")
	cases := []struct {
		name, from, to string
		want           []string
		moves          int
	}{
		{"rename a note", "Projects/Alpha.md", "Projects/Alpha One.md", []string{
			"Home.md: [[Projects/Alpha]] → [[Projects/Alpha One]]",
			"Home.md: [[Alpha]] → [[Alpha One]]",
			"Home.md: [[Projects/Alpha#Goals|the goals]] → [[Projects/Alpha One#Goals|the goals]]",
			"Projects/Beta Plan.md: [[Alpha|the first project]] → [[Alpha One|the first project]]",
			"Work/Meeting.md: [[Alpha]] → [[Alpha One]]",
		}, 1},
		{"move into another folder: short links stay, paths follow", "Projects/Alpha.md", "Archive/Alpha.md", []string{
			"Home.md: [[Projects/Alpha]] → [[Archive/Alpha]]",
			"Home.md: [[Projects/Alpha#Goals|the goals]] → [[Archive/Alpha#Goals|the goals]]",
		}, 1},
		{"the moved note's relative links follow it", "Projects/Alpha.md", "Alpha.md", []string{
			"Home.md: [[Projects/Alpha]] → [[Alpha]]",
			"Home.md: [[Projects/Alpha#Goals|the goals]] → [[Alpha#Goals|the goals]]",
			"Projects/Alpha.md: [Home](../Home.md) → [Home](Home.md)",
		}, 1},
		{"folder move", "Projects", "Work/Projects", []string{
			"Home.md: [[Projects/Alpha]] → [[Work/Projects/Alpha]]",
			"Home.md: [[Projects/Alpha#Goals|the goals]] → [[Work/Projects/Alpha#Goals|the goals]]",
			"Home.md: [Beta](Projects/Beta%20Plan.md) → [Beta](Work/Projects/Beta%20Plan.md)",
			"Projects/Alpha.md: [Home](../Home.md) → [Home](../../Home.md)",
			"Projects/Beta Plan.md: [home](<../Home.md>) → [home](<../../Home.md>)",
		}, 2},
		{"attachment", "attachments/diagram.png", "media/diagram 1.png", []string{
			"Home.md: ![[diagram.png]] → ![[diagram 1.png]]",
			"Projects/Beta Plan.md: ![[diagram.png|300]] → ![[diagram 1.png|300]]",
		}, 1},
		{"a move that shadows a name elsewhere", "Personal/Meeting.md", "Meeting.md", []string{
			"Home.md: [[Meeting]] → [[Work/Meeting]]",
		}, 1},
		{"a rename that makes a short name ambiguous", "Projects/Alpha.md", "Projects/Meeting.md", []string{
			"Home.md: [[Projects/Alpha]] → [[Projects/Meeting]]",
			"Home.md: [[Alpha]] → [[Projects/Meeting]]",
			"Home.md: [[Projects/Alpha#Goals|the goals]] → [[Projects/Meeting#Goals|the goals]]",
			"Projects/Beta Plan.md: [[Alpha|the first project]] → [[Meeting|the first project]]",
			"Work/Meeting.md: [[Alpha]] → [[Projects/Meeting]]",
		}, 1},
		{"markdown link with a space gets %20", "Projects/Beta Plan.md", "Projects/Beta Plan 2.md", []string{
			"Home.md: [[Beta Plan]] → [[Beta Plan 2]]",
			"Home.md: [Beta](Projects/Beta%20Plan.md) → [Beta](Projects/Beta%20Plan%202.md)",
			"Projects/Alpha.md: [[Beta Plan#^b1]] → [[Beta Plan 2#^b1]]",
			"Projects/Alpha.md: ![[Beta Plan#Risks]] → ![[Beta Plan 2#Risks]]",
		}, 1},
		{"unresolved links stay as written", "Archive/Lonely.md", "Missing.md", nil, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			v := memVault(files)
			p, err := v.PlanMove(c.from, c.to, reader(files))
			if err != nil {
				t.Fatal(err)
			}
			if got := changed(p); !reflect.DeepEqual(got, c.want) {
				t.Errorf("links changed:\n got %q\nwant %q", got, c.want)
			}
			if len(p.Moves) != c.moves || p.Links() != len(c.want) {
				t.Errorf("%d moves, %d links; want %d, %d", len(p.Moves), p.Links(), c.moves, len(c.want))
			}
			for _, e := range p.Edits {
				if e.Before == e.After || e.Links == 0 {
					t.Errorf("edit of %s changes nothing", e.Path)
				}
			}
			checkKeeps(t, files, v, p)
		})
	}
}

func TestPlanMoveOnlyLinkBytesChange(t *testing.T) {
	t.Parallel()
	files := loadDir(t, "testdata/obsidian")
	p, err := memVault(files).PlanMove("Projects", "Work/Projects", reader(files))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range p.Edits {
		b := Parse(e.Path, []byte(e.Before)).Links
		a := Parse(e.NewPath, []byte(e.After)).Links
		// Outside the link ranges the texts are the same bytes.
		var outB, outA strings.Builder
		last := 0
		for _, l := range b {
			outB.WriteString(e.Before[last:l.Start])
			last = l.End
		}
		outB.WriteString(e.Before[last:])
		last = 0
		for _, l := range a {
			outA.WriteString(e.After[last:l.Start])
			last = l.End
		}
		outA.WriteString(e.After[last:])
		if outB.String() != outA.String() {
			t.Errorf("%s: text outside the links changed", e.Path)
		}
		for i := range b {
			if b[i].Text != a[i].Text || b[i].Sub != a[i].Sub || b[i].Wiki != a[i].Wiki || b[i].Embed != a[i].Embed {
				t.Errorf("%s: link %d changed form: %+v → %+v", e.Path, i, b[i], a[i])
			}
		}
	}
}

func TestPlanMoveLogseq(t *testing.T) {
	t.Parallel()
	files := loadDir(t, "testdata/logseq")
	v := memVault(files)
	p, err := v.PlanMove("pages/lang___go.md", "pages/lang___golang.md", reader(files))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"journals/2024_01_15.md: [[lang/go]] → [[lang/golang]]",
		"pages/Project Ideas.md: [[lang/go]] → [[lang/golang]]",
	}
	if got := changed(p); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	checkKeeps(t, files, v, p)
	// A rename of a page linked by its alias changes only the name links.
	p, err = v.PlanMove("pages/Project Ideas.md", "pages/Plans.md", reader(files))
	if err != nil {
		t.Fatal(err)
	}
	want = []string{
		"pages/Project Ideas.md: [[project ideas]] → [[Plans]]",
		"pages/lang___go.md: [[Project Ideas]] → [[Plans]]",
	}
	if got := changed(p); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	checkKeeps(t, files, v, p)
}

func TestPlanMoveRefuses(t *testing.T) {
	t.Parallel()
	files := loadDir(t, "testdata/obsidian")
	v := memVault(files)
	cases := []struct {
		from, to string
		want     error
	}{
		{"Projects/Alpha.md", "Home.md", ErrExists},
		{"Projects/Alpha.md", "home.md", ErrExists},
		{"Projects/Alpha.md", "Projects/Alpha.md", ErrExists},
		{"Projects/Alpha.md", "Work", ErrExists},
		{"Projects", "Work", ErrExists}, // no file clashes, but merging two folders is not a move
		{"Projects", "work", ErrExists},
		{"Projects", "Home.md", ErrExists},
		{"Nothing.md", "Else.md", ErrNotFound},
		{"Projects", "Projects/Sub", ErrIntoItself},
		{"../x.md", "y.md", ErrBadPath},
		{"Home.md", "/abs.md", ErrBadPath},
		{"", "y.md", ErrBadPath},
		{"Home.md", ".trash/Home.md", ErrBadPath},
		{"Home.md", "a/.hidden.md", ErrBadPath},
		{".obsidian", "settings", ErrBadPath},
	}
	if _, err := v.PlanMove("Projects/Alpha.md", "Projects/Alpha #1.md", reader(files)); !errors.Is(err, ErrUnlinkable) {
		t.Errorf("a name no wikilink can hold: %v", err)
	}
	if _, err := memVault(loadDir(t, "testdata/logseq")).PlanMove("logseq", "cfg", reader(files)); !errors.Is(err, ErrGraphConfig) {
		t.Errorf("moving the Logseq configuration: %v", err)
	}
	for _, c := range cases {
		_, err := v.PlanMove(c.from, c.to, reader(files))
		if !errors.Is(err, c.want) {
			t.Errorf("PlanMove(%s, %s) = %v, want %v", c.from, c.to, err, c.want)
		}
	}
	_, err := v.PlanMove("Projects/Alpha.md", "B.md", func(string) ([]byte, error) { return nil, fs.ErrPermission })
	if !errors.Is(err, ErrRead) {
		t.Errorf("an unreadable note: %v", err)
	}
}

// checkKeeps applies the plan in memory, re-parses, and checks every link
// that resolved before resolves after to the same (moved) file.
func checkKeeps(t testing.TB, files map[string]string, before *Vault, p Plan) {
	t.Helper()
	after := applyPlan(t, files, p)
	av := memVault(after)
	movedTo := map[string]string{}
	for _, m := range p.Moves {
		movedTo[m.From] = m.To
	}
	mv := func(s string) string {
		if q, ok := movedTo[s]; ok {
			return q
		}
		return s
	}
	for _, from := range before.Paths() {
		out := before.Outgoing(from)
		afterOut := av.Outgoing(mv(from))
		if len(out) != len(afterOut) {
			t.Errorf("move %s → %s: %s had %d links, has %d", p.From, p.To, from, len(out), len(afterOut))
			continue
		}
		for i, r := range out {
			if r.To == "" {
				if afterOut[i].Link.Target != r.Link.Target {
					t.Errorf("move %s → %s: unresolved link %q in %s was rewritten to %q", p.From, p.To, r.Link.Target, from, afterOut[i].Link.Target)
				}
				continue
			}
			if got := afterOut[i].To; got != mv(r.To) {
				t.Errorf("move %s → %s: in %s, link %q led to %s, now %q → %q (want %s)", p.From, p.To, from, r.Link.Target, r.To, afterOut[i].Link.Target, got, mv(r.To))
			}
		}
	}
}

// TestPlanMoveKeepsEveryLink: over the fixture vault, a long run of random
// moves (renames, moves into new and existing folders, folder moves,
// attachments), each applied before the next, never breaks or redirects a
// link that resolved.
func TestPlanMoveKeepsEveryLink(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{"testdata/obsidian", "testdata/logseq"} {
		files := loadDir(t, dir)
		files["Projects/Sub/Alpha.md"] = "# Second Alpha\n[[Alpha]] [[Beta Plan]] [up](../Alpha.md) [[../Alpha]]\n"
		files["Work/Home.md"] = "[[Home]] [[Meeting]] [x](Meeting.md) [r](/Home.md)\n"
		rng := rand.New(rand.NewPCG(7, uint64(len(dir))))
		for i := 0; i < 200; i++ {
			v := memVault(files)
			from, to := randomMove(rng, v, files)
			p, err := v.PlanMove(from, to, reader(files))
			if err != nil {
				if errors.Is(err, ErrExists) || errors.Is(err, ErrIntoItself) || errors.Is(err, ErrGraphConfig) {
					continue
				}
				t.Fatalf("move %d %s → %s: %v", i, from, to, err)
			}
			checkKeeps(t, files, v, p)
			if t.Failed() {
				t.Fatalf("after %d moves in %s", i, dir)
			}
			files = applyPlan(t, files, p)
		}
	}
}

var moveNames = []string{"Alpha", "Beta Plan", "Meeting", "Home", "Notes", "x", "Ideas", "lang___go", "Project Ideas"}
var moveFolders = []string{"", "Projects", "Work", "Archive", "New Folder", "Projects/Sub", "a/b", "pages", "journals"}

// randomMove picks a move: a rename in place, a move into some folder
// (maybe new), a folder rename or move, or an attachment's move.
func randomMove(rng *rand.Rand, v *Vault, files map[string]string) (string, string) {
	var paths []string
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	src := paths[rng.IntN(len(paths))]
	ext := path.Ext(src)
	switch rng.IntN(4) {
	case 0: // rename in place
		return src, path.Join(path.Dir(src), moveNames[rng.IntN(len(moveNames))]+ext)
	case 1: // into another folder
		return src, path.Join(moveFolders[rng.IntN(len(moveFolders))], path.Base(src))
	case 2: // a folder
		dir := path.Dir(src)
		if dir == "." {
			return src, path.Join("Moved", path.Base(src))
		}
		return dir, path.Join(moveFolders[rng.IntN(len(moveFolders))], "F"+fmt.Sprint(rng.IntN(5)))
	default: // both
		return src, path.Join(moveFolders[rng.IntN(len(moveFolders))], moveNames[rng.IntN(len(moveNames))]+ext)
	}
}

func TestPlanMoveKeepsTheUsersWords(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"Alpha.md": "# Alpha\n",
		"a/b.md": "Prose about Alpha: [[Alpha|Alpha]], [Alpha](../Alpha.md), [[Alpha#Top|Alpha]], [[alpha]], [[Alpha.md]],\n" +
			"[x](<../Alpha.md#Top>), ![[Alpha]], [y](/Alpha.md), and `[[Alpha]]` in code.\n",
	}
	v := memVault(files)
	p, err := v.PlanMove("Alpha.md", "Beta Gamma.md", reader(files))
	if err != nil {
		t.Fatal(err)
	}
	want := "Prose about Alpha: [[Beta Gamma|Alpha]], [Alpha](../Beta%20Gamma.md), [[Beta Gamma#Top|Alpha]], [[Beta Gamma]], [[Beta Gamma.md]],\n" +
		"[x](<../Beta Gamma.md#Top>), ![[Beta Gamma]], [y](/Beta%20Gamma.md), and `[[Alpha]]` in code.\n"
	if len(p.Edits) != 1 || p.Edits[0].After != want || p.Edits[0].Links != 8 {
		t.Fatalf("edits %+v\nwant After %q", p.Edits, want)
	}
	checkKeeps(t, files, v, p)
}

// TestVaultIsSafeForConcurrentUse runs questions, changes and plans at
// once; -race checks them.
func TestVaultIsSafeForConcurrentUse(t *testing.T) {
	t.Parallel()
	files := loadDir(t, "testdata/obsidian")
	v := memVault(files)
	done := make(chan struct{})
	for w := 0; w < 4; w++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := 0; i < 50; i++ {
				switch (i + w) % 4 {
				case 0:
					v.Put(Parse(fmt.Sprintf("New/%d-%d.md", w, i), []byte("[[Alpha]] [[Home]]")))
				case 1:
					_ = v.Backlinks("Projects/Alpha.md")
					_ = v.Orphans()
				case 2:
					read := func(p string) ([]byte, error) {
						if strings.HasPrefix(p, "New/") {
							return []byte("[[Alpha]] [[Home]]"), nil
						}
						return reader(files)(p)
					}
					if _, err := v.PlanMove("Projects/Alpha.md", fmt.Sprintf("X/%d.md", i), read); err != nil {
						t.Error(err)
					}
				default:
					v.Remove(fmt.Sprintf("New/%d-%d.md", w, i-3))
					_ = v.Unresolved("")
				}
			}
		}()
	}
	for w := 0; w < 4; w++ {
		<-done
	}
}

// TestPlanMoveKeepsEveryLinkInAGeneratedVault plays random moves over a
// generated vault, whose notes use every form at once: relative Markdown
// links with %20, paths, aliases, headings, blocks, embeds, properties,
// same names in two folders.
func TestPlanMoveKeepsEveryLinkInAGeneratedVault(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := vaultgen.Generate(dir, 150, 5); err != nil {
		t.Fatal(err)
	}
	files := loadDir(t, dir)
	rng := rand.New(rand.NewPCG(11, 12))
	for i := 0; i < 60; i++ {
		v := memVault(files)
		from, to := randomMove(rng, v, files)
		p, err := v.PlanMove(from, to, reader(files))
		if err != nil {
			if errors.Is(err, ErrExists) || errors.Is(err, ErrIntoItself) {
				continue
			}
			t.Fatalf("move %d %s → %s: %v", i, from, to, err)
		}
		checkKeeps(t, files, v, p)
		if t.Failed() {
			t.Fatalf("after %d moves", i)
		}
		files = applyPlan(t, files, p)
	}
}
