package notes

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNothingIsChangedInHiddenFolders: a note written, edited or moved into
// (or out of) a hidden folder — another program's, left out of every
// listing — is refused with a sentence naming the folder, and nothing on
// disk changes; reading one still works.
func TestNothingIsChangedInHiddenFolders(t *testing.T) {
	k := newKit(t)
	k.write("inbox/idea.md", "an idea\n")
	k.write(".obsidian/snippets.md", "config\n")
	k.write("projects/plan.md", "plan\n")
	before := k.tree()
	cases := []struct {
		name, tool string
		args       map[string]any
		folder     string // the hidden folder the sentence names
	}{
		{"create in a hidden folder", "create_note", map[string]any{"path": ".trash/new.md", "content": "x"}, ".trash"},
		{"create a hidden note", "create_note", map[string]any{"path": "projects/.secret.md", "content": "x"}, ".secret.md"},
		{"move a note into a hidden folder", "move_note", map[string]any{"from": "inbox/idea.md", "to": ".sync/idea.md"}, ".sync"},
		{"move a note into an existing hidden folder", "move_note", map[string]any{"from": "inbox/idea.md", "to": ".obsidian"}, ".obsidian"},
		{"move a folder into a hidden one", "move_note", map[string]any{"from": "projects", "to": ".archive/projects"}, ".archive"},
		{"move a note out of a hidden folder", "move_note", map[string]any{"from": ".obsidian/snippets.md", "to": "inbox/snippets.md"}, ".obsidian"},
		{"append to a hidden note", "append_note", map[string]any{"path": ".obsidian/snippets.md", "text": "more"}, ".obsidian"},
		{"edit a hidden note", "edit_note", map[string]any{"path": ".obsidian/snippets.md", "find": "config", "replace": "changed"}, ".obsidian"},
		{"tag a hidden note", "set_tags", map[string]any{"path": ".obsidian/snippets.md", "tags": []string{"x"}}, ".obsidian"},
		{"link from a hidden note", "link_notes", map[string]any{"from": ".obsidian/snippets.md", "to": "projects/plan.md"}, ".obsidian"},
		{"make a hidden folder", "make_folder", map[string]any{"path": "projects/.hidden"}, ".hidden"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			said := k.fails(c.tool, c.args, "bad_path")
			if !strings.Contains(said, "hidden "+c.folder) || !strings.Contains(said, "use a visible folder") {
				t.Errorf("the refusal does not name the hidden %s or say what to do: %s", c.folder, said)
			}
		})
	}
	if after := k.tree(); after != before {
		t.Fatalf("a refused change changed the folder:\nbefore %s\nafter  %s", before, after)
	}
	if k.exists(".trash") || k.exists(".sync") || k.exists(".archive") || k.exists("projects/.hidden") {
		t.Fatal("a refused change made a hidden folder")
	}
	if res := k.ok("read_note", map[string]any{"path": ".obsidian/snippets.md"}); !strings.Contains(res.Content, "config") {
		t.Fatalf("a hidden note can no longer be read: %s", res.Content)
	}
	// The control: the same tools change visible notes.
	k.ok("move_note", map[string]any{"from": "inbox/idea.md", "to": "projects/idea.md"})
	k.ok("append_note", map[string]any{"path": "projects/idea.md", "text": "more"})
}

// TestAVisibleLinkDoesNotLeadIntoAHiddenFolder: the rule holds for where a
// path leads, not only for how it is spelt.
func TestAVisibleLinkDoesNotLeadIntoAHiddenFolder(t *testing.T) {
	k := newKit(t)
	k.write(".obsidian/snippets.md", "config\n")
	if err := os.Symlink(filepath.Join(k.dir, ".obsidian"), filepath.Join(k.dir, "settings")); err != nil {
		t.Fatal(err)
	}
	if said := k.fails("create_note", map[string]any{"path": "settings/new.md", "content": "x"}, "bad_path"); !strings.Contains(said, "hidden .obsidian") {
		t.Errorf("the refusal does not name where the link leads: %s", said)
	}
	if said := k.fails("append_note", map[string]any{"path": "settings/snippets.md", "text": "more"}, "bad_path"); !strings.Contains(said, "hidden .obsidian") {
		t.Errorf("the refusal does not name where the link leads: %s", said)
	}
	if k.exists(".obsidian/new.md") || k.read(".obsidian/snippets.md") != "config\n" {
		t.Fatal("a change went through the link into the hidden folder")
	}
}
