package rag

import (
	"bufio"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"quire/rag/hashvec"
)

// The SciFact evaluation (docs/BENCHMARKS-NOTEBOOK.md) runs only when given the data:
//
//	go test ./rag -run TestSciFact -v -timeout 30m -scifact ../../shared/data/scifact
//
// It writes the 5,183 abstracts as Markdown files ("# title", blank line,
// abstract), indexes them through the public API with the offline
// embedder, and scores the 809 training claims three ways — lexical arm
// only, vector arm only, fused — after collapsing chunk hits to documents
// (best rank per document). It also times indexing, a no-op re-index and
// queries at 5k and at about 50k chunks.
var (
	scifactDir   = flag.String("scifact", "", "SciFact data folder (docs.jsonl, queries_train.jsonl, qrels_train.tsv); empty skips the evaluation")
	scifactSweep = flag.Bool("scifact.sweep", false, "also try other chunk sizes, embedder settings, bm25 weights and RRF k")
	scifactVW    = flag.Float64("scifact.vw", 0, "weight of the vector list in the hybrid mode's fusion; 0 = the index's default")
	scifactMaxDF = flag.Float64("scifact.maxdf", -1, "lexical max df share for the main and 50k runs; -1 = the default")
	scifact50k   = flag.Bool("scifact.50k", true, "also build a ~50k-chunk index and time queries on it")
	scifactDims  = flag.Int("scifact.dims", 0, "dimensions of the offline embedder for the main and 50k runs; 0 = the default")
	scifactStand = flag.Bool("scifact.standin", true, "also calibrate a stand-in embedding model (the built-in embedder presented as a model) on the tune claims and check it on the held-out ones")
	scifactOut   = flag.String("scifact.subset", "", "write the held-out subset that TestSciFactSubset reads to this folder (rag/testdata/scifact)")
)

type sfDoc struct{ ID, Title, Text string }
type sfQuery struct{ ID, Text string }

func loadSciFact(t testing.TB, dir string) ([]sfDoc, []sfQuery, map[string]map[string]bool) {
	return loadSciFactFiles(t, filepath.Join(dir, "docs.jsonl"), filepath.Join(dir, "queries_train.jsonl"), filepath.Join(dir, "qrels_train.tsv"))
}

func loadSciFactFiles(t testing.TB, docsPath, queriesPath, qrelsPath string) ([]sfDoc, []sfQuery, map[string]map[string]bool) {
	t.Helper()
	var docs []sfDoc
	readJSONL(t, docsPath, func(b []byte) {
		var d struct{ ID, Title, Text string }
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, sfDoc{d.ID, d.Title, d.Text})
	})
	var queries []sfQuery
	readJSONL(t, queriesPath, func(b []byte) {
		var q struct{ ID, Text string }
		if err := json.Unmarshal(b, &q); err != nil {
			t.Fatal(err)
		}
		queries = append(queries, sfQuery{q.ID, q.Text})
	})
	qrels := map[string]map[string]bool{}
	f, err := os.Open(qrelsPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.Split(sc.Text(), "\t")
		if len(parts) != 3 || parts[0] == "query_id" {
			continue
		}
		if rel, _ := strconv.Atoi(parts[2]); rel > 0 {
			if qrels[parts[0]] == nil {
				qrels[parts[0]] = map[string]bool{}
			}
			qrels[parts[0]][parts[1]] = true
		}
	}
	// Only judged queries count, as in BEIR.
	judged := queries[:0]
	for _, q := range queries {
		if len(qrels[q.ID]) > 0 {
			judged = append(judged, q)
		}
	}
	return docs, judged, qrels
}

