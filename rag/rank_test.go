package rag

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestAQueryWithNoMatchingWordFindsNothing: words no document holds, in
// any script, find no passage in any mode — the vector arm's nearest
// chunks are below its floor — so the model has nothing to cite.
func TestAQueryWithNoMatchingWordFindsNothing(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "notes")
	for i, body := range []string{
		"# Garden\n\nTomatoes need sun and water every morning.\n",
		"# Budget\n\nThe zeppelin budget is tight this year.\n",
		"# Travel\n\nTrains to Lyon leave from the central station.\n",
		"# Reading\n\nA list of novels about the sea and sailors.\n",
	} {
		write(t, filepath.Join(root, fmt.Sprintf("n%d.md", i)), body)
	}
	ix := openIndex(t, openDB(t, dir), nil)
	index(t, ix, root)
	for _, q := range []string{"zzqxj flurbo", "日本語", "qwrtp vbnmz"} {
		for _, m := range []Mode{ModeDefault, ModeLexical, ModeVector, ModeHybrid} {
			hits, err := ix.SearchMode(t.Context(), q, 8, m)
			if err != nil || len(hits) != 0 {
				t.Errorf("%q in mode %q: %d hits (%v), want none", q, m, len(hits), err)
			}
		}
	}
	// The same index does find what it holds, in every mode.
	for _, m := range []Mode{ModeDefault, ModeLexical, ModeVector, ModeHybrid} {
		if hits, err := ix.SearchMode(t.Context(), "zeppelin budget", 8, m); err != nil || len(hits) == 0 || !strings.HasSuffix(hits[0].Path, "n1.md") {
			t.Errorf("mode %q: %+v (%v), want n1.md first", m, hits, err)
		}
	}
}

func TestModesSayWhichArmRanked(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "notes")
	write(t, filepath.Join(root, "a.md"), "# Windmills\n\nWindmills grind grain by the river.\n")
	write(t, filepath.Join(root, "b.md"), "# Mills\n\nA water mill grinds grain too.\n")
	ix := openIndex(t, openDB(t, dir), nil)
	index(t, ix, root)
	for _, c := range []struct {
		mode     Mode
		lex, vec bool // whether hits carry that arm's rank
	}{
		{ModeDefault, true, false}, // the built-in embedder's calibration: words alone
		{ModeLexical, true, false},
		{ModeVector, false, true},
		{ModeHybrid, true, true},
	} {
		hits, err := ix.SearchMode(t.Context(), "windmills grain", 5, c.mode)
		if err != nil || len(hits) == 0 {
			t.Fatalf("mode %q: %v, %d hits", c.mode, err, len(hits))
		}
		if h := hits[0]; (h.LexicalRank > 0) != c.lex || (h.VectorRank > 0) != c.vec {
			t.Errorf("mode %q: top hit ranks lexical %d vector %d", c.mode, h.LexicalRank, h.VectorRank)
		}
	}
	if _, err := ix.SearchMode(t.Context(), "grain", 5, Mode("semantic")); !errors.Is(err, ErrUnknownMode) {
		t.Errorf("an unknown mode: %v", err)
	}
}

func TestParseMode(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Mode
		err  bool
	}{
		{"", ModeDefault, false}, {"default", ModeDefault, false}, {"lexical", ModeLexical, false},
		{" Vector ", ModeVector, false}, {"hybrid", ModeHybrid, false}, {"semantic", "", true},
	} {
		got, err := ParseMode(c.in)
		if got != c.want || (err != nil) != c.err || (err != nil && !errors.Is(err, ErrUnknownMode)) {
			t.Errorf("ParseMode(%q) = %q, %v", c.in, got, err)
		}
	}
}

