package notes

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"quire/kernel/tool"
)

func TestListNotesShowsATreeWithSizesAndDates(t *testing.T) {
	k := newKit(t)
	k.write("projects/plan.md", "twelve bytes")
	k.write("projects/archive/2025/old.md", "old")
	k.write("inbox.md", strings.Repeat("x", 2048))
	k.write(".obsidian/app.json", "{}")
	k.write("projects/.hidden.md", "x")
	when := time.Date(2026, 3, 1, 14, 5, 0, 0, time.UTC)
	for _, p := range []string{"projects/plan.md", "inbox.md", "projects", "projects/archive"} {
		if err := os.Chtimes(filepath.Join(k.dir, p), when, when); err != nil {
			t.Fatal(err)
		}
	}
	date := when.Local().Format(dateLayout)

	res := k.ok("list_notes", map[string]any{})
	contains(t, res.Content,
		"inbox.md  2.0 KB  "+date,
		"projects/  folder  "+date,
		"projects/plan.md  12 B  "+date,
		"projects/archive/  folder  "+date+"  (1 entry not listed)")
	for _, hidden := range []string{".obsidian", ".hidden"} {
		if strings.Contains(res.Content, hidden) {
			t.Errorf("a hidden entry is listed: %s", res.Content)
		}
	}
	l := res.Data.(Listing)
	if len(l.Entries) != 4 || l.Entries[0].Path != "inbox.md" || l.Entries[0].Size != 2048 || !l.Entries[0].Modified.Equal(when) {
		t.Errorf("entries = %+v", l.Entries)
	}

	deep := k.ok("list_notes", map[string]any{"path": "projects", "depth": 3})
	contains(t, deep.Content, "projects/archive/2025/old.md  3 B")
	one := k.ok("list_notes", map[string]any{"path": "projects/plan.md"})
	contains(t, one.Content, "projects/plan.md  12 B")

	k.fails("list_notes", map[string]any{"path": "nope"}, "not_found")
	k.fails("list_notes", map[string]any{"path": "../"}, "outside_root")
	k.fails("list_notes", map[string]any{"depth": 0}, "invalid_args")
	os.Mkdir(filepath.Join(k.dir, "empty"), 0o755)
	if res := k.run("list_notes", map[string]any{"path": "empty"}); res.Status != tool.Empty {
		t.Errorf("an empty folder: %s %s", res.Status, res.Content)
	}
}

func TestListNotesIsBounded(t *testing.T) {
	k := newKit(t)
	for i := range maxListEntries + 50 {
		k.write(fmt.Sprintf("n%03d.md", i), "x")
	}
	res := k.run("list_notes", map[string]any{})
	if res.Status != tool.Partial || len(res.Data.(Listing).Entries) != maxListEntries {
		t.Fatalf("%s with %d entries", res.Status, len(res.Data.(Listing).Entries))
	}
	contains(t, res.Content, "list a subfolder")
}

func TestReadNote(t *testing.T) {
	k := newKit(t)
	k.write("plan.md", "one\ntwo\nthree\n")
	res := k.ok("read_note", map[string]any{"path": "plan.md"})
	if res.Content != "plan.md (3 lines, the whole note):\none\ntwo\nthree\n" {
		t.Errorf("whole note: %q", res.Content)
	}
	res = k.ok("read_note", map[string]any{"path": "plan.md", "startLine": 2, "endLine": 2})
	if res.Content != "plan.md, lines 2-2 of 3:\ntwo\n" {
		t.Errorf("a range: %q", res.Content)
	}
	if res := k.run("read_note", map[string]any{"path": "plan.md", "startLine": 9}); res.Status != tool.Empty {
		t.Errorf("past the end: %s %s", res.Status, res.Content)
	}
	k.fails("read_note", map[string]any{"path": "plan.md", "startLine": 3, "endLine": 2}, "invalid_args")
	k.fails("read_note", map[string]any{"path": "missing.md"}, "not_found")
	os.Mkdir(filepath.Join(k.dir, "folder"), 0o755)
	contains(t, k.fails("read_note", map[string]any{"path": "folder"}, "not_note"), "is a folder", "list_notes")
}

