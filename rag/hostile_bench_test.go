package rag

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"quire/rag/parse/hostile"
)

// BenchmarkHostileFiles indexes each hostile file of issue 13, at its
// full size and under the default limits, into a new database per
// iteration (docs/BENCHMARKS-NOTEBOOK.md, "Hostile documents"):
//
//	go test ./rag -run '^$' -bench HostileFiles -benchtime 3x
//
// Besides ns/op it reports how far the pass raised the live heap above
// what was live before it (what the last collection found reachable, in
// MB) and the heap in use (with garbage not yet collected), and the
// database's size after the pass. The last case is the
// worst a document can cost under the defaults: a one-line file under the
// byte limit that stops at the 16 MiB text budget.
func BenchmarkHostileFiles(b *testing.B) {
	cases := []struct {
		name, file string
		make       func(path string) error
		opts       []Option
	}{
		{"selfref-pdf", "loop.pdf", func(p string) error { return os.WriteFile(p, hostile.SelfReferencingPDF(), 0o644) }, nil},
		{"300k-refs-pdf", "shared.pdf", func(p string) error { return os.WriteFile(p, hostile.SharedPagePDF(300000), 0o644) }, nil},
		{"sparse-1GiB-md", "sparse.md", func(p string) error { return hostile.Sparse(p, 1<<30) }, nil},
		{"sparse-1GiB-md-maxBytes-2GiB", "sparse.md", func(p string) error { return hostile.Sparse(p, 1<<30) },
			[]Option{WithLimits(Limits{Bytes: 2 << 30})}},
		{"oneline-262MB", "oneline.txt", func(p string) error { return hostile.OneLine(p, 262_000_000) }, nil},
		{"oneline-24MiB-text-budget", "oneline.txt", func(p string) error { return hostile.OneLine(p, 24<<20) }, nil},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			docs := filepath.Join(b.TempDir(), "docs")
			if err := os.MkdirAll(docs, 0o755); err != nil {
				b.Fatal(err)
			}
			path := filepath.Join(docs, c.file)
			if err := c.make(path); err != nil {
				b.Fatal(err)
			}
			old := time.Now().Add(-time.Hour)
			os.Chtimes(path, old, old)
			var live, inUse uint64
			var dbSize int64
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				dir := b.TempDir()
				db := openDB(b, dir)
				ix := openIndex(b, db, nil, c.opts...)
				runtime.GC()
				before := liveHeap()
				stop := heapWatch()
				b.StartTimer()
				if err := ix.Index(context.Background(), []string{docs}, nil); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				l, u := stop()
				live, inUse = max(live, l-min(l, before)), max(inUse, u-min(u, before))
				if d := docStatus(b, ix)[c.file]; d.Status != Failed {
					b.Fatalf("%s: %s (%q), want failed", c.file, d.Status, d.Reason)
				}
				ix.Close()
				for _, name := range []string{"quire.db", "quire.db-wal"} {
					if st, err := os.Stat(filepath.Join(dir, name)); err == nil {
						dbSize = max(dbSize, st.Size())
					}
				}
			}
			b.ReportMetric(float64(live)/(1<<20), "live-heap-rise-MB")
			b.ReportMetric(float64(inUse)/(1<<20), "inuse-heap-rise-MB")
			b.ReportMetric(float64(dbSize)/(1<<20), "db-MB")
		})
	}
}
