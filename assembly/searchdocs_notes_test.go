package assembly

import (
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"quire/config"
	"quire/kernel/tool"
	"quire/test/ollamatest"
	"quire/test/testkit"
	"quire/tools/searchdocs"
	"quire/vaultindex"
	"quire/watch"
)

// openForDocs opens the parts with a documents folder indexed (withDocs)
// and a notes folder whose index has read it (withNotes), its two notes
// linked when linked is true (a small folder without links is left to
// find_notes).
func openForDocs(t *testing.T, withNotes, withDocs, linked bool) *Parts {
	t.Helper()
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	dataDir, notesDir, docsDir := t.TempDir(), t.TempDir(), t.TempDir()
	testkit.WriteOld(t, filepath.Join(notesDir, "Trips/Kayak.md"), "# Kayak\n\nPacking list.\nThe zeppelin hangar tour is booked.\n")
	testkit.WriteOld(t, filepath.Join(notesDir, ".obsidian/secret.md"), "hidden zeppelin\n")
	packing := "# Packing\n\nSocks.\n"
	if linked {
		packing += "See [[Kayak]].\n"
	}
	testkit.WriteOld(t, filepath.Join(notesDir, "Trips/Packing.md"), packing)
	testkit.WriteOld(t, filepath.Join(docsDir, "plan.md"), "# Plan\n\nKeep the zeppelin budget under ten thousand.\n")
	cfg := config.Config{DataDir: dataDir, OllamaHost: fake.URL(), Model: "qwen3:4b", NumCtx: 4096}
	updates := make(chan vaultindex.Update, 64)
	if withNotes {
		cfg.NotesDir = notesDir
	}
	p, err := OpenWith(t.Context(), config.NewStore(cfg), slog.New(slog.DiscardHandler), Owner, Extras{
		NotesIndex: []vaultindex.Option{vaultindex.WithOnUpdate(func(u vaultindex.Update) { updates <- u }),
			vaultindex.WithWatch(watch.WithDebounce(10 * time.Millisecond))}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	if withNotes {
		waitSynced(t, updates)
	}
	if withDocs {
		if err := p.rag.Index(t.Context(), []string{docsDir}, nil); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func searchDocsTool(p *Parts) tool.Tool {
	for _, tl := range (docsTools{p.rag, p, p.log, p.notes}).Tools() {
		if tl.Spec().Name == searchdocs.Name {
			return tl
		}
	}
	return nil
}

// TestSearchDocsIncludesTheNotes: with a notes folder, search_docs finds
// a note's text cited by its path and line, fuses it with the documents'
// passages (documents first on a tie), and leaves the notes out when
// asked; it is offered for the notes alone.
func TestSearchDocsIncludesTheNotes(t *testing.T) {
	p := openForDocs(t, true, true, true)
	tl := searchDocsTool(p)
	if tl == nil {
		t.Fatal("search_docs is not offered")
	}
	for _, c := range []struct {
		args      string
		status    tool.Status
		wantNames []string
		wantLine  string
	}{
		{`{"query": "hangar"}`, tool.Success, []string{"note Trips/Kayak.md"}, "[1] note Trips/Kayak.md (line 4): "},
		{`{"query": "zeppelin"}`, tool.Success, []string{"plan.md", "note Trips/Kayak.md"}, "passages from the user's documents and notes"},
		{`{"query": "zeppelin", "include_notes": false}`, tool.Success, []string{"plan.md"}, "passages from the user's documents for"},
		{`{"query": "hangar", "include_notes": false}`, tool.Empty, nil, "No passage in the user's documents matches"},
		{`{"query": "zeppelin", "include_notes": "yes"}`, tool.Failure, nil, `"include_notes" must be true or false`},
	} {
		res, err := tl.Run(t.Context(), tool.Call{ID: "c", Name: searchdocs.Name, Arguments: json.RawMessage(c.args)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != c.status || !strings.Contains(res.Content, c.wantLine) {
			t.Errorf("%s: %s %q, want %s with %q", c.args, res.Status, res.Content, c.status, c.wantLine)
			continue
		}
		if c.status != tool.Success {
			continue
		}
		hits := res.Data.(searchdocs.Data).Hits
		var names []string
		for i, h := range hits {
			if h.N != i+1 {
				t.Errorf("%s: hit %d numbered %d", c.args, i, h.N)
			}
			names = append(names, filepath.Base(strings.TrimPrefix(h.Name, "note ")))
			if strings.HasPrefix(h.Name, "note ") {
				if h.StartLine != 4 || !strings.HasSuffix(filepath.ToSlash(h.Path), "Trips/Kayak.md") || !filepath.IsAbs(h.Path) {
					t.Errorf("%s: note cited as %+v", c.args, h)
				}
			}
		}
		var want []string
		for _, w := range c.wantNames {
			want = append(want, filepath.Base(strings.TrimPrefix(w, "note ")))
		}
		if strings.Join(names, ",") != strings.Join(want, ",") {
			t.Errorf("%s: hits %v, want %v", c.args, names, want)
		}
	}
}

// TestSearchDocsIsOfferedForNotesAndDocs: search_docs is offered when
// either index holds something, and without a notes folder it searches
// the documents as it always did.
func TestSearchDocsIsOfferedForNotesAndDocs(t *testing.T) {
	for _, c := range []struct {
		name                string
		notes, docs, linked bool
		offered             bool
		query, wantFirst    string
	}{
		{"nothing", false, false, false, false, "", ""},
		{"notes only", true, false, true, true, "hangar", "[1] note Trips/Kayak.md (line 4)"},
		{"a few notes without links", true, false, false, false, "", ""},
		{"documents and a few notes without links", true, true, false, true, "zeppelin", "1 passages from the user's documents for"},
		{"documents only", false, true, false, true, "zeppelin", "1 passages from the user's documents for"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := openForDocs(t, c.notes, c.docs, c.linked)
			tl := searchDocsTool(p)
			if (tl != nil) != c.offered {
				t.Fatalf("offered %v, want %v", tl != nil, c.offered)
			}
			if tl == nil {
				return
			}
			if d := tl.Spec().Description; strings.Contains(d, "include_notes") != (c.notes && c.linked) {
				t.Errorf("description %q", d)
			}
			res, err := tl.Run(t.Context(), tool.Call{ID: "c", Name: searchdocs.Name, Arguments: json.RawMessage(`{"query": "` + c.query + `"}`)})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != tool.Success || !strings.Contains(res.Content, c.wantFirst) {
				t.Errorf("%s %q, want %q", res.Status, res.Content, c.wantFirst)
			}
		})
	}
}

// TestANoteCitationOpensInTheViewer: the viewer a citation opens shows an
// indexed note of the notes folder, and still refuses any other file.
func TestANoteCitationOpensInTheViewer(t *testing.T) {
	p := openForDocs(t, true, true, true)
	res, err := searchDocsTool(p).Run(t.Context(), tool.Call{ID: "c", Name: searchdocs.Name, Arguments: json.RawMessage(`{"query": "hangar"}`)})
	if err != nil || res.Status != tool.Success {
		t.Fatalf("%v %s %s", err, res.Status, res.Content)
	}
	note := res.Data.(searchdocs.Data).Hits[0].Path
	dir := filepath.Dir(filepath.Dir(note))
	docs := p.Documents(t.Context())
	for _, c := range []struct {
		path, want string
	}{
		{note, "The zeppelin hangar tour is booked."},
		{filepath.Join(dir, ".obsidian", "secret.md"), ""},
		{filepath.Join(dir, "Trips", "Missing.md"), ""},
		{filepath.Join(dir, "..", "elsewhere.md"), ""},
		{"Trips/Kayak.md", ""},
	} {
		src, err := docs.Source(t.Context(), c.path, 0)
		if c.want == "" {
			if err == nil {
				t.Errorf("%s opened: %q", c.path, src.Text)
			}
			continue
		}
		if err != nil || !strings.Contains(src.Text, c.want) || src.Name != "note Trips/Kayak.md" || src.Format != "markdown" {
			t.Errorf("%s: %+v %v", c.path, src, err)
		}
	}
}