// TestOneFileTakesAtMostTwoOfTheTopFive: a long note whose every section
// names the query's words would fill the list; it keeps two of the first
// five places when other notes match, and all of them when none does.
func TestOneFileTakesAtMostTwoOfTheTopFive(t *testing.T) {
	ix := indexNotes(t, map[string]string{
		"bees.md": sectioned("Beekeeping", 8,
			section{"Hive", strings.Repeat("Honey bees in the hive make honey. ", 10)},
			section{"Weather", strings.Repeat("Rain and wind all week long. ", 20)}),
		"garden.md": "# Garden\n\nBees visit the lavender; honey comes later.\n",
		"shop.md":   "# Shopping\n\nBuy honey at the market.\n",
		"tea.md":    "# Tea\n\nA spoon of honey in the tea.\n",
	})
	hits := search(t, ix, "honey bees hive", 8)
	if got := byFile(hits[:min(5, len(hits))]); !maps.Equal(got, map[string]int{"notes/bees.md": 2, "notes/garden.md": 1, "notes/shop.md": 1, "notes/tea.md": 1}) {
		t.Errorf("top five by file %v; want bees.md 2 and one each of garden.md, shop.md, tea.md", got)
	}
	if hits[0].Name != "notes/bees.md" {
		t.Errorf("the best passage moved: %s first", hits[0].Name)
	}
	ix.opts.rules.spread = false
	if top := search(t, ix, "honey bees hive", 5); len(top) != 5 || top[2].Name != "notes/bees.md" {
		t.Errorf("without the rule bees.md does not take the third place (%v): the test no longer shows the rule's work", names(top))
	}
	ix.opts.rules.spread = true
	// Only the long note has "hive": it may take every place.
	hits = search(t, ix, "hive", 5)
	for _, h := range hits {
		if h.Name != "notes/bees.md" {
			t.Errorf("hive found %s", h.Name)
		}
	}
	if len(hits) != 5 {
		t.Errorf("%d hits for a word only one file has in many passages, want 5", len(hits))
	}
}

// TestALongNoteDoesNotHideTheOthers: a note of forty matching sections
// holds the first forty places of the ranking, more than the passages the
// arrangement first reads; the other files that match still take their
// places in the top five (an outside test found all ten hits from one note).
func TestALongNoteDoesNotHideTheOthers(t *testing.T) {
	ix := indexNotes(t, map[string]string{
		"many.md": sectioned("White matter", 40,
			section{"Tract", strings.Repeat("White matter tracts and white matter lesions. ", 8)},
			section{"Aside", strings.Repeat("Nothing to see in this paragraph at all. ", 16)}),
		"scan.md":  "# Scan\n\nThe scan showed changes in the white matter.\n",
		"atlas.md": "# Atlas\n\nAn atlas of grey and white matter.\n",
	})
	// Two places each is four: the fifth is the long note's third, since
	// only three files match.
	if got := byFile(search(t, ix, "white matter", 5)); !maps.Equal(got, map[string]int{"notes/many.md": 3, "notes/scan.md": 1, "notes/atlas.md": 1}) {
		t.Errorf("top five by file %v; want scan.md, atlas.md and three of many.md", got)
	}
}

// indexNotes indexes a folder "notes" holding files (name to text), in
// passages of at most 600 bytes so that a long note is many of them.
func indexNotes(t *testing.T, files map[string]string) *Index {
	t.Helper()
	dir := t.TempDir()
	root := filepath.Join(dir, "notes")
	for name, text := range files {
		write(t, filepath.Join(root, name), text)
	}
	ix := openIndex(t, openDB(t, dir), nil, WithChunkSize(600))
	index(t, ix, root)
	return ix
}

// section is a heading (numbered in the note) and its text.
type section struct{ heading, text string }

// sectioned is a note of n sections that match a query, each followed by
// an aside that does not, so that the matching passages never touch.
func sectioned(title string, n int, match, aside section) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", title)
	for i := range n {
		fmt.Fprintf(&b, "## %s %d\n\n%s\n\n## %s %d\n\n%s\n\n", match.heading, i, match.text, aside.heading, i, aside.text)
	}
	return b.String()
}

// byFile counts the hits of each file.
func byFile(hits []Hit) map[string]int {
	n := map[string]int{}
	for _, h := range hits {
		n[h.Name]++
	}
	return n
}

// TestAdjacentPassagesMergeIntoOneCitation: two chunks of one section that
// both match are one citation with the joined lines, not two.
func TestAdjacentPassagesMergeIntoOneCitation(t *testing.T) {
	para := strings.Repeat("The lighthouse keeper logs every ship. ", 12)
	ix := indexNotes(t, map[string]string{
		"log.md":   "# Lighthouse\n\n" + para + "\n\n" + para + "\n\n" + para + "\n",
		"other.md": "# Other\n\nA lighthouse on the coast.\n",
	})
	if n := count(t, ix.db, `SELECT count(*) FROM rag_chunks c JOIN rag_files f ON f.id = c.file_id WHERE f.path LIKE '%log.md'`); n < 2 {
		t.Fatalf("log.md is %d chunk(s); the test needs several", n)
	}
	hits := search(t, ix, "lighthouse keeper ship", 5)
	var logHits []Hit
	for _, h := range hits {
		if h.Name == "notes/log.md" {
			logHits = append(logHits, h)
		}
	}
	if len(logHits) != 1 || logHits[0].StartLine != 1 || logHits[0].EndLine != 7 {
		t.Fatalf("log.md hits %+v; want one citation of lines 1-7", logHits)
	}
	if !reflect.DeepEqual(logHits[0].HeadingPath, []string{"Lighthouse"}) || !strings.Contains(logHits[0].Snippet, "keeper") {
		t.Errorf("merged citation %+v", logHits[0])
	}
}

