package vaultindex_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"quire/kernel/store"
	"quire/vault/vaultgen"
	"quire/vaultindex"
	"quire/watch"
)

// benchNotes is the size of the generated vault (QUIRE_BENCH_NOTES to
// change it; the figures are for 20,000).
func benchNotes() int {
	if n, err := strconv.Atoi(os.Getenv("QUIRE_BENCH_NOTES")); err == nil && n > 0 {
		return n
	}
	return 20000
}

const benchHubs = 10

// generate writes a vault of n notes in folders of 100: front matter with
// tags and aliases, about 300 words from a skewed vocabulary, about 10
// links a note of which 3 go to one of 10 hubs (so each hub has thousands
// of backlinks), some to headings, some unresolved, and a few embeds.
func generate(tb testing.TB, dir string, n int) {
	tb.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	vocab := benchVocab()
	word := func() string {
		// squared uniform: a few words are common, most are rare
		x := r.Float64()
		return vocab[int(x*x*float64(len(vocab)))]
	}
	name := func(i int) string {
		if i < benchHubs {
			return fmt.Sprintf("Hub %d", i)
		}
		return fmt.Sprintf("Note %05d", i)
	}
	rel := func(i int) string { return fmt.Sprintf("f%03d/%s.md", i/100, name(i)) }
	for i := range 20 {
		p := filepath.Join(dir, "attachments", fmt.Sprintf("img%02d.png", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("\x89PNG"), 0o644)
	}
	var b strings.Builder
	for i := range n {
		b.Reset()
		fmt.Fprintf(&b, "---\ntags: [topic%d, area/%d]\naliases: [%s %s]\n---\n# %s\n\n", i%50, i%7, word(), word(), name(i))
		for s := range 3 {
			fmt.Fprintf(&b, "## %s %s\n\n", word(), word())
			for w := range 100 {
				b.WriteString(word())
				if w%12 == 11 {
					b.WriteString(".\n")
				} else {
					b.WriteByte(' ')
				}
				if w%30 == 29 {
					switch k := r.IntN(10); {
					case k < 3:
						fmt.Fprintf(&b, "[[%s]] ", name(r.IntN(benchHubs)))
					case k < 4:
						fmt.Fprintf(&b, "[[Missing %d]] ", r.IntN(1000))
					case k < 5 && s == 0:
						fmt.Fprintf(&b, "![[img%02d.png]] ", r.IntN(20))
					default:
						fmt.Fprintf(&b, "[[%s|see]] ", name(r.IntN(n)))
					}
				}
			}
			b.WriteString("\n\n")
		}
		p := filepath.Join(dir, filepath.FromSlash(rel(i)))
		if i%100 == 0 {
			os.MkdirAll(filepath.Dir(p), 0o755)
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	filepath.WalkDir(dir, func(p string, _ os.DirEntry, _ error) error { return os.Chtimes(p, old, old) })
}

// vaultgenVault: QUIRE_BENCH_GEN=vaultgen benchmarks the vault lane's
// generator (link-realistic, from a 30-word vocabulary) instead of this
// file's (text-realistic: 3,000 words of skewed frequency).
func vaultgenVault() bool { return os.Getenv("QUIRE_BENCH_GEN") == "vaultgen" }

// benchVocab is the generator's vocabulary: word i is rarer as i grows.
func benchVocab() []string {
	vocab := make([]string, 3000)
	for i := range vocab {
		var b strings.Builder
		for j := 0; j < 3+i%6; j++ {
			b.WriteByte(byte('a' + (i*7+j*13+j*j)%26))
		}
		vocab[i] = b.String() + strconv.Itoa(i%97)
	}
	return vocab
}

// generated is one vault per benchmark run, kept for the run's benchmarks.
var generated = map[int]string{}

func benchVault(b *testing.B) string {
	n := benchNotes()
	if d, ok := generated[n]; ok {
		return d
	}
	dir, err := os.MkdirTemp("", "quire-bench-vault-")
	if err != nil {
		b.Fatal(err)
	}
	if vaultgenVault() {
		if err := vaultgen.Generate(dir, n, 1); err != nil {
			b.Fatal(err)
		}
	} else {
		generate(b, dir, n)
	}
	generated[n] = dir
	return dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if indexed != nil {
		indexed.Close()
	}
	if floorDB != nil {
		floorDB.Close()
	}
	for _, d := range generated {
		os.RemoveAll(d)
		for _, suffix := range []string{".db", ".db-wal", ".db-shm", ".floor.db", ".floor.db-wal", ".floor.db-shm"} {
			os.Remove(d + suffix)
		}
	}
	os.Exit(code)
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// reportFloor prints a figure beside its floor and their ratio, in the
// unit both were measured in.
func reportFloor(b *testing.B, figure, floor float64, unit string) {
	b.ReportMetric(figure, unit)
	b.ReportMetric(floor, "floor-"+unit)
	if floor > 0 {
		b.ReportMetric(figure/floor, "x-floor-"+strings.TrimSuffix(unit, "/op"))
	}
}

// BenchmarkFirstIndex: a vault never seen, read, parsed and stored. Its
// floor, run after each index with the timer stopped: every note's bytes
// read and inserted into a bare FTS5 table in one transaction.
func BenchmarkFirstIndex(b *testing.B) {
	dir := benchVault(b)
	var cpu, floorCPU float64
	var wall, floorWall time.Duration
	for b.Loop() {
		db := openDB(b)
		before, start := cpuSeconds(), time.Now()
		x, err := vaultindex.Open(context.Background(), db, dir)
		if err != nil {
			b.Fatal(err)
		}
		if err := x.Sync(context.Background()); err != nil {
			b.Fatal(err)
		}
		cpu += cpuSeconds() - before
		wall += time.Since(start)
		x.Close()

		b.StopTimer()
		fdb := openFloorDB(b, filepath.Join(b.TempDir(), "floor.db"))
		before, start = cpuSeconds(), time.Now()
		floorIndex(b, fdb, dir)
		floorCPU += cpuSeconds() - before
		floorWall += time.Since(start)
		fdb.Close()
		b.StartTimer()
	}
	n := float64(b.N)
	reportFloor(b, cpu/n, floorCPU/n, "cpu-s/op")
	reportFloor(b, wall.Seconds()*1000/n, floorWall.Seconds()*1000/n, "ms/op")
	b.ReportMetric(float64(benchNotes()), "notes")
}

// indexed is the database of the generated vault, indexed once for the
// run's benchmarks that start from an index.
var indexed *store.Store

func indexedVault(b *testing.B) (string, *vaultindex.Index, func() *vaultindex.Index) {
	dir := benchVault(b)
	if indexed == nil {
		st, err := store.Open(context.Background(), dir+".db")
		if err != nil {
			b.Fatal(err)
		}
		indexed = st
	}
	db := indexed.DB()
	x, err := vaultindex.Open(context.Background(), db, dir)
	if err != nil {
		b.Fatal(err)
	}
	if err := x.Sync(context.Background()); err != nil {
		b.Fatal(err)
	}
	reopen := func() *vaultindex.Index {
		y, err := vaultindex.Open(context.Background(), db, dir)
		if err != nil {
			b.Fatal(err)
		}
		return y
	}
	return dir, x, reopen
}

// BenchmarkStartNothingChanged: a start over an indexed vault: the graph
// loaded from the tables and a reconciling scan that parses nothing. Its
// floor: the folder walked and every file stat'd, the least a reconcile
// can do.
func BenchmarkStartNothingChanged(b *testing.B) {
	dir, x, reopen := indexedVault(b)
	x.Close()
	var parses int64
	var cpu, floorCPU float64
	var wall, floorWall time.Duration
	for b.Loop() {
		before, start := cpuSeconds(), time.Now()
		y := reopen()
		if err := y.Sync(context.Background()); err != nil {
			b.Fatal(err)
		}
		cpu += cpuSeconds() - before
		wall += time.Since(start)
		parses += y.Parses()
		y.Close()

		b.StopTimer()
		before, start = cpuSeconds(), time.Now()
		floorStat(b, dir)
		floorCPU += cpuSeconds() - before
		floorWall += time.Since(start)
		b.StartTimer()
	}
	if parses != 0 {
		b.Fatalf("a start with nothing changed parsed %d notes", parses)
	}
	n := float64(b.N)
	reportFloor(b, cpu/n, floorCPU/n, "cpu-s/op")
	reportFloor(b, wall.Seconds()*1000/n, floorWall.Seconds()*1000/n, "ms/op")
}

// BenchmarkOutsideEditSearchable: from another program's write of a note
// to the note found by search, through the watch (debounce included). Its
// floor, run after each edit with the timer stopped: a bare fsnotify watch
// seeing the same write, the note read and inserted once into the bare
// FTS5 table of the vault's text, and the word found by MATCH. The floor's
// note is written in a folder of its own, so the index's watch does not
// work while the floor is measured.
func BenchmarkOutsideEditSearchable(b *testing.B) {
	dir, first, _ := indexedVault(b)
	first.Close()
	fdb := floorIndexed(b, dir)
	fdir := b.TempDir()
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		b.Fatal(err)
	}
	defer fw.Close()
	if err := fw.Add(fdir); err != nil {
		b.Fatal(err)
	}
	var wall, floorWall time.Duration
	updates := make(chan vaultindex.Update, 64)
	db := indexed.DB()
	x, err := vaultindex.Open(context.Background(), db, dir, vaultindex.WithOnUpdate(func(u vaultindex.Update) { updates <- u }),
		vaultindex.WithWatch(watch.WithDebounce(watch.DefaultDebounce)))
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	if err := x.Sync(context.Background()); err != nil {
		b.Fatal(err)
	}
	<-updates
	if err := x.Watch(); err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		i++
		rel := fmt.Sprintf("Edited %d.md", i)
		word := fmt.Sprintf("quokka%dx", i)
		text := []byte("# Edited\n\nA " + word + " here, see [[Hub 1]].\n")
		start := time.Now()
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(rel)), text, 0o644); err != nil {
			b.Fatal(err)
		}
		deadline := time.After(30 * time.Second)
		for seen := false; !seen; {
			select {
			case u := <-updates:
				seen = slices.Contains(u.Paths, rel) || u.Rescan
			case <-deadline:
				b.Fatalf("%s was never indexed through the watch", rel)
			}
		}
		hits, err := x.Search(context.Background(), vaultindex.Query{Text: word, Limit: 5})
		if err != nil || len(hits) != 1 || hits[0].Path != rel {
			b.Fatalf("search %q: %v, %v", word, hits, err)
		}
		wall += time.Since(start)

		b.StopTimer()
		floorWall += floorEdit(b, fdb, fw, filepath.Join(fdir, rel), text, word)
		b.StartTimer()
	}
	b.StopTimer()
	n := float64(b.N)
	reportFloor(b, wall.Seconds()*1000/n, floorWall.Seconds()*1000/n, "ms/op")
	for j := 1; j <= i; j++ {
		os.Remove(filepath.Join(dir, fmt.Sprintf("Edited %d.md", j)))
	}
	fdb.Exec(`DELETE FROM floor_fts WHERE path LIKE 'Edited %'`)
}

