package notes

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"quire/kernel/tool"
	"quire/vault"
	"quire/vault/vaultgen"
)

// linkedVault is a small Obsidian-style folder with every kind of link to
// people/Ana Lima.md and to the projects folder, written under dir.
func linkedVault(t testing.TB, dir string) {
	t.Helper()
	files := map[string]string{
		"people/Ana Lima.md": "# Ana Lima\n\n## Work\n\nShe leads the garden project. ^b1\n",
		"people/Bo.md":       "# Bo\n\nWorks with [[Ana Lima]].\n",
		"misc/Ana.md":        "# Another Ana\n",
		"notes/index.md": "# Index\n\n" +
			"- [[Ana Lima]]\n" +
			"- [[Ana Lima|Ana]]\n" +
			"- [[Ana Lima#Work]]\n" +
			"- [[Ana Lima#^b1]]\n" +
			"- ![[Ana Lima]]\n" +
			"- [md](../people/Ana%20Lima.md)\n" +
			"- [angle](<../people/Ana Lima.md>)\n" +
			"- [sub](../people/Ana%20Lima.md#Work)\n" +
			"- `[[Ana Lima]]` in code stays\n" +
			"- the plan: [plan](../projects/plan.md) and [[plan]]\n" +
			"- [[Nowhere]] was never there\n",
		"notes/props.md":       "---\nrelated: \"[[Ana Lima]]\"\ntags: [x]\n---\n# Props\n",
		"projects/plan.md":     "# Plan\n\nSee the [index](../notes/index.md), [[Ana Lima]] and [notes](notes.md).\n",
		"projects/notes.md":    "# Notes\n\nBack to [the plan](plan.md) and [Bo](../people/Bo.md).\n",
		".trash/old.md":        "[[Ana Lima]] and [x](../people/Ana%20Lima.md)\n",
		".obsidian/app.json":   "{}",
		"attachments/logo.png": "PNG",
	}
	for rel, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// resolved is every link of every note as the vault resolves it: "from ->
// to" ("" when it resolves nowhere), sorted, with the paths of what moved
// mapped through the move, so the lists before and after a move that keeps
// every link are equal.
func resolved(t testing.TB, dir string, move func(string) string) []string {
	t.Helper()
	v, _, err := vault.Scan(t.Context(), os.DirFS(dir), vault.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range v.Paths() {
		for _, ref := range v.Outgoing(p) {
			to := ref.To
			if to != "" {
				to = move(to)
			}
			out = append(out, fmt.Sprintf("%s -> %s (%s)", move(p), to, ref.Link.Sub))
		}
	}
	slices.Sort(out)
	return out
}

func mover(from, to string, folder bool) func(string) string {
	return func(p string) string {
		switch {
		case p == from:
			return to
		case folder && strings.HasPrefix(p, from+"/"):
			return to + p[len(from):]
		}
		return p
	}
}

func TestMoveKeepsEveryLink(t *testing.T) {
	cases := []struct {
		name     string
		from, to string
		folder   bool
		want     map[string][]string // note -> lines it must hold after
	}{
		{"a rename keeps wikilinks, embeds, subs, properties and markdown links", "people/Ana Lima.md", "people/Ana Souza.md", false, map[string][]string{
			"notes/index.md": {"- [[Ana Souza]]\n", "- [[Ana Souza|Ana]]\n", "- [[Ana Souza#Work]]\n", "- [[Ana Souza#^b1]]\n", "- ![[Ana Souza]]\n",
				"(../people/Ana%20Souza.md)", "(../people/Ana%20Souza.md#Work)", "`[[Ana Lima]]` in code stays"},
			"notes/props.md": {`related: "[[Ana Souza]]"`},
			"people/Bo.md":   {"[[Ana Souza]]"},
		}},
		{"a move to another folder keeps the short name where it stays unique", "people/Ana Lima.md", "archive/Ana Lima.md", false, map[string][]string{
			"notes/index.md": {"- [[Ana Lima]]\n", "(../archive/Ana%20Lima.md)"},
		}},
		{"a rename that makes a short link ambiguous writes the longer form", "people/Ana Lima.md", "people/Ana.md", false, map[string][]string{
			"notes/index.md": {"- [[people/Ana]]\n", "- [[people/Ana|Ana]]\n"},
			"people/Bo.md":   {"[[Ana]]"}, // its own folder's Ana comes first: short stays unique
		}},
		{"a folder move keeps the relative links inside and outside it", "projects", "archive/projects", true, map[string][]string{
			"archive/projects/plan.md":  {"[index](../../notes/index.md)", "[notes](notes.md)"},
			"archive/projects/notes.md": {"[the plan](plan.md)", "[Bo](../../people/Bo.md)"},
			"notes/index.md":            {"[plan](../archive/projects/plan.md)", "[[plan]]"},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k := newKit(t)
			linkedVault(t, k.dir)
			move := mover(tc.from, tc.to, tc.folder)
			before := resolved(t, k.dir, move)
			trash := k.read(".trash/old.md")
			res := k.ok("move_note", map[string]any{"from": tc.from, "to": tc.to})
			if after := resolved(t, k.dir, func(p string) string { return p }); !slices.Equal(after, before) {
				t.Fatalf("links changed where they lead:\nbefore %q\nafter  %q", before, after)
			}
			for note, lines := range tc.want {
				contains(t, k.read(note), lines...)
			}
			if k.read(".trash/old.md") != trash {
				t.Fatal("a note in .trash was rewritten")
			}
			c := change(t, res)
			if len(c.Edits) == 0 || !strings.Contains(res.Content, "updated") {
				t.Fatalf("the result does not say which links it updated: %s", res.Content)
			}
			noTemps(t, k.dir)
		})
	}
}

func TestMoveUndoRestoresEveryFileByteForByte(t *testing.T) {
	for _, tc := range []struct{ from, to string }{
		{"people/Ana Lima.md", "people/Ana Souza.md"},
		{"people/Ana Lima.md", "new/deep/Ana.md"},
		{"projects", "archive/projects"},
	} {
		t.Run(tc.from+"→"+tc.to, func(t *testing.T) {
			k := newKit(t)
			linkedVault(t, k.dir)
			before := snapshot(t, k.dir)
			c := change(t, k.ok("move_note", map[string]any{"from": tc.from, "to": tc.to}))
			if len(c.Edits) == 0 {
				t.Fatal("the move rewrote no link")
			}
			moved := snapshot(t, k.dir)
			contains(t, UndoText(c), "back to "+tc.from, "notes back")
			k.ok("undo", map[string]any{"changeId": c.ID})
			if got := snapshot(t, k.dir); got != before {
				t.Fatalf("after the undo:\n%s\nwant\n%s", got, before)
			}
			k.ok("undo", map[string]any{"changeId": k.lastUndo(c.ID)})
			if got := snapshot(t, k.dir); got != moved {
				t.Fatalf("the undo undone (a redo):\n%s\nwant\n%s", got, moved)
			}
		})
	}
}

// lastUndo is the id of the recorded undo of the change id.
func (k *kit) lastUndo(id string) string {
	k.t.Helper()
	k.log.mu.Lock()
	defer k.log.mu.Unlock()
	for _, c := range k.log.changes {
		if c.Undoes == id {
			return c.ID
		}
	}
	k.t.Fatalf("no undo of %s is recorded", id)
	return ""
}

func TestMoveQuestionShowsEveryLinkItUpdates(t *testing.T) {
	k := newKit(t)
	linkedVault(t, k.dir)
	before := snapshot(t, k.dir)
	q := k.describe("q1", "move_note", map[string]any{"from": "people/Ana Lima.md", "to": "people/Ana Souza.md"})
	contains(t, q, "Move people/Ana Lima.md → people/Ana Souza.md\nand updates ", " links in 4 notes:",
		"notes/index.md:", "- - [[Ana Lima|Ana]]", "+ - [[Ana Souza|Ana]]", "notes/props.md:", "people/Bo.md:", "+ Works with [[Ana Souza]].")
	if strings.Contains(q, ".trash") {
		t.Fatalf("the question shows a note in .trash:\n%s", q)
	}
	if got := snapshot(t, k.dir); got != before {
		t.Fatal("describing a move changed the folder")
	}
	p, err := k.root.Preview(t.Context(), "move_note", json.RawMessage(`{"from":"people/Ana Lima.md","to":"people/Ana Souza.md"}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Edits) != 4 || p.Links() < 10 {
		t.Fatalf("the preview carries %d edits, %d links", len(p.Edits), p.Links())
	}
	contains(t, p.Diff(), "people/Ana Lima.md → people/Ana Souza.md\nand updates", "notes/props.md:")
	if got := snapshot(t, k.dir); got != before {
		t.Fatal("previewing a move changed the folder")
	}
	// The question's count is the change's.
	c := change(t, k.runRaw("move_note", "q1", json.RawMessage(`{"from":"people/Ana Lima.md","to":"people/Ana Souza.md"}`)))
	contains(t, q, fmt.Sprintf("and updates %s in %s:", plural(c.Links(), "link", "links"), plural(len(c.Edits), "note", "notes")))
}

// describe is a call's question, as the runtime asks it.
func (k *kit) describe(id, name string, args any) string {
	k.t.Helper()
	raw, _ := json.Marshal(args)
	return tool.Describe(k.tools[name], tool.Call{ID: id, Name: name, Arguments: raw})
}

func TestMoveRefusedWhenANoteChangedAfterTheQuestion(t *testing.T) {
	args := json.RawMessage(`{"from":"people/Ana Lima.md","to":"people/Ana Souza.md"}`)
	cases := []struct {
		name   string
		edit   func(k *kit)
		refuse string // the note the refusal names; "" when the move goes ahead
	}{
		{"nothing changed", func(*kit) {}, ""},
		{"a shown note changed", func(k *kit) { k.write("people/Bo.md", k.read("people/Bo.md")+"A new line.\n") }, "people/Bo.md"},
		{"a new note links to it", func(k *kit) { k.write("people/Cy.md", "[[Ana Lima]]\n") }, "people/Cy.md"},
		{"a shown note lost its link", func(k *kit) { k.write("notes/props.md", "# Props\n") }, "notes/props.md"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k := newKit(t)
			linkedVault(t, k.dir)
			k.describe("c1", "move_note", json.RawMessage(args))
			tc.edit(k)
			before := snapshot(t, k.dir)
			res := k.runRaw("move_note", "c1", args)
			if tc.refuse == "" {
				if res.Status != tool.Success {
					t.Fatalf("refused: %s", res.Content)
				}
				return
			}
			if res.Status != tool.Failure || res.Data.(Failure).Error != "changed" {
				t.Fatalf("not refused: %s", res.Content)
			}
			contains(t, res.Content, tc.refuse, "ask again", "nothing was moved or changed")
			if got := snapshot(t, k.dir); got != before {
				t.Fatalf("a refused move changed the folder")
			}
			// A call with no question shown plans at run.
			if res := k.runRaw("move_note", "c2", args); res.Status != tool.Success {
				t.Fatalf("a call asked nothing of was refused: %s", res.Content)
			}
		})
	}
}

func TestMoveFailsWholeOnANoteItCannotWrite(t *testing.T) {
	k := newKit(t)
	linkedVault(t, k.dir)
	if err := os.Chmod(filepath.Join(k.dir, "notes", "props.md"), 0o444); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, k.dir)
	q := k.describe("q", "move_note", map[string]any{"from": "people/Ana Lima.md", "to": "people/Ana Souza.md"})
	contains(t, q, "Quire would refuse this", "notes/props.md", "read-only")
	msg := k.fails("move_note", map[string]any{"from": "people/Ana Lima.md", "to": "people/Ana Souza.md"}, "read_only")
	contains(t, msg, "notes/props.md", "nothing was moved or changed")
	if got := snapshot(t, k.dir); got != before {
		t.Fatalf("a refused move changed the folder:\n%s", got)
	}
}

func TestOldChangesDecodeWithoutEdits(t *testing.T) {
	old := map[string]any{"id": "chg_1", "tool": "move_note", "kind": "move", "path": "b.md", "from": "a.md", "before": nil, "after": nil, "sha256": "x"}
	c, ok := DecodeChange(old)
	if !ok || c.Edits != nil || c.Diff() != "a.md → b.md" || UndoText(c) != "Undo the change chg_1 (move_note): move b.md back to a.md" {
		t.Fatalf("an old move decodes as %+v", c)
	}
}

// TestMovesKeepEveryLinkInAGeneratedVault plays organising moves through
// move_note on vaultgen's realistic vault (every link form, hubs, notes of
// the same name in two folders): after each, every link resolves where it
// resolved before (mapped through the move), and one undo per move, newest
// first, gives back the folder byte for byte.
func TestMovesKeepEveryLinkInAGeneratedVault(t *testing.T) {
	k := newKit(t)
	if err := vaultgen.Generate(k.dir, 250, 7); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, k.dir)
	moves := []struct {
		from, to string
		folder   bool
	}{
		{vaultgen.Hubs()[0], "Hubs/Start here.md", false},
		{vaultgen.Hubs()[1], "Archive/Projects Hub.md", false},
		{"Hubs", "Maps/Hubs", true},
		{"Area 0", "Areas/Area 0", true},
	}
	var ids []string
	links := 0
	for _, mv := range moves {
		want := resolved(t, k.dir, mover(mv.from, mv.to, mv.folder))
		c := change(t, k.ok("move_note", map[string]any{"from": mv.from, "to": mv.to}))
		if got := resolved(t, k.dir, func(p string) string { return p }); !slices.Equal(got, want) {
			t.Fatalf("moving %s to %s changed where links lead", mv.from, mv.to)
		}
		ids = append(ids, c.ID)
		links += c.Links()
	}
	if links < 100 {
		t.Fatalf("the moves rewrote only %d links", links)
	}
	for _, id := range slices.Backward(ids) {
		k.ok("undo", map[string]any{"changeId": id})
	}
	if got := snapshot(t, k.dir); got != before {
		t.Fatal("undoing every move did not give the folder back byte for byte")
	}
}

// plannedBy is a Linker that returns a fixed plan: a graph gone wrong,
// against which the note tools' own guards must hold.
type plannedBy []vault.Edit

func (p plannedBy) PlanMove(from, to string, _ func(string) ([]byte, error)) (vault.Plan, error) {
	return vault.Plan{From: from, To: to, Edits: p}, nil
}

// TestAMovePlanNeverReachesHiddenOrOutsideFiles: whatever a Linker plans,
// a note in a hidden folder is never rewritten, and a plan that names a
// path outside the notes folder, or puts a note elsewhere than the move
// does, refuses the whole move with nothing changed.
func TestAMovePlanNeverReachesHiddenOrOutsideFiles(t *testing.T) {
	cases := []struct {
		name  string
		edits []vault.Edit
		code  string // "" when the move goes ahead
	}{
		{"a note in .trash is left as it is", []vault.Edit{{Path: ".trash/old.md", NewPath: ".trash/old.md", Before: "[[a]]\n", After: "[[b]]\n", Links: 1}}, ""},
		{"a path outside the folder refuses the move", []vault.Edit{{Path: "../outside.md", NewPath: "../outside.md", Before: "[[a]]\n", After: "[[b]]\n", Links: 1}}, "outside_root"},
		{"a note put elsewhere than the move puts it refuses the move", []vault.Edit{{Path: "c.md", NewPath: "elsewhere/c.md", Before: "[[a]]\n", After: "[[b]]\n", Links: 1}}, "io"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			dir := filepath.Join(base, "notes")
			for rel, text := range map[string]string{"notes/a.md": "# A\n", "notes/c.md": "[[a]]\n", "notes/.trash/old.md": "[[a]]\n", "outside.md": "[[a]]\n"} {
				p := filepath.Join(base, filepath.FromSlash(rel))
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, []byte(text), 0o644)
			}
			r, err := Open(dir, WithLinker(plannedBy(tc.edits)), WithJournal(t.TempDir()))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			before := snapshot(t, base)
			res, _ := findTool(Tools(r, nil), "move_note").Run(t.Context(), tool.Call{ID: "c", Name: "move_note", Arguments: json.RawMessage(`{"from":"a.md","to":"b.md"}`)})
			if tc.code != "" {
				if f, _ := res.Data.(Failure); res.Status != tool.Failure || f.Error != tc.code {
					t.Fatalf("%s: %s, want a refusal %s", res.Status, res.Content, tc.code)
				}
				if got := snapshot(t, base); got != before {
					t.Fatalf("a refused move changed files:\n%s", got)
				}
				return
			}
			if res.Status != tool.Success {
				t.Fatalf("refused: %s", res.Content)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, ".trash", "old.md")); string(got) != "[[a]]\n" {
				t.Fatalf("the note in .trash was rewritten: %q", got)
			}
		})
	}
}

// follower is a real graph of the folder that counts what the root tells
// it after each move, as the app's live linker hears it.
type follower struct {
	*vault.Vault
	told [][]string
}

func (f *follower) Moved(paths []string) { f.told = append(f.told, paths) }

// A graph that is behind the folder — a linking note another program
// renamed a moment ago — cannot read what it lists; the move is then
// planned from a scan, and keeps every link. A graph that follows moves
// is told each path a landed move changed.
func TestAStaleGraphFallsBackToAScanAndAFollowerHearsTheMove(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("Hub.md", "# Hub\n")
	write("inbox/Alpha.md", "See [[Hub]].\n")
	v, _, err := vault.Scan(t.Context(), os.DirFS(dir), vault.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	// Another program files Alpha after the graph read the folder.
	if err := os.MkdirAll(filepath.Join(dir, "done"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "inbox/Alpha.md"), filepath.Join(dir, "done/Alpha.md")); err != nil {
		t.Fatal(err)
	}
	f := &follower{Vault: v}
	r, err := Open(dir, WithLinker(f))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var move tool.Tool
	for _, tl := range Tools(r, nil) {
		if tl.Spec().Name == "move_note" {
			move = tl
		}
	}
	res, err := move.Run(t.Context(), tool.Call{ID: "m", Name: "move_note", Arguments: []byte(`{"from":"Hub.md","to":"Hubs/Main hub.md"}`)})
	if err != nil || res.Status != tool.Success {
		t.Fatalf("the move: %+v, %v", res, err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "done/Alpha.md")); string(got) != "See [[Main hub]].\n" {
		t.Fatalf("the link in the note the graph did not know: %q", got)
	}
	if len(f.told) != 1 || !slices.Contains(f.told[0], "Hub.md") || !slices.Contains(f.told[0], "Hubs/Main hub.md") || !slices.Contains(f.told[0], "done/Alpha.md") {
		t.Fatalf("the follower was told %q", f.told)
	}
}