func readJSONL(t testing.TB, path string, fn func([]byte)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		defer z.Close()
		r = z
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		fn(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// writeCorpus writes each document as <id>.md under dir.
func writeCorpus(t testing.TB, dir string, docs []sfDoc, transform func(sfDoc) string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	for _, d := range docs {
		body := "# " + d.Title + "\n\n" + d.Text + "\n"
		if transform != nil {
			body = transform(d)
		}
		p := filepath.Join(dir, d.ID+".md")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, old, old)
	}
}

// metrics at 10 for one ranked list of document ids.
type metrics struct{ ndcg, recall, mrr float64 }

func score(ranked []string, rel map[string]bool) metrics {
	var m metrics
	var dcg float64
	found := 0
	for i, id := range ranked[:min(10, len(ranked))] {
		if rel[id] {
			dcg += 1 / math.Log2(float64(i)+2)
			found++
			if m.mrr == 0 {
				m.mrr = 1 / float64(i+1)
			}
		}
	}
	var idcg float64
	for i := range min(10, len(rel)) {
		idcg += 1 / math.Log2(float64(i)+2)
	}
	if idcg > 0 {
		m.ndcg = dcg / idcg
	}
	if len(rel) > 0 {
		m.recall = float64(found) / float64(len(rel))
	}
	return m
}

func TestMetricsOnAKnownRanking(t *testing.T) {
	// Relevant: a and c. Ranked: a (1), b, c (3).
	m := score([]string{"a", "b", "c"}, map[string]bool{"a": true, "c": true})
	wantNDCG := (1 + 1/math.Log2(4)) / (1 + 1/math.Log2(3))
	if math.Abs(m.ndcg-wantNDCG) > 1e-12 || m.recall != 1 || m.mrr != 1 {
		t.Fatalf("got %+v, want ndcg %.6f recall 1 mrr 1", m, wantNDCG)
	}
	m = score([]string{"x", "y", "a"}, map[string]bool{"a": true, "z": true})
	if m.recall != 0.5 || math.Abs(m.mrr-1.0/3) > 1e-12 {
		t.Fatalf("got %+v", m)
	}
	if got := collapse([]string{"d1", "d2", "d1", "d3", "d2"}); !slices.Equal(got, []string{"d1", "d2", "d3"}) {
		t.Fatalf("collapse = %v", got)
	}
}

// collapse keeps each document's best (first) rank.
func collapse(docIDs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range docIDs {
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// evaluator scores rankings of Search — the code search_docs calls — after
// collapsing its passages to documents (a file <id>.md is document id).
type evaluator struct {
	ix      *Index
	queries []sfQuery
	qrels   map[string]map[string]bool
}

func newEvaluator(ix *Index, queries []sfQuery, qrels map[string]map[string]bool) *evaluator {
	return &evaluator{ix: ix, queries: queries, qrels: qrels}
}

// evalHits is how many passages an evaluated search asks for: the ten a
// metric at 10 reads.
const evalHits = 10

// docID is the SciFact id of a hit's file.
func docID(h Hit) string { return strings.TrimSuffix(filepath.Base(h.Path), ".md") }

// score ranks every query in mode and averages the metrics.
func (e *evaluator) score(t testing.TB, mode Mode) metrics {
	t.Helper()
	var sum metrics
	for _, q := range e.queries {
		hits, err := e.ix.SearchMode(context.Background(), q.Text, evalHits, mode)
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]string, len(hits))
		for i, h := range hits {
			ids[i] = docID(h)
		}
		add(&sum, score(collapse(ids), e.qrels[q.ID]))
	}
	n := float64(max(1, len(e.queries)))
	return metrics{sum.ndcg / n, sum.recall / n, sum.mrr / n}
}

// modes scores the four rankings.
func (e *evaluator) modes(t testing.TB) map[Mode]metrics {
	out := map[Mode]metrics{}
	for _, m := range []Mode{ModeLexical, ModeVector, ModeHybrid, ModeDefault} {
		out[m] = e.score(t, m)
	}
	return out
}

// heldOut reports whether a SciFact claim is in the held-out part: a
// quarter of the training claims, chosen by a hash of the id, never used
// to tune anything.
func heldOut(id string) bool {
	h := fnv.New32a()
	h.Write([]byte(id))
	return h.Sum32()%4 == 0
}

// splitQueries cuts the claims into the part tuned on and the held-out part.
func splitQueries(qs []sfQuery) (tune, held []sfQuery) {
	for _, q := range qs {
		if heldOut(q.ID) {
			held = append(held, q)
		} else {
			tune = append(tune, q)
		}
	}
	return tune, held
}

func add(a *metrics, b metrics) { a.ndcg += b.ndcg; a.recall += b.recall; a.mrr += b.mrr }

// memPeak samples the Go heap while fn runs, and reads the process's peak
// resident set (VmHWM) after it.
func memPeak(fn func()) (heapPeak uint64, rssPeak string) {
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	fn()
	close(stop)
	wg.Wait()
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "VmHWM:") {
				rssPeak = strings.TrimSpace(strings.TrimPrefix(l, "VmHWM:"))
			}
		}
	}
	return peak.Load(), rssPeak
}