// TestATableOfContentsRanksBelowTheNotesItLinks: the folder's README links
// every note by its title, so it holds the query's words; the notes come first.
func TestATableOfContentsRanksBelowTheNotesItLinks(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "notes")
	titles := []string{"Sourdough starter feeding", "Pruning apple trees", "Fixing a bicycle puncture", "Sourdough baking temperatures"}
	var readme strings.Builder
	readme.WriteString("# Notes\n\n")
	for i, title := range titles {
		name := fmt.Sprintf("n%d.md", i)
		fmt.Fprintf(&readme, "- [%s](%s)\n", title, name)
		write(t, filepath.Join(root, name), "# "+title+"\n\n"+strings.Repeat("Some everyday words about the matter at hand. ", 5)+
			"The "+strings.ToLower(title)+" is explained here.\n")
	}
	write(t, filepath.Join(root, "README.md"), readme.String())
	ix := openIndex(t, openDB(t, dir), nil)
	index(t, ix, root)
	hits := search(t, ix, "sourdough", 5)
	if len(hits) != 3 || hits[2].Name != "notes/README.md" {
		t.Fatalf("hits %v; want the two sourdough notes, then the README", names(hits))
	}
	ix.opts.rules.demote = false
	if hits := search(t, ix, "sourdough", 5); hits[0].Name != "notes/README.md" {
		t.Errorf("without the rule the README is not first (%v): the test no longer shows the rule's work", names(hits))
	}
}

func names(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Name
	}
	return out
}

func TestNavigationShare(t *testing.T) {
	for _, c := range []struct {
		text     string
		min, max float64
	}{
		{"- [Budget](budget.md)\n- [Plan](plan.md)\n", 0.9, 1},
		{"# Index\n\n## Part one\n\n## Part two\n", 1, 1},
		{"* [[Garden]]\n* [[Kitchen]]\n", 0.9, 1},
		{"See https://example.org/a/long/path for more.", 0.5, 0.8},
		{"The zeppelin budget is tight; see [the plan](plan.md) for the year.", 0.1, 0.4},
		{"Plain prose about tomatoes and the sun.", 0, 0},
		{"", 0, 0},
	} {
		if got := navigationShare(c.text); got < c.min || got > c.max {
			t.Errorf("navigationShare(%q) = %.2f, want %.2f–%.2f", c.text, got, c.min, c.max)
		}
	}
}

func TestSpread(t *testing.T) {
	h := func(file int64) Hit { return Hit{file: file} }
	files := func(hs []Hit) []int64 {
		out := make([]int64, len(hs))
		for i, x := range hs {
			out[i] = x.file
		}
		return out
	}
	for _, c := range []struct {
		in, want []int64
	}{
		{[]int64{1, 1, 1, 1, 2, 3}, []int64{1, 1, 2, 3, 1, 1}},
		{[]int64{1, 1, 1, 2, 2, 2, 3}, []int64{1, 1, 2, 2, 3, 1, 2}},
		{[]int64{1, 1, 1, 1}, []int64{1, 1, 1, 1}}, // one file matches: it keeps every place
		{[]int64{1, 1, 1, 2}, []int64{1, 1, 2, 1}}, // two files, fewer passages than places
		{[]int64{1, 2, 3, 4, 5, 6}, []int64{1, 2, 3, 4, 5, 6}},
		{nil, []int64{}},
	} {
		in := make([]Hit, len(c.in))
		for i, f := range c.in {
			in[i] = h(f)
		}
		if got := files(spread(in, 5, 2)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("spread(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestMatchedTerms(t *testing.T) {
	for _, c := range []struct {
		terms         []string
		heading, text string
		want          []string
	}{
		{[]string{"zeppelin", "budgets", "tax"}, "Plan\x1fBudget", "Zeppelins fly.", []string{"zeppelin", "budgets"}},
		{[]string{"tax", "sun"}, "", "Taxes and the sun.", []string{"sun"}}, // a short word matches only itself
		{[]string{"日本語"}, "", "English only.", nil},
		{[]string{"café"}, "", "Le café est chaud.", []string{"café"}},
	} {
		if got := matchedTerms(c.terms, c.heading, c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("matchedTerms(%q, %q, %q) = %q, want %q", c.terms, c.heading, c.text, got, c.want)
		}
	}
}

// calibrateFor sets c as the calibration of the embedder ix has in use
// (WithCalibration, after Open).
func calibrateFor(ix *Index, c Calibration) {
	WithCalibration(ix.cur().name, c)(&ix.opts)
}
