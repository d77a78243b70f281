package notegraph_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"quire/kernel/store"
	"quire/kernel/tool"
	"quire/tools/notegraph"
	"quire/vaultindex"
	"quire/watch"
)

func index(t *testing.T, files map[string]string, opts ...vaultindex.Option) (*vaultindex.Index, string) {
	t.Helper()
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	for rel, text := range files {
		write(t, dir, rel, text)
	}
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "quire.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	x, err := vaultindex.Open(t.Context(), st.DB(), dir, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	if err := x.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	return x, dir
}

func write(t *testing.T, dir, rel, text string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func find(t *testing.T, ts []tool.Tool, name string) tool.Tool {
	for _, tl := range ts {
		if tl.Spec().Name == name {
			s := tl.Spec()
			if s.Effects != tool.ReadFs || !s.Parallel {
				t.Fatalf("%s is not a parallel read: %+v", name, s)
			}
			return tl
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

func call(t *testing.T, tl tool.Tool, args string) tool.Result {
	t.Helper()
	res, err := tl.Run(context.Background(), tool.Call{ID: "c1", Name: tl.Spec().Name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

var vaultFiles = map[string]string{
	"Hub.md":         "# Hub\n\nSee [[Alpha]] and [[Beta]].\n",
	"notes/Alpha.md": "# Alpha\n\nBack to [[Hub]], and [[Nowhere]].\n",
	"notes/Beta.md":  "# Beta\n\n[[Hub]] again. The heron flies.\n",
	"Lonely.md":      "# Lonely\n\nNo links.\n",
}

func TestTheToolsReadTheGraph(t *testing.T) {
	t.Parallel()
	x, _ := index(t, vaultFiles)
	ts := notegraph.Tools(x)
	for _, tc := range []struct {
		tool, args string
		status     tool.Status
		contains   []string
	}{
		{"search_notes", `{"query": "heron"}`, tool.Success, []string{"notes/Beta.md (line 3): [[Hub]] again. The heron flies."}},
		{"search_notes", `{"query": "kangaroo"}`, tool.Empty, []string{`No note matches "kangaroo"`}},
		{"search_notes", `{"query": "heron", "folder": "elsewhere"}`, tool.Empty, nil},
		{"search_notes", `{"query": ""}`, tool.Failure, []string{"empty"}},
		{"search_notes", `{"query": "x", "limit": 500}`, tool.Failure, []string{"from 1 to 50"}},
		{"search_notes", `{"q": "x"}`, tool.Failure, []string{"{query, tags?, folder?, limit?}"}},
		{"note_links", `{"path": "Hub.md"}`, tool.Success, []string{"Backlinks (2):", "notes/Alpha.md (line 3) [[Hub]]", "[[Alpha]] → notes/Alpha.md"}},
		{"note_links", `{"path": "notes/Alpha.md"}`, tool.Success, []string{"Unresolved (1):", "[[Nowhere]]"}},
		{"note_links", `{"path": "Hub"}`, tool.Failure, []string{"Hub.md"}},
		{"note_links", `{}`, tool.Failure, []string{`"path" is required`}},
		{"vault_orphans", `{}`, tool.Success, []string{"1 orphan notes", "Lonely.md"}},
		{"vault_orphans", `{"folder": "notes"}`, tool.Empty, nil},
		{"related_notes", `{"path": "notes/Alpha.md"}`, tool.Success, []string{"Hub.md: ", "notes/Beta.md"}},
		{"related_notes", `{"path": "nope.md"}`, tool.Failure, []string{"not an indexed note"}},
	} {
		t.Run(tc.tool+" "+tc.args, func(t *testing.T) {
			res := call(t, find(t, ts, tc.tool), tc.args)
			if res.Status != tc.status {
				t.Fatalf("status %s: %s", res.Status, res.Content)
			}
			for _, c := range tc.contains {
				if !strings.Contains(res.Content, c) {
					t.Errorf("content lacks %q:\n%s", c, res.Content)
				}
			}
			if _, err := json.Marshal(res.Data); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestSearchNotesFindsANoteAnotherProgramWrote: no tool writes the note;
// the watch alone brings it into the index.
func TestSearchNotesFindsANoteAnotherProgramWrote(t *testing.T) {
	t.Parallel()
	updates := make(chan vaultindex.Update, 64)
	x, dir := index(t, vaultFiles, vaultindex.WithOnUpdate(func(u vaultindex.Update) { updates <- u }),
		vaultindex.WithWatch(watch.WithDebounce(10*time.Millisecond)))
	if err := x.Watch(); err != nil {
		t.Fatal(err)
	}
	search := find(t, notegraph.Tools(x), "search_notes")
	if res := call(t, search, `{"query": "narwhal"}`); res.Status != tool.Empty {
		t.Fatalf("found before it was written: %s", res.Content)
	}
	write(t, dir, "elsewhere/Sea.md", "# Sea\n\nA narwhal surfaced.\n")
	deadline := time.After(10 * time.Second)
	for seen := false; !seen; {
		select {
		case u := <-updates:
			seen = slices.Contains(u.Paths, "elsewhere/Sea.md")
		case <-deadline:
			t.Fatal("the watch never indexed the note")
		}
	}
	res := call(t, search, `{"query": "narwhal"}`)
	if res.Status != tool.Success || !strings.Contains(res.Content, "elsewhere/Sea.md (line 3)") {
		t.Fatalf("%s: %s", res.Status, res.Content)
	}
}