func latencies(t testing.TB, ix *Index, queries []sfQuery) (p50, p95 time.Duration) {
	t.Helper()
	ctx := context.Background()
	var ds []time.Duration
	for _, q := range queries {
		start := time.Now()
		if _, err := ix.Search(ctx, q.Text, 10); err != nil {
			t.Fatal(err)
		}
		ds = append(ds, time.Since(start))
	}
	slices.Sort(ds)
	return ds[len(ds)/2], ds[len(ds)*95/100]
}

func TestSciFact(t *testing.T) {
	if *scifactDir == "" {
		t.Skip("no -scifact data folder given")
	}
	docs, queries, qrels := loadSciFact(t, *scifactDir)
	t.Logf("SciFact: %d documents, %d judged training queries, GOMAXPROCS %d", len(docs), len(queries), runtime.GOMAXPROCS(0))
	dir := t.TempDir()
	corpus := filepath.Join(dir, "scifact")
	writeCorpus(t, corpus, docs, nil)
	ctx := context.Background()

	db := openDB(t, filepath.Join(dir))
	ix := openIndex(t, db, nil, sfOpts()...)
	var indexTime time.Duration
	heap, rss := memPeak(func() {
		start := time.Now()
		if err := ix.Index(ctx, []string{corpus}, nil); err != nil {
			t.Fatal(err)
		}
		indexTime = time.Since(start)
	})
	chunks := count(t, db, `SELECT count(*) FROM rag_chunks`)
	t.Logf("index %d files → %d chunks: %v (peak Go heap in use %.0f MB, peak RSS %s)", len(docs), chunks, indexTime.Round(time.Millisecond), float64(heap)/(1<<20), rss)
	var noops []time.Duration
	for range 5 {
		start := time.Now()
		if err := ix.Index(ctx, []string{corpus}, nil); err != nil {
			t.Fatal(err)
		}
		noops = append(noops, time.Since(start))
	}
	slices.Sort(noops)
	t.Logf("no-op re-index of the unchanged root: median %v (min %v, max %v)", noops[2].Round(time.Microsecond), noops[0].Round(time.Microsecond), noops[4].Round(time.Microsecond))
	// Reopening loads the vectors into memory.
	start := time.Now()
	ix2, err := Open(ctx, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("reopen (load %d vectors into memory): %v", inMemory(t, ix2), time.Since(start).Round(time.Millisecond))
	ix2.Close()

	tune, held := splitQueries(queries)
	t.Logf("| claims | ranking | nDCG@10 | Recall@10 | MRR@10 |")
	for _, part := range []struct {
		name string
		qs   []sfQuery
	}{{fmt.Sprintf("tune (%d)", len(tune)), tune}, {fmt.Sprintf("held-out (%d)", len(held)), held}} {
		byMode := newEvaluator(ix, part.qs, qrels).modes(t)
		for _, m := range []Mode{ModeLexical, ModeVector, ModeHybrid, ModeDefault} {
			r := byMode[m]
			t.Logf("| %s | %s | %.4f | %.4f | %.4f |", part.name, modeName(m), r.ndcg, r.recall, r.mrr)
		}
		if d, l := byMode[ModeDefault], byMode[ModeLexical]; d.ndcg < l.ndcg {
			t.Errorf("%s: the default ranking (nDCG@10 %.4f) is worse than lexical alone (%.4f)", part.name, d.ndcg, l.ndcg)
		}
	}
	ruleEffects(t, ix, queries, qrels)
	floorProbe(t, ix, tune, qrels)
	if *scifactSweep {
		for _, k := range []float64{1, 5, 10, 20, 40, 60, 100, 200} {
			ix.opts.rrfK = k
			m := newEvaluator(ix, tune, qrels).score(t, ModeHybrid)
			t.Logf("sweep rrf k=%g (hybrid, tune claims): nDCG %.4f R %.4f MRR %.4f", k, m.ndcg, m.recall, m.mrr)
		}
		ix.opts.rrfK = 60
	}
	if *scifactStand {
		calibrateStandIn(t, dir, corpus, tune, held, qrels)
	}
	if *scifactOut != "" {
		writeSubset(t, *scifactOut, ix, docs, held, qrels)
	}
	p50, p95 := latencies(t, ix, queries)
	t.Logf("query latency at %d chunks (Search, n=10, %d queries): p50 %v p95 %v", chunks, len(queries), p50.Round(10*time.Microsecond), p95.Round(10*time.Microsecond))

	if *scifactSweep {
		sweep(t, dir, corpus, queries, qrels)
	}
	if *scifact50k {
		big(t, dir, docs, queries)
	}
}

func sfOpts() []Option {
	var opts []Option
	if *scifactVW > 0 {
		opts = append(opts, WithVectorWeight(*scifactVW))
	}
	if *scifactMaxDF >= 0 {
		opts = append(opts, WithLexicalMaxDF(*scifactMaxDF))
	}
	if *scifactDims > 0 {
		cfg := hashvec.Default
		cfg.Dims = *scifactDims
		opts = append(opts, WithOfflineEmbedder(cfg))
	}
	return opts
}

// sweep tries settings that need a new index.
func sweep(t *testing.T, dir, corpus string, queries []sfQuery, qrels map[string]map[string]bool) {
	ctx := context.Background()
	try := func(name string, opts ...Option) {
		sub := t.TempDir()
		db := openDB(t, sub)
		ix := openIndex(t, db, nil, opts...)
		start := time.Now()
		if err := ix.Index(ctx, []string{corpus}, nil); err != nil {
			t.Fatal(err)
		}
		took := time.Since(start)
		s := newEvaluator(ix, queries, qrels).modes(t)
		t.Logf("sweep %-40s lex %.4f vec %.4f hyb %.4f default %.4f (R %.4f/%.4f/%.4f/%.4f) index %v", name,
			s[ModeLexical].ndcg, s[ModeVector].ndcg, s[ModeHybrid].ndcg, s[ModeDefault].ndcg,
			s[ModeLexical].recall, s[ModeVector].recall, s[ModeHybrid].recall, s[ModeDefault].recall, took.Round(time.Millisecond))
	}
	for _, size := range []int{800, 3000, 12000} {
		try(fmt.Sprintf("chunk %d", size), WithChunkSize(size))
	}
	for _, f := range []float64{0.05, 0.1, 0.2, 0.4} {
		try(fmt.Sprintf("lexical max df %g", f), WithLexicalMaxDF(f))
	}
	for _, w := range [][2]float64{{0.5, 1}, {2, 1}, {0, 1}} {
		try(fmt.Sprintf("bm25 weights %v", w), WithLexicalWeights(w[0], w[1]))
	}
	base := hashvec.Default
	variants := map[string]hashvec.Config{}
	for _, d := range []int{128, 512, 1024} {
		c := base
		c.Dims = d
		variants[fmt.Sprintf("dims %d", d)] = c
	}
	for _, g := range []int{0, 3, 5} {
		c := base
		c.GramLen = g
		variants[fmt.Sprintf("gram len %d", g)] = c
	}
	for _, w := range []float32{0.15, 0.6} {
		c := base
		c.Grams = w
		variants[fmt.Sprintf("gram weight %.2f", w)] = c
	}
	for _, w := range []float32{0, 1} {
		c := base
		c.Pairs = w
		variants[fmt.Sprintf("pair weight %.2f", w)] = c
	}
	names := make([]string, 0, len(variants))
	for n := range variants {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		try("offline "+n, WithOfflineEmbedder(variants[n]))
	}
}

// big builds an index of about 50,000 chunks — seven variants of the corpus,
// each abstract's sentences rotated differently — and times queries on it.
func big(t *testing.T, dir string, docs []sfDoc, queries []sfQuery) {
	ctx := context.Background()
	root := filepath.Join(dir, "big")
	const copies = 7 // about 1.47 chunks a document: ~53k chunks
	for copyN := range copies {
		writeCorpus(t, filepath.Join(root, fmt.Sprintf("copy%02d", copyN)), docs, func(d sfDoc) string {
			s := strings.SplitAfter(d.Text, ". ")
			r := copyN % max(1, len(s))
			rotated := strings.Join(append(append([]string{}, s[r:]...), s[:r]...), "")
			return "# " + d.Title + "\n\n" + rotated + "\n"
		})
	}
	os.MkdirAll(filepath.Join(dir, "bigdb"), 0o755)
	db := openDB(t, filepath.Join(dir, "bigdb"))
	ix := openIndex(t, db, nil, sfOpts()...)
	var took time.Duration
	heap, rss := memPeak(func() {
		start := time.Now()
		if err := ix.Index(ctx, []string{root}, nil); err != nil {
			t.Fatal(err)
		}
		took = time.Since(start)
	})
	chunks := count(t, db, `SELECT count(*) FROM rag_chunks`)
	t.Logf("big index: %d files → %d chunks in %v (peak Go heap in use %.0f MB, peak RSS %s)", len(docs)*copies, chunks, took.Round(time.Millisecond), float64(heap)/(1<<20), rss)
	p50, p95 := latencies(t, ix, queries)
	t.Logf("query latency at %d chunks (Search, n=10, %d queries): p50 %v p95 %v", chunks, len(queries), p50.Round(10*time.Microsecond), p95.Round(10*time.Microsecond))
	// The two arms apart.
	var lex, vec []time.Duration
	for _, q := range queries {
		s := time.Now()
		ix.lexical(ctx, QueryTerms(q.Text), ix.opts.depth)
		lex = append(lex, time.Since(s))
		s = time.Now()
		ix.vectorRanking(ctx, ix.cur(), q.Text, ix.opts.depth)
		vec = append(vec, time.Since(s))
	}
	slices.Sort(lex)
	slices.Sort(vec)
	t.Logf("  lexical arm p50 %v p95 %v; vector arm p50 %v p95 %v", lex[len(lex)/2].Round(10*time.Microsecond), lex[len(lex)*95/100].Round(10*time.Microsecond),
		vec[len(vec)/2].Round(10*time.Microsecond), vec[len(vec)*95/100].Round(10*time.Microsecond))
}

func modeName(m Mode) string {
	if m == ModeDefault {
		return "default"
	}
	return string(m)
}

// ruleEffects measures each arrangement rule: the default ranking with
// all rules, with each one left out, and with none.
func ruleEffects(t *testing.T, ix *Index, queries []sfQuery, qrels map[string]map[string]bool) {
	saved := ix.opts.rules
	defer func() { ix.opts.rules = saved }()
	all := rules{merge: true, demote: true, spread: true}
	for _, c := range []struct {
		name string
		r    rules
	}{
		{"all rules", all},
		{"without merging adjacent passages", rules{demote: true, spread: true}},
		{"without demoting links and headings", rules{merge: true, spread: true}},
		{"without spreading over documents", rules{merge: true, demote: true}},
		{"no rule", rules{}},
	} {
		ix.opts.rules = c.r
		m := newEvaluator(ix, queries, qrels).score(t, ModeDefault)
		t.Logf("rules: %-40s nDCG@10 %.4f R@10 %.4f MRR@10 %.4f", c.name, m.ndcg, m.recall, m.mrr)
	}
}

// floorProbe shows where the vector arm's floor must sit: the best
// similarity nonsense queries reach, against that of claims whose rarest
// word lost a letter (a typo the lexical arm cannot match).
func floorProbe(t *testing.T, ix *Index, queries []sfQuery, qrels map[string]map[string]bool) {
	ctx := context.Background()
	for _, q := range []string{"zzqxj flurbo", "日本語", "qwrtp vbnmz", "xkcd zork plugh", "asdfgh"} {
		vec, err := ix.vectorRanking(ctx, ix.cur(), q, 1)
		if err != nil {
			t.Fatal(err)
		}
		best := float32(0)
		if len(vec) > 0 {
			best = vec[0].Similarity
		}
		hits, _ := ix.Search(ctx, q, 10)
		t.Logf("floor probe: nonsense %q: best similarity %.3f, %d hits by default", q, best, len(hits))
	}
	var sims []float64
	found := 0
	for _, q := range queries[:min(200, len(queries))] {
		words := strings.Fields(q.Text)
		longest := ""
		for _, w := range words {
			if len(w) > len(longest) {
				longest = w
			}
		}
		if len(longest) < 6 {
			continue
		}
		typo := longest[:2] + longest[3:] // one letter dropped
		vec, err := ix.vectorRanking(ctx, ix.cur(), typo, 10)
		if err != nil || len(vec) == 0 {
			continue
		}
		sims = append(sims, float64(vec[0].Similarity))
		for _, h := range vec {
			if qrels[q.ID][ix.docOfChunk(t, h.ID)] {
				found++
				break
			}
		}
	}
	slices.Sort(sims)
	if len(sims) > 0 {
		t.Logf("floor probe: %d one-word typo queries: best similarity p10 %.3f p50 %.3f p90 %.3f; a relevant document in the vector top 10 for %d",
			len(sims), sims[len(sims)/10], sims[len(sims)/2], sims[len(sims)*9/10], found)
	}
}

func (ix *Index) docOfChunk(t testing.TB, id int64) string {
	var path string
	if err := ix.db.QueryRow(`SELECT f.path FROM rag_chunks c JOIN rag_files f ON f.id = c.file_id WHERE c.id = ?`, id).Scan(&path); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(filepath.Base(path), ".md")
}

// standInModel is the built-in embedder presented as an embedding model:
// the index cannot tell it from one, so it ranks by a model's rules (the
// default Calibration for a model, the query embedded by Embed). Its
// vectors carry no meaning; it tests the calibration's mechanism.
type standInModel struct{ m *hashvec.Model }

func (s standInModel) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return s.m.Embed(ctx, texts)
}
func (s standInModel) Name() string { return "stand-in-model" }

