package vecindex

import (
	"context"
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	chromem "github.com/philippgille/chromem-go"
)

// BenchmarkNearest is the vector arm's scan at rag's depth (100) over
// random unit vectors of the offline embedder's 256 dimensions, beside
// chromem-go's own exhaustive query over the same documents: the reason
// the index scans them itself (docs/BENCHMARKS-NOTEBOOK.md, "One vector engine").
func BenchmarkNearest(b *testing.B) {
	const dims, k = 256, 100
	for _, n := range []int{10_000, 53_000} {
		r := rand.New(rand.NewPCG(7, uint64(n)))
		x := New()
		vs := make([]Vector, n)
		for i := range vs {
			vs[i] = Vector{int64(i + 1), randomUnit(r, dims)}
		}
		if err := x.Add(vs); err != nil {
			b.Fatal(err)
		}
		queries := make([][]float32, 64)
		for i := range queries {
			queries[i] = randomUnit(r, dims)
		}
		b.Run(fmt.Sprintf("n=%d/vecindex", n), func(b *testing.B) {
			defer reportCPU(b)()
			i := 0
			for b.Loop() {
				if hits, err := x.Nearest(queries[i%len(queries)], k); err != nil || len(hits) != k {
					b.Fatalf("%d hits, %v", len(hits), err)
				}
				i++
			}
		})
		b.Run(fmt.Sprintf("n=%d/chromem", n), func(b *testing.B) {
			coll, err := chromem.NewDB().CreateCollection("c", nil, nil)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			if err := coll.AddDocuments(ctx, x.Documents(), 1); err != nil {
				b.Fatal(err)
			}
			defer reportCPU(b)()
			i := 0
			for b.Loop() {
				if res, err := coll.QueryEmbedding(ctx, queries[i%len(queries)], k, nil, nil); err != nil || len(res) != k {
					b.Fatalf("%d results, %v", len(res), err)
				}
				i++
			}
		})
	}
}

// reportCPU starts counting the process's CPU time; the function it returns
// reports it per iteration as cpu-ms/op, which says more than the wall
// clock on a shared machine.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() { b.ReportMetric(float64(cpuTime()-start)/1e6/float64(b.N), "cpu-ms/op") }
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