func TestReadNoteRefusesBinaryFiles(t *testing.T) {
	k := newKit(t)
	k.write("photo.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	k.write("latin1.txt", "caf\xe9")
	for _, p := range []string{"photo.png", "latin1.txt"} {
		contains(t, k.fails("read_note", map[string]any{"path": p}, "binary"), "binary file", "only Markdown and plain-text notes")
	}
}

func TestReadNoteIsBoundedAndReadsOn(t *testing.T) {
	k := newKit(t)
	line := strings.Repeat("x", 1000) + "\n"
	k.write("big.md", strings.Repeat(line, 200))
	res := k.run("read_note", map[string]any{"path": "big.md"})
	if res.Status != tool.Partial || len(res.Content) > maxReadOutput+200 {
		t.Fatalf("%s, %d bytes", res.Status, len(res.Content))
	}
	x := res.Data.(Excerpt)
	contains(t, res.Content, fmt.Sprintf("startLine %d", x.EndLine+1))
	next := k.run("read_note", map[string]any{"path": "big.md", "startLine": x.EndLine + 1})
	if next.Data.(Excerpt).StartLine != x.EndLine+1 {
		t.Errorf("reading on: %+v", next.Data)
	}
}

func TestFindNotes(t *testing.T) {
	k := newKit(t)
	k.write("projects/Garden plan.md", "Tomatoes in May.\nBEANS in june\n")
	k.write("journal/2026-03.md", "Talked about the garden with Ana.\n")
	k.write("photo.png", "\x00garden\x00")
	k.write(".trash/garden.md", "garden")

	res := k.ok("find_notes", map[string]any{"query": "garden"})
	contains(t, res.Content, "projects/Garden plan.md (name)", "journal/2026-03.md:1: Talked about the garden with Ana.", "1 binary or unreadable file was not searched")
	if strings.Contains(res.Content, ".trash") || strings.Contains(res.Content, "photo.png") {
		t.Errorf("hidden or binary files searched: %s", res.Content)
	}
	names := k.ok("find_notes", map[string]any{"query": "GARDEN", "in": "name"})
	if hits := names.Data.(Found).Hits; len(hits) != 1 || hits[0].Path != "projects/Garden plan.md" {
		t.Errorf("by name: %+v", hits)
	}
	content := k.ok("find_notes", map[string]any{"query": "beans", "in": "content"})
	contains(t, content.Content, "projects/Garden plan.md:2: BEANS in june")

	if res := k.run("find_notes", map[string]any{"query": "zucchini"}); res.Status != tool.Empty {
		t.Errorf("no match: %s", res.Status)
	}
	k.fails("find_notes", map[string]any{"query": "x", "in": "title"}, "invalid_args")
	k.fails("find_notes", map[string]any{"query": " "}, "invalid_args")
}

func TestFindNotesStopsAtTheLimit(t *testing.T) {
	k := newKit(t)
	k.write("many.md", strings.Repeat("todo\n", 50))
	res := k.run("find_notes", map[string]any{"query": "todo", "in": "content", "limit": 5})
	if res.Status != tool.Partial || len(res.Data.(Found).Hits) != 5 {
		t.Fatalf("%s with %d hits", res.Status, len(res.Data.(Found).Hits))
	}
	contains(t, res.Content, "more than 5 matches")
}

// indexFinder is an index's answer, or not ready yet.
type indexFinder struct {
	hits  []Hit
	ready bool
}

func (f indexFinder) Find(_ context.Context, _, _ string, limit int) ([]Hit, bool, error) {
	if !f.ready {
		return nil, false, ErrIndexNotReady
	}
	return f.hits[:min(limit, len(f.hits))], len(f.hits) > limit, nil
}

// TestFindNotesAsksTheIndexWhenReady: with a ready index find_notes reads
// no file and says the index answered; while the index is not ready it
// reads every file, as before, and says why.
func TestFindNotesAsksTheIndexWhenReady(t *testing.T) {
	t.Parallel()
	ranked := []Hit{{Path: "b/Okapi facts.md", Line: 3, Text: "the okapi is shy"}, {Path: "a/zoo.md", Text: "Zoo"}}
	for _, c := range []struct {
		name    string
		finder  indexFinder
		source  string
		paths   []string
		content []string
	}{
		{"ready", indexFinder{hits: ranked, ready: true}, FromIndex, []string{"b/Okapi facts.md", "a/zoo.md"},
			[]string{"b/Okapi facts.md:3: the okapi is shy", "a/zoo.md: Zoo", "Answered by the notes index"}},
		{"not ready", indexFinder{}, FromScan, []string{"on disk.md"},
			[]string{"on disk.md:1: an okapi on disk", "Answered by reading every file: " + ErrIndexNotReady.Error()}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r, err := Open(t.TempDir(), WithFinder(c.finder))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close() })
			if err := os.WriteFile(filepath.Join(r.Dir(), "on disk.md"), []byte("an okapi on disk\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := findNotes(r).Run(t.Context(), tool.Call{ID: "c1", Name: "find_notes", Arguments: []byte(`{"query":"okapi"}`)})
			if err != nil || res.Status != tool.Success {
				t.Fatalf("%v %s: %s", err, res.Status, res.Content)
			}
			f := res.Data.(Found)
			var got []string
			for _, h := range f.Hits {
				got = append(got, h.Path)
			}
			if f.Source != c.source || !slices.Equal(got, c.paths) {
				t.Errorf("source %q, hits %v; want %q, %v", f.Source, got, c.source, c.paths)
			}
			contains(t, res.Content, c.content...)
		})
	}
}
