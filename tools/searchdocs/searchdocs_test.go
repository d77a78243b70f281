package searchdocs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"quire/kernel/store"
	"quire/kernel/tool"
	"quire/rag"
)

func realIndex(t *testing.T) *rag.Index {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(t.Context(), filepath.Join(dir, "quire.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	notes := filepath.Join(dir, "notes")
	os.MkdirAll(notes, 0o755)
	plan := "# Plan\n\nIntro.\n\n## Goals\n\n### Budget\n\nKeep the zeppelin budget\nunder ten thousand.\n"
	if err := os.WriteFile(filepath.Join(notes, "plan.md"), []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(notes, "plan.md"), old, old)
	ix, err := rag.Open(t.Context(), st.DB(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if err := ix.Index(t.Context(), []string{notes}, nil); err != nil {
		t.Fatal(err)
	}
	return ix
}

func run(t *testing.T, tl *Tool, args string) tool.Result {
	t.Helper()
	res, err := tl.Run(context.Background(), tool.Call{ID: "c1", Name: Name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestSearchGivesTheModelNumberedCitations(t *testing.T) {
	tl := New(realIndex(t))
	res := run(t, tl, `{"query": "zeppelin budget", "limit": 3}`)
	if res.Status != tool.Success {
		t.Fatalf("status %s: %s", res.Status, res.Content)
	}
	lines := strings.Split(res.Content, "\n")
	want := "[1] notes/plan.md › Plan › Goals › Budget (lines 5–10): ## Goals ### Budget Keep the zeppelin budget under ten thousand."
	if len(lines) < 2 || lines[1] != want {
		t.Fatalf("content:\n%s\nwant line 2:\n%s", res.Content, want)
	}
	data, ok := res.Data.(Data)
	if !ok || len(data.Hits) == 0 || data.Hits[0].N != 1 || data.Hits[0].LexicalRank != 1 || data.Hits[0].StartLine != 5 || !strings.Contains(data.Embedder, "offline") {
		t.Fatalf("data %+v", res.Data)
	}
	if len(data.Hits) > 3 {
		t.Errorf("limit 3 gave %d hits", len(data.Hits))
	}
	// Data is JSON with the documented names.
	b, _ := json.Marshal(res.Data)
	if h := data.Hits[0]; len(h.Matched) != 2 || h.Matched[0] != "zeppelin" || h.Matched[1] != "budget" || h.Similarity != 0 {
		t.Errorf("why this passage: matched %q, similarity %v; want [zeppelin budget] and none with the built-in embedder", h.Matched, h.Similarity)
	}
	for _, k := range []string{`"hits"`, `"lexicalRank"`, `"vectorRank"`, `"startLine"`, `"headings"`, `"matched"`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("data JSON lacks %s: %s", k, b)
		}
	}
}

func TestBadArgumentsGetAClearError(t *testing.T) {
	tl := New(realIndex(t))
	for args, want := range map[string]string{
		``:                              `needs arguments`,
		`not json`:                      `must be a JSON object`,
		`[1,2]`:                         `must be a JSON object`,
		`{}`:                            `"query" is required`,
		`{"query": 42}`:                 `"query" must be a string, got 42`,
		`{"query": "   "}`:              `"query" is empty`,
		`{"query": "x", "limit": 0}`:    `"limit" must be a whole number from 1 to 20, got 0`,
		`{"query": "x", "limit": 2.5}`:  `got 2.5`,
		`{"query": "x", "limit": "5"}`:  `got "5"`,
		`{"query": "x", "limit": 500}`:  `got 500`,
		`{"query": "x", "filter": "a"}`: `unknown argument "filter"`,
		`{"query": "` + strings.Repeat("a", 1001) + `"}`: `the most is 1000`,
	} {
		res := run(t, tl, args)
		if res.Status != tool.Failure || !strings.Contains(res.Content, want) || !strings.HasPrefix(res.Content, "search_docs") {
			t.Errorf("args %.40q: %s %q, want failure containing %q", args, res.Status, res.Content, want)
		}
	}
	if res := run(t, tl, `{"query": "zeppelin", "limit": null}`); res.Status != tool.Success {
		t.Errorf("a null limit means the default: %s %s", res.Status, res.Content)
	}
}

// TestAQueryWithNoMatchingWordGivesTheModelNothingToCite: words the
// documents do not hold, in any script, find no passage on the real index,
// and the model is told there is nothing to cite.
func TestAQueryWithNoMatchingWordGivesTheModelNothingToCite(t *testing.T) {
	tl := New(realIndex(t))
	for _, q := range []string{"zzqxj flurbo", "日本語"} {
		res := run(t, tl, `{"query": "`+q+`"}`)
		data, _ := res.Data.(Data)
		if res.Status != tool.Empty || len(data.Hits) != 0 || !strings.Contains(res.Content, "No passage") || !strings.Contains(res.Content, "do not cite") {
			t.Errorf("%q: %s %q, %d hits; want no passage and nothing to cite", q, res.Status, res.Content, len(data.Hits))
		}
	}
}

type failing struct{}

func (failing) Search(context.Context, string, int) ([]rag.Hit, error) {
	return nil, errors.New("disk on fire")
}
func (failing) Embedder() string { return "x" }

type none struct{ failing }

func (none) Search(context.Context, string, int) ([]rag.Hit, error) { return nil, nil }

func TestNoHitsIsEmptyAndAFailureSaysWhy(t *testing.T) {
	if res := run(t, New(none{}), `{"query": "nothing"}`); res.Status != tool.Empty || !strings.Contains(res.Content, `No passage`) {
		t.Errorf("no hits: %s %q", res.Status, res.Content)
	}
	if res := run(t, New(failing{}), `{"query": "x"}`); res.Status != tool.Failure || !strings.Contains(res.Content, "disk on fire") {
		t.Errorf("failure: %s %q", res.Status, res.Content)
	}
}

func TestSpec(t *testing.T) {
	s := New(none{}).Spec()
	if s.Name != "search_docs" || s.Effects != tool.ReadFs || s.Idempotency != tool.Safe || s.Timeout <= 0 || !s.Retryable() {
		t.Fatalf("spec %+v", s)
	}
	if tool.Decide(s.Effects, tool.Minimal) != tool.Allow {
		t.Error("a read-only search must run even under the minimal profile")
	}
	props := s.Parameters["properties"].(map[string]any)
	if _, ok := props["query"]; !ok || s.Parameters["additionalProperties"] != false {
		t.Errorf("parameters %v", s.Parameters)
	}
	if _, err := json.Marshal(OutputSchema()); err != nil {
		t.Error(err)
	}
}

func TestCitationLineForms(t *testing.T) {
	for _, c := range []struct {
		c    Citation
		want string
	}{
		{Citation{N: 2, Name: "a.txt", StartLine: 4, EndLine: 4, Snippet: "s"}, "[2] a.txt (line 4): s"},
		{Citation{N: 3, Name: "r.pdf", Headings: []string{"Page 3"}, StartLine: 1, EndLine: 9, Snippet: "s"}, "[3] r.pdf › Page 3 (lines 1–9): s"},
	} {
		if got := c.c.Line(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

// TestFuseKeepsRoomForDocuments: passages and notes interleave by rank
// (a tie goes to the document), notes take at most half the places while
// passages remain, and fill the list when passages run out.
func TestFuseKeepsRoomForDocuments(t *testing.T) {
	docs := func(n int) []Citation {
		out := make([]Citation, n)
		for i := range out {
			out[i] = Citation{Name: fmt.Sprintf("d%d", i+1)}
		}
		return out
	}
	notes := func(n int) []NoteHit {
		out := make([]NoteHit, n)
		for i := range out {
			out[i] = NoteHit{Path: fmt.Sprintf("n%d.md", i+1), Line: i + 2}
		}
		return out
	}
	for _, c := range []struct {
		docs, notes, limit int
		want               string
	}{
		{5, 5, 5, "d1 n1 d2 n2 d3"},
		{5, 5, 4, "d1 n1 d2 n2"},
		{5, 5, 1, "d1"},
		{1, 5, 5, "d1 n1 n2 n3 n4"},
		{0, 3, 5, "n1 n2 n3"},
		{3, 0, 5, "d1 d2 d3"},
		{0, 0, 5, ""},
	} {
		got := fuse(docs(c.docs), notes(c.notes), c.limit)
		var names []string
		for i, h := range got {
			if h.N != i+1 {
				t.Errorf("%+v: hit %d numbered %d", c, i, h.N)
			}
			name := strings.TrimSuffix(strings.TrimPrefix(h.Name, "note "), ".md")
			if strings.HasPrefix(h.Name, "note ") && (h.StartLine == 0 || h.StartLine != h.EndLine) {
				t.Errorf("%+v: note %s cited at lines %d–%d", c, h.Name, h.StartLine, h.EndLine)
			}
			names = append(names, name)
		}
		if s := strings.Join(names, " "); s != c.want {
			t.Errorf("%d docs, %d notes, limit %d: %q, want %q", c.docs, c.notes, c.limit, s, c.want)
		}
	}
}