// calibrateStandIn tunes a model's Calibration on the tune claims — the
// vector weight and floor with the best nDCG@10, or weight 0 when none
// beats lexical alone — and checks it on the held-out claims, where the
// default must not lose to lexical alone.
func calibrateStandIn(t *testing.T, dir, corpus string, tune, held []sfQuery, qrels map[string]map[string]bool) {
	ctx := context.Background()
	sub := filepath.Join(dir, "standin")
	os.MkdirAll(sub, 0o755)
	ix := openIndex(t, openDB(t, sub), standInModel{hashvec.New(hashvec.Default)})
	if err := ix.Index(ctx, []string{corpus}, nil); err != nil {
		t.Fatal(err)
	}
	best := calibrate(t, ix, tune, qrels)
	calibrateFor(ix, best)
	ev := newEvaluator(ix, held, qrels)
	lex, def := ev.score(t, ModeLexical), ev.score(t, ModeDefault)
	t.Logf("stand-in model: tuned %+v; held-out nDCG@10 lexical %.4f, default %.4f", best, lex.ndcg, def.ndcg)
	if def.ndcg < lex.ndcg {
		t.Errorf("the tuned calibration loses to lexical alone on the held-out claims: %.4f < %.4f", def.ndcg, lex.ndcg)
	}
	untuned := Calibration{Weight: defaultCalibration(false).Weight, Floor: defaultCalibration(false).Floor}
	calibrateFor(ix, untuned)
	m := ev.score(t, ModeDefault)
	t.Logf("stand-in model, untuned default calibration %+v: held-out nDCG@10 %.4f", untuned, m.ndcg)
}

