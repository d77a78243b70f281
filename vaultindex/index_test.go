package vaultindex_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"quire/kernel/store"
	"quire/vault"
	"quire/vaultindex"
	"quire/watch"
)

func openDB(t testing.TB) *sql.DB {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "quire.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st.DB()
}

func write(t testing.TB, dir, rel, text string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func vaultDir(t testing.TB, files map[string]string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for rel, text := range files {
		write(t, dir, rel, text)
	}
	return dir
}

func open(t testing.TB, db *sql.DB, dir string, opts ...vaultindex.Option) *vaultindex.Index {
	t.Helper()
	x, err := vaultindex.Open(context.Background(), db, dir, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

func synced(t testing.TB, db *sql.DB, dir string, opts ...vaultindex.Option) *vaultindex.Index {
	t.Helper()
	x := open(t, db, dir, opts...)
	if err := x.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	return x
}

func paths(hits []vaultindex.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Path)
	}
	return out
}

func search(t testing.TB, x *vaultindex.Index, q string) []string {
	t.Helper()
	hits, err := x.Search(context.Background(), vaultindex.Query{Text: q, Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	return paths(hits)
}

// fixture is a small linked vault: a hub, notes around it, an orphan, an
// unresolved link and an attachment.
var fixture = map[string]string{
	"Hub.md":                "# Hub\n\nThe centre. See [[Alpha]] and [[Beta|the second]].\n",
	"notes/Alpha.md":        "---\ntags: [project]\n---\n# Alpha\n\nAlpha links back to [[Hub]] and to [[Missing note]].\n## Budget\nwith ![[chart.png]]\n",
	"notes/Beta.md":         "# Beta\n\nBeta links to [[Hub#Centre]].\n#project\n",
	"Lonely.md":             "# Lonely\n\nNobody links here and it links nowhere. Zebra crossing.\n",
	"attachments/chart.png": "\x89PNG not really",
}

func TestLinksBacklinksUnresolvedAndOrphans(t *testing.T) {
	t.Parallel()
	x := synced(t, openDB(t), vaultDir(t, fixture))
	l, err := x.Links("Hub.md")
	if err != nil {
		t.Fatal(err)
	}
	var from []string
	for _, r := range l.Backlinks {
		from = append(from, r.From)
	}
	slices.Sort(from)
	if want := []string{"notes/Alpha.md", "notes/Beta.md"}; !slices.Equal(from, want) {
		t.Errorf("backlinks of Hub: %v, want %v", from, want)
	}
	if len(l.Outgoing) != 2 {
		t.Errorf("outgoing of Hub: %+v", l.Outgoing)
	}
	a, err := x.Links("notes/Alpha.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Unresolved) != 1 || a.Unresolved[0].Link.Target != "Missing note" {
		t.Errorf("unresolved of Alpha: %+v", a.Unresolved)
	}
	for _, r := range a.Outgoing {
		if r.Link.Target == "chart.png" && r.To != "attachments/chart.png" {
			t.Errorf("the embed resolves to %q", r.To)
		}
	}
	if got := x.Orphans(); !slices.Equal(got, []string{"Lonely.md"}) {
		t.Errorf("orphans %v", got)
	}
	if _, err := x.Links("nope.md"); err == nil {
		t.Error("a note not there has links")
	}
}

func TestSearchRanksTitlesFiltersAndQuotesEveryQuery(t *testing.T) {
	t.Parallel()
	x := synced(t, openDB(t), vaultDir(t, map[string]string{
		"Gardening.md":  "# Gardening\n\nTomatoes and basil.\n",
		"misc/Diary.md": "# Diary\n\nline two\nI did some gardening today.\n",
		"work/Plan.md":  "---\ntags: [work/q1]\n---\n# Plan\n\ngardening budget\n",
		"work/Other.md": "# Other\n\ngardening too\n",
	}))
	ctx := context.Background()
	hits, err := x.Search(ctx, vaultindex.Query{Text: "gardening", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 4 || hits[0].Path != "Gardening.md" {
		t.Fatalf("hits %v: the note titled so comes first", paths(hits))
	}
	for _, h := range hits {
		if h.Path == "misc/Diary.md" && (h.Line != 4 || !strings.Contains(h.Snippet, "gardening today")) {
			t.Errorf("diary hit at line %d %q, want line 4", h.Line, h.Snippet)
		}
	}
	for _, tc := range []struct {
		name string
		q    vaultindex.Query
		want []string
	}{
		{"folder", vaultindex.Query{Text: "gardening", Folder: "work"}, []string{"work/Other.md", "work/Plan.md"}},
		{"tag and its children", vaultindex.Query{Text: "gardening", Tags: []string{"#work"}}, []string{"work/Plan.md"}},
		{"exact tag", vaultindex.Query{Text: "gardening", Tags: []string{"work/q1"}}, []string{"work/Plan.md"}},
		{"no such tag", vaultindex.Query{Text: "gardening", Tags: []string{"wor"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hits, err := x.Search(ctx, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			got := paths(hits)
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	for _, q := range []string{`"`, `AND OR NOT`, `title:x*`, `(gardening`, `NEAR(a b)`, `^`, ``} {
		if _, err := x.Search(ctx, vaultindex.Query{Text: q}); err != nil {
			t.Errorf("query %q: %v", q, err)
		}
	}
}

func TestRestartWithNothingChangedParsesNothing(t *testing.T) {
	t.Parallel()
	db, dir := openDB(t), vaultDir(t, fixture)
	first := synced(t, db, dir)
	if first.Parses() != 4 {
		t.Fatalf("first index parsed %d notes, want 4", first.Parses())
	}
	first.Close()
	again := synced(t, db, dir)
	if n := again.Parses(); n != 0 {
		t.Errorf("a restart with nothing changed parsed %d notes", n)
	}
	if l, err := again.Links("Hub.md"); err != nil || len(l.Backlinks) != 2 {
		t.Errorf("the graph loaded from the tables: %+v, %v", l, err)
	}
	if got := search(t, again, "zebra"); !slices.Equal(got, []string{"Lonely.md"}) {
		t.Errorf("search after restart: %v", got)
	}
	// a change while closed is found, and only it is read
	again.Close()
	write(t, dir, "Lonely.md", "# Lonely\n\nNow it links to [[Hub]]. Giraffe.\n")
	if err := os.Remove(filepath.Join(dir, "notes", "Beta.md")); err != nil {
		t.Fatal(err)
	}
	third := synced(t, db, dir)
	if n := third.Parses(); n != 1 {
		t.Errorf("parsed %d notes, want the 1 changed", n)
	}
	if got := search(t, third, "giraffe"); !slices.Equal(got, []string{"Lonely.md"}) {
		t.Errorf("changed note: %v", got)
	}
	if got := search(t, third, "beta"); slices.Contains(got, "notes/Beta.md") {
		t.Errorf("a removed note is still found: %v", got)
	}
}

func TestBrokenNotesAreListedAndTheRestIndexed(t *testing.T) {
	t.Parallel()
	dir := vaultDir(t, map[string]string{
		"good.md":        "# Good\n\nkiwi\n",
		"huge.md":        "# Huge\n\nkiwi " + strings.Repeat("x", 2<<20),
		"binary.md":      "kiwi\x00\x01\x02",
		"latin1.md":      "kiwi caf\xe9",
		"frontmatter.md": "---\ntags: [unclosed\n---\n# Front\n\nkiwi\n",
		"long.md":        "# Long\n\nkiwi\n" + strings.Repeat("é", 300<<10) + "\nmango\n",
	})
	lim := vault.DefaultLimits()
	lim.MaxNoteBytes = 1 << 20
	x := synced(t, openDB(t), dir, vaultindex.WithLimits(lim))
	problems, err := x.Problems(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for _, p := range problems {
		reasons[p.Path] = p.Reason
	}
	for path, want := range map[string]string{"huge.md": "larger than", "binary.md": "binary", "latin1.md": "UTF-8", "frontmatter.md": "front matter",
		"long.md": "first 512 KiB"} {
		if !strings.Contains(reasons[path], want) {
			t.Errorf("%s: reason %q, want it to say %q", path, reasons[path], want)
		}
	}
	got := search(t, x, "kiwi")
	slices.Sort(got)
	if want := []string{"frontmatter.md", "good.md", "long.md"}; !slices.Equal(got, want) {
		t.Errorf("found %v, want %v", got, want)
	}
	if got := search(t, x, "mango"); len(got) != 0 {
		t.Errorf("words past the searched part are found: %v", got)
	}
}

func TestTheFileBoundIsSaid(t *testing.T) {
	t.Parallel()
	dir := vaultDir(t, map[string]string{"a.md": "a", "b.md": "b", "c.md": "c"})
	lim := vault.DefaultLimits()
	lim.MaxFiles = 2
	x := synced(t, openDB(t), dir, vaultindex.WithLimits(lim))
	problems, err := x.Problems(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) == 0 || !strings.Contains(problems[0].Reason, "more than 2 files") {
		t.Errorf("problems %+v: the bound is not said", problems)
	}
	if n := len(x.Graph().Paths()); n != 2 {
		t.Errorf("%d notes indexed, want 2", n)
	}
}

func TestHiddenFoldersAndLinksAreNeverIndexed(t *testing.T) {
	t.Parallel()
	outside := vaultDir(t, map[string]string{"secret.md": "# Secret\n\nplatypus\n"})
	dir := vaultDir(t, map[string]string{
		"seen.md":             "# Seen\n\nplatypus\n",
		".obsidian/plugin.md": "platypus",
		".trash/old.md":       "platypus",
		".git/notes.md":       "platypus",
		"a/.hidden/deep.md":   "platypus",
		".dotnote.md":         "platypus",
	})
	if err := os.Symlink(outside, filepath.Join(dir, "linked")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "secret.md")); err != nil {
		t.Fatal(err)
	}
	updates := make(chan vaultindex.Update, 16)
	x := synced(t, openDB(t), dir, vaultindex.WithOnUpdate(func(u vaultindex.Update) { updates <- u }),
		vaultindex.WithWatch(watch.WithDebounce(10*time.Millisecond)))
	<-updates
	if err := x.Watch(); err != nil {
		t.Fatal(err)
	}
	write(t, dir, ".obsidian/later.md", "platypus")
	write(t, dir, ".trash/later.md", "platypus")
	marker := "marker.md"
	write(t, dir, marker, "# Marker\n")
	waitFor(t, updates, marker)
	if got := search(t, x, "platypus"); !slices.Equal(got, []string{"seen.md"}) {
		t.Errorf("found %v, want only seen.md", got)
	}
	if got := x.Graph().Paths(); !slices.Equal(got, []string{"marker.md", "seen.md"}) {
		t.Errorf("graph %v", got)
	}
	// a note replaced by a link to a file outside is dropped, not followed
	seen := filepath.Join(dir, "seen.md")
	if err := os.Remove(seen); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.md"), seen); err != nil {
		t.Fatal(err)
	}
	waitFor(t, updates, "seen.md")
	if got := search(t, x, "platypus"); len(got) != 0 {
		t.Errorf("found %v through a link", got)
	}
}

// waitFor reads updates until one names rel; the test's deadline bounds it.
func waitFor(t testing.TB, updates <-chan vaultindex.Update, rel string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case u := <-updates:
			if u.Err != nil {
				t.Fatal(u.Err)
			}
			if slices.Contains(u.Paths, rel) {
				return
			}
		case <-deadline:
			t.Fatalf("%s was never indexed", rel)
		}
	}
}

func TestANoteSavedByAnotherProgramIsSearchable(t *testing.T) {
	t.Parallel()
	dir := vaultDir(t, fixture)
	updates := make(chan vaultindex.Update, 64)
	x := synced(t, openDB(t), dir, vaultindex.WithOnUpdate(func(u vaultindex.Update) { updates <- u }),
		vaultindex.WithWatch(watch.WithDebounce(10*time.Millisecond)))
	if err := x.Watch(); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "inbox/new idea.md", "# New idea\n\nAn okapi, linked to [[Lonely]].\n")
	waitFor(t, updates, "inbox/new idea.md")
	if got := search(t, x, "okapi"); !slices.Equal(got, []string{"inbox/new idea.md"}) {
		t.Errorf("found %v", got)
	}
	if x.Orphans() != nil && slices.Contains(x.Orphans(), "Lonely.md") {
		t.Error("the graph did not take the new link")
	}
	// an edit replaces the words; a removal drops the note
	write(t, dir, "inbox/new idea.md", "# New idea\n\nA wombat now.\n")
	waitFor(t, updates, "inbox/new idea.md")
	if got := search(t, x, "okapi"); len(got) != 0 {
		t.Errorf("old words still found: %v", got)
	}
	if err := os.RemoveAll(filepath.Join(dir, "inbox")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, updates, "inbox/new idea.md")
	if got := search(t, x, "wombat"); len(got) != 0 {
		t.Errorf("a removed note is found: %v", got)
	}
}

func TestRelatedNotes(t *testing.T) {
	t.Parallel()
	x := synced(t, openDB(t), vaultDir(t, fixture))
	rel, err := x.Related(context.Background(), "notes/Alpha.md", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(rel) == 0 || rel[0].Path != "Hub.md" {
		t.Fatalf("related %+v: Hub links both ways and comes first", rel)
	}
	var beta bool
	for _, r := range rel {
		if r.Path == "notes/Beta.md" {
			beta = slices.Contains(r.Reasons, "shares the tag #project")
		}
		if r.Path == "Lonely.md" {
			t.Errorf("an unrelated note is related: %+v", r)
		}
	}
	if !beta {
		t.Errorf("Beta shares the tag: %+v", rel)
	}
}

// TestSearchOfCommonWordsRanksByTitlesFirst: past 1,000 notes a word in
// most of them is dropped beside a rarer one, and alone it ranks titles,
// aliases and headings, then fills with notes holding it in their text.
func TestSearchOfCommonWordsRanksByTitlesFirst(t *testing.T) {
	t.Parallel()
	files := map[string]string{"Common ground.md": "# Common ground\n\nA meadow and a rareword.\n"}
	for i := range 1100 {
		files[fmt.Sprintf("n/%04d.md", i)] = fmt.Sprintf("# N%d\n\nsome common text %d\n", i, i)
	}
	x := synced(t, openDB(t), vaultDir(t, files))
	if got := search(t, x, "common rareword"); !slices.Equal(got, []string{"Common ground.md"}) {
		t.Errorf("common rareword: %v, want the one note with the rare word", got)
	}
	hits, err := x.Search(context.Background(), vaultindex.Query{Text: "common", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 5 || hits[0].Path != "Common ground.md" {
		t.Errorf("common: %v, want the titled note first and 5 hits", paths(hits))
	}
	for _, h := range hits[1:] {
		if !strings.HasPrefix(h.Path, "n/") || h.Line != 3 {
			t.Errorf("a fill hit %+v", h)
		}
	}
}

// TestAWatchThatLostEventsRescans: a watch over its folder bound (as one
// that overflowed) asks for a rescan, and the index reconciles the whole
// folder without being told which notes changed.
func TestAWatchThatLostEventsRescans(t *testing.T) {
	t.Parallel()
	dir := vaultDir(t, map[string]string{"a/one.md": "# One\n\nemu\n", "b/two.md": "# Two\n\nemu\n"})
	updates := make(chan vaultindex.Update, 16)
	x := open(t, openDB(t), dir, vaultindex.WithOnUpdate(func(u vaultindex.Update) { updates <- u }),
		vaultindex.WithWatch(watch.WithMaxFolders(1), watch.WithDebounce(10*time.Millisecond)))
	if err := x.Watch(); err != nil {
		t.Fatal(err)
	}
	select {
	case u := <-updates:
		if !u.Rescan || u.Err != nil {
			t.Fatalf("first update %+v, want a rescan", u)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the watch over its bound never asked for a rescan")
	}
	got := search(t, x, "emu")
	slices.Sort(got)
	if !slices.Equal(got, []string{"a/one.md", "b/two.md"}) {
		t.Errorf("after the rescan: %v", got)
	}
}

// TestAnEditIsIndexedWhileAReconcileRuns: the start's reconcile of a large
// folder holds the write lock only for each batch's commit, so a note the
// watch reports meanwhile is committed before the reconcile ends (it used
// to wait for the whole reconcile: 3.9 s at 20,000 notes), and the
// reconcile does not drop it or store an older text over it.
func TestAnEditIsIndexedWhileAReconcileRuns(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 600 { // more than one batch of the reconcile
		files[fmt.Sprintf("f/Note %03d.md", i)] = fmt.Sprintf("# Note %d\n\nplain words %d\n", i, i)
	}
	dir := vaultDir(t, files)
	var x *vaultindex.Index
	applied := make(chan error, 1)
	midway := func(done, total int) {
		if done == total || len(applied) > 0 {
			return
		}
		// Another program saves two notes while the reconcile is midway;
		// the watch's batch is applied from its own goroutine.
		write(t, dir, "inbox/saved elsewhere.md", "# Saved\n\nA pangolin.\n")
		write(t, dir, "f/Note 000.md", "# Note 0\n\nnow a narwhal\n")
		go func() {
			applied <- x.Apply(context.Background(), []string{"inbox/saved elsewhere.md", "f/Note 000.md"})
		}()
		select {
		case err := <-applied:
			applied <- err
		case <-time.After(30 * time.Second): // a guard against a hang, not a measure
			t.Error("the watch's batch waited for the whole reconcile")
		}
	}
	x = open(t, openDB(t), dir, vaultindex.WithProgress(midway))
	if err := x.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := <-applied; err != nil {
		t.Fatal(err)
	}
	if got := search(t, x, "pangolin"); !slices.Equal(got, []string{"inbox/saved elsewhere.md"}) {
		t.Errorf("pangolin: %v", got)
	}
	if got := search(t, x, "narwhal"); !slices.Equal(got, []string{"f/Note 000.md"}) {
		t.Errorf("narwhal: %v (the edit was lost)", got)
	}
	if x.Count() != 601 {
		t.Errorf("%d notes indexed, want 601", x.Count())
	}
}

// TestTheWatchGoesOnWhileItsRescanRuns: a watch holding fewer folders than
// the vault has asks for a rescan as it starts; that reconcile runs beside
// the watch, so a note saved meanwhile is indexed before it ends (the
// watch's delivery used to run it, and every edit waited behind it).
func TestTheWatchGoesOnWhileItsRescanRuns(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 600 { // more than one batch of the reconcile
		files[fmt.Sprintf("f/Note %03d.md", i)] = fmt.Sprintf("# Note %d\n\nplain words %d\n", i, i)
	}
	dir := vaultDir(t, files)
	edited := make(chan struct{})
	var seen, asked sync.Once
	updates := make(chan vaultindex.Update, 64)
	onUpdate := func(u vaultindex.Update) {
		if slices.Contains(u.Paths, "fresh.md") {
			seen.Do(func() { close(edited) })
		}
		updates <- u
	}
	midway := func(done, total int) {
		if done == total {
			return
		}
		asked.Do(func() {
			write(t, dir, "fresh.md", "# Fresh\n\nA quetzal.\n")
			select {
			case <-edited:
			case <-time.After(30 * time.Second): // a guard against a hang, not a measure
				t.Error("the watch's batch waited for the whole rescan")
			}
		})
	}
	x := open(t, openDB(t), dir, vaultindex.WithOnUpdate(onUpdate), vaultindex.WithProgress(midway),
		vaultindex.WithWatch(watch.WithMaxFolders(1), watch.WithDebounce(10*time.Millisecond)))
	if err := x.Watch(); err != nil {
		t.Fatal(err)
	}
	for u := range updates {
		if u.Rescan {
			if u.Err != nil {
				t.Fatal(u.Err)
			}
			break
		}
	}
	if got := search(t, x, "quetzal"); !slices.Equal(got, []string{"fresh.md"}) {
		t.Errorf("quetzal: %v", got)
	}
	if x.Count() != 601 {
		t.Errorf("%d notes indexed, want 601", x.Count())
	}
}