// floorEdit writes text to p, waits for the bare watch to see the write,
// reads the note and inserts it into the bare table (no debounce), and
// finds word by MATCH; it returns how long that took.
func floorEdit(b *testing.B, db *sql.DB, w *fsnotify.Watcher, p string, text []byte, word string) time.Duration {
	start := time.Now()
	if err := os.WriteFile(p, text, 0o644); err != nil {
		b.Fatal(err)
	}
	deadline := time.After(30 * time.Second)
	for seen := false; !seen; {
		select {
		case ev := <-w.Events:
			seen = ev.Name == p && ev.Has(fsnotify.Write)
		case err := <-w.Errors:
			b.Fatal(err)
		case <-deadline:
			b.Fatalf("the bare watch never saw %s written", p)
		}
	}
	got, err := os.ReadFile(p)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO floor_fts(path, body) VALUES (?, ?)`, filepath.Base(p), string(got)); err != nil {
		b.Fatal(err)
	}
	hits, err := floorSearch(context.Background(), db, word, 5)
	if err != nil || len(hits) != 1 {
		b.Fatalf("floor search %q: %v, %v", word, hits, err)
	}
	return time.Since(start)
}

// BenchmarkSearch: ranked search of 1–3 word queries (16 an op), with
// p50 and p95 of each search. Its floor, run after each op with the timer
// stopped: the same queries as bm25 MATCH on the bare FTS5 table of the
// same text.
func BenchmarkSearch(b *testing.B) {
	dir, x, _ := indexedVault(b)
	defer x.Close()
	fdb := floorIndexed(b, dir)
	// words of every frequency (the generator's word i is in about
	// (1-sqrt(i/3000)) of the text's draws), titles, and words never used
	v := benchVocab()
	if vaultgenVault() {
		v = make([]string, 3000)
		for i := range v {
			v[i] = []string{"river garden", "budget", "meeting notes", "Projects Hub", "travel plan", "kitchen recipe", "people", "index"}[i%8]
		}
	}
	queries := []string{v[2900], v[2500], v[2000], v[1500], v[1000], v[500], v[100], v[10],
		v[2700] + " " + v[1200], v[800] + " " + v[2200] + " " + v[2950], "Hub 3", "Note 01234", "hub", "missing",
		"kangaroo", "budget plan for the garden"}
	hits, _ := x.Search(context.Background(), vaultindex.Query{Text: "hub", Limit: 10})
	if len(hits) == 0 {
		b.Fatal("no hit for hub")
	}
	var times, floors []time.Duration
	for b.Loop() { // every query once an iteration: enough samples for a p50 at 3x
		for _, q := range queries {
			start := time.Now()
			if _, err := x.Search(context.Background(), vaultindex.Query{Text: q, Limit: 10}); err != nil {
				b.Fatal(err)
			}
			times = append(times, time.Since(start))
		}
		b.StopTimer()
		for _, q := range queries {
			start := time.Now()
			if _, err := floorSearch(context.Background(), fdb, q, 10); err != nil {
				b.Fatal(err)
			}
			floors = append(floors, time.Since(start))
		}
		b.StartTimer()
	}
	slices.Sort(times)
	slices.Sort(floors)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	reportFloor(b, ms(times[len(times)/2]), ms(floors[len(floors)/2]), "p50-ms")
	reportFloor(b, ms(times[len(times)*95/100]), ms(floors[len(floors)*95/100]), "p95-ms")
}

// BenchmarkIndexMemory: the heap the loaded graph holds (the index's own
// memory; SQLite's page cache is the store's).
func BenchmarkIndexMemory(b *testing.B) {
	_, x, reopen := indexedVault(b)
	x.Close()
	var heap float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		y := reopen()
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap += float64(after.HeapAlloc) - float64(before.HeapAlloc)
		runtime.KeepAlive(y)
		y.Close()
	}
	b.ReportMetric(heap/float64(b.N)/(1<<20), "heap-MiB")
}

// BenchmarkLinksAfterEdit: a hub's backlinks asked right after a note
// changed: the graph resolves its links again once a change made it stale
// (vault.Vault), which note_links, related_notes and the Notes panel pay.
func BenchmarkLinksAfterEdit(b *testing.B) {
	dir, x, _ := indexedVault(b)
	defer x.Close()
	rel, hub := "f000/Note 00042.md", "f000/Hub 2.md"
	if vaultgenVault() {
		hub = vaultgen.Hubs()[0]
		rel = x.Graph().Paths()[len(x.Graph().Paths())/2]
	}
	p := filepath.Join(dir, filepath.FromSlash(rel))
	orig, err := os.ReadFile(p)
	if err != nil {
		b.Fatal(err)
	}
	defer os.WriteFile(p, orig, 0o644)
	i := 0
	for b.Loop() {
		i++
		os.WriteFile(p, append(orig, fmt.Sprintf("\nedit %d [[%s]]\n", i, strings.TrimSuffix(hub, ".md"))...), 0o644)
		if err := x.Apply(context.Background(), []string{rel}); err != nil {
			b.Fatal(err)
		}
		l, err := x.Links(hub)
		if err != nil || len(l.Backlinks) == 0 {
			b.Fatalf("hub links: %d, %v", len(l.Backlinks), err)
		}
	}
}