// calibrate picks the Calibration with the best nDCG@10 on the claims,
// keeping lexical alone (weight 0) unless a weight beats it.
func calibrate(t *testing.T, ix *Index, qs []sfQuery, qrels map[string]map[string]bool) Calibration {
	ev := newEvaluator(ix, qs, qrels)
	best := Calibration{Weight: 0, Floor: 1}
	calibrateFor(ix, best)
	bestScore := ev.score(t, ModeDefault).ndcg
	for _, w := range []float64{0.1, 0.3, 1} {
		for _, f := range []float64{0.3, 0.6} {
			c := Calibration{Weight: w, Floor: f}
			calibrateFor(ix, c)
			s := ev.score(t, ModeDefault).ndcg
			if s > bestScore {
				best, bestScore = c, s
			}
			t.Logf("calibrate: weight %.1f floor %.1f: tune nDCG@10 %.4f", w, f, s)
		}
	}
	return best
}

// Subset sizes: claims of the held-out part, and abstracts in all.
const (
	subsetClaims = 80
	subsetDocs   = 2400
)

// writeSubset writes the held-out subset TestSciFactSubset runs on a clean
// clone: subsetClaims held-out claims (the first by a hash of the id),
// their relevant abstracts, the abstracts any ranking puts in their top
// 20 (the hard distractors), and more abstracts chosen by a hash of the
// id up to subsetDocs.
func writeSubset(t *testing.T, dir string, ix *Index, docs []sfDoc, held []sfQuery, qrels map[string]map[string]bool) {
	hashOf := func(s string) uint32 {
		h := fnv.New32a()
		h.Write([]byte("subset:" + s))
		return h.Sum32()
	}
	claims := slices.Clone(held)
	slices.SortFunc(claims, func(a, b sfQuery) int { return cmp.Compare(hashOf(a.ID), hashOf(b.ID)) })
	claims = claims[:min(subsetClaims, len(claims))]
	slices.SortFunc(claims, func(a, b sfQuery) int { return cmp.Compare(atoi(a.ID), atoi(b.ID)) })
	keep := map[string]bool{}
	for _, q := range claims {
		for d := range qrels[q.ID] {
			keep[d] = true
		}
		for _, m := range []Mode{ModeLexical, ModeVector, ModeHybrid} {
			hits, err := ix.SearchMode(context.Background(), q.Text, 20, m)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hits {
				keep[docID(h)] = true
			}
		}
	}
	rest := slices.Clone(docs)
	slices.SortFunc(rest, func(a, b sfDoc) int { return cmp.Compare(hashOf(a.ID), hashOf(b.ID)) })
	for _, d := range rest {
		if len(keep) >= subsetDocs {
			break
		}
		keep[d.ID] = true
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var docBuf strings.Builder
	for _, d := range docs {
		if keep[d.ID] {
			b, _ := json.Marshal(map[string]string{"id": d.ID, "title": d.Title, "text": d.Text})
			docBuf.Write(b)
			docBuf.WriteByte('\n')
		}
	}
	f, err := os.Create(filepath.Join(dir, "docs.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	zw.ModTime = time.Time{} // the same bytes on every run
	if _, err := io.WriteString(zw, docBuf.String()); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var qs, rels strings.Builder
	rels.WriteString("query_id\tdoc_id\trelevance\n")
	for _, q := range claims {
		b, _ := json.Marshal(map[string]string{"id": q.ID, "text": q.Text})
		qs.Write(b)
		qs.WriteByte('\n')
		ids := slices.Sorted(maps.Keys(qrels[q.ID]))
		for _, d := range ids {
			fmt.Fprintf(&rels, "%s\t%s\t1\n", q.ID, d)
		}
	}
	os.WriteFile(filepath.Join(dir, "queries.jsonl"), []byte(qs.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "qrels.tsv"), []byte(rels.String()), 0o644)
	t.Logf("subset: %d claims, %d abstracts written to %s", len(claims), len(keep), dir)
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }
