package rag

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
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

// The SciFact evaluation (docs/BENCHMARKS.md) runs only when given the data:
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
	scifactVW    = flag.Float64("scifact.vw", 0, "weight of the vector list in fusion; 0 = the index's default")
	scifactMaxDF = flag.Float64("scifact.maxdf", -1, "lexical max df share for the main and 50k runs; -1 = the default")
	scifact50k   = flag.Bool("scifact.50k", true, "also build a ~50k-chunk index and time queries on it")
	scifactDims  = flag.Int("scifact.dims", 0, "dimensions of the offline embedder for the main and 50k runs; 0 = the default")
)

type sfDoc struct{ ID, Title, Text string }
type sfQuery struct{ ID, Text string }

func loadSciFact(t testing.TB, dir string) ([]sfDoc, []sfQuery, map[string]map[string]bool) {
	t.Helper()
	var docs []sfDoc
	readJSONL(t, filepath.Join(dir, "docs.jsonl"), func(b []byte) {
		var d struct{ ID, Title, Text string }
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, sfDoc{d.ID, d.Title, d.Text})
	})
	var queries []sfQuery
	readJSONL(t, filepath.Join(dir, "queries_train.jsonl"), func(b []byte) {
		var q struct{ ID, Text string }
		if err := json.Unmarshal(b, &q); err != nil {
			t.Fatal(err)
		}
		queries = append(queries, sfQuery{q.ID, q.Text})
	})
	qrels := map[string]map[string]bool{}
	f, err := os.Open(filepath.Join(dir, "qrels_train.tsv"))
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
	sc := bufio.NewScanner(f)
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

// evaluator maps chunk ids to document ids and scores the three rankings.
type evaluator struct {
	ix      *Index
	docOf   map[int64]string
	queries []sfQuery
	qrels   map[string]map[string]bool
}

func newEvaluator(t testing.TB, ix *Index, queries []sfQuery, qrels map[string]map[string]bool) *evaluator {
	t.Helper()
	rows, err := ix.db.Query(`SELECT c.id, f.path FROM rag_chunks c JOIN rag_files f ON f.id = c.file_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	e := &evaluator{ix: ix, docOf: map[int64]string{}, queries: queries, qrels: qrels}
	for rows.Next() {
		var id int64
		var path string
		rows.Scan(&id, &path)
		e.docOf[id] = strings.TrimSuffix(filepath.Base(path), ".md")
	}
	return e
}

func (e *evaluator) docs(ids []int64) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = e.docOf[id]
	}
	return collapse(out)
}

type armScores struct{ lexical, vector, hybrid metrics }

// run scores all queries; the lexical and vector lists are computed once
// per query and fused with each k in ks.
func (e *evaluator) run(t testing.TB, ks []float64) (armScores, map[float64]metrics) {
	t.Helper()
	ctx := context.Background()
	var sum armScores
	fusedSums := map[float64]metrics{}
	for _, q := range e.queries {
		depth := e.ix.opts.depth
		lex, err := e.ix.lexical(ctx, queryTerms(q.Text), depth)
		if err != nil {
			t.Fatal(err)
		}
		vec, err := e.ix.vectorRanking(ctx, e.ix.cur(), q.Text, depth)
		if err != nil {
			t.Fatal(err)
		}
		rel := e.qrels[q.ID]
		add(&sum.lexical, score(e.docs(lex), rel))
		add(&sum.vector, score(e.docs(vec), rel))
		vw := vectorWeight(e.ix.opts.vecWeight, e.ix.cur())
		if *scifactVW > 0 {
			vw = *scifactVW
		}
		for _, k := range ks {
			fused := fuseWeighted(k, vw, lex, vec)
			ids := make([]int64, len(fused))
			for i, f := range fused {
				ids[i] = f.id
			}
			m := fusedSums[k]
			add(&m, score(e.docs(ids), rel))
			fusedSums[k] = m
		}
	}
	n := float64(len(e.queries))
	div := func(m metrics) metrics { return metrics{m.ndcg / n, m.recall / n, m.mrr / n} }
	sum.lexical, sum.vector = div(sum.lexical), div(sum.vector)
	for k, m := range fusedSums {
		fusedSums[k] = div(m)
	}
	sum.hybrid = fusedSums[e.ix.opts.rrfK]
	return sum, fusedSums
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

	ev := newEvaluator(t, ix, queries, qrels)
	ks := []float64{ix.opts.rrfK}
	if *scifactSweep {
		ks = []float64{1, 5, 10, 20, 40, 60, 100, 200}
	}
	s, byK := ev.run(t, ks)
	t.Logf("| arm | nDCG@10 | Recall@10 | MRR@10 |")
	for _, row := range []struct {
		name string
		m    metrics
	}{{"lexical (FTS5 bm25)", s.lexical}, {"vector (offline embedder)", s.vector}, {fmt.Sprintf("hybrid (RRF k=%g)", ix.opts.rrfK), s.hybrid}} {
		t.Logf("| %s | %.4f | %.4f | %.4f |", row.name, row.m.ndcg, row.m.recall, row.m.mrr)
	}
	if *scifactSweep {
		for _, k := range ks {
			m := byK[k]
			t.Logf("sweep rrf k=%g: nDCG %.4f R %.4f MRR %.4f", k, m.ndcg, m.recall, m.mrr)
		}
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
		s, _ := newEvaluator(t, ix, queries, qrels).run(t, []float64{ix.opts.rrfK})
		t.Logf("sweep %-40s lex %.4f vec %.4f hyb %.4f (R %.4f/%.4f/%.4f) index %v", name, s.lexical.ndcg, s.vector.ndcg, s.hybrid.ndcg,
			s.lexical.recall, s.vector.recall, s.hybrid.recall, took.Round(time.Millisecond))
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
		ix.lexical(ctx, queryTerms(q.Text), ix.opts.depth)
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
