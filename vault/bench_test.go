package vault_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"quire/vault"
	"quire/vault/vaultgen"
)

// generated writes a generated vault once per benchmark.
func generated(b *testing.B, notes int) string {
	b.Helper()
	dir := b.TempDir()
	if err := vaultgen.Generate(dir, notes, 1); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkParse: the throughput of Parse over the notes of a generated vault.
func BenchmarkParse(b *testing.B) {
	dir := generated(b, 300)
	var texts [][]byte
	var paths []string
	size := 0
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".md") {
			t, _ := os.ReadFile(p)
			texts = append(texts, t)
			paths = append(paths, p)
			size += len(t)
		}
		return nil
	})
	b.SetBytes(int64(size / len(texts)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		vault.Parse(paths[i%len(texts)], texts[i%len(texts)])
		i++
	}
}

// BenchmarkScan20k: Scan of 20,000 generated notes (about 200,000 links),
// with the CPU time it takes (both cores) and the allocations.
func BenchmarkScan20k(b *testing.B) {
	dir := generated(b, 20_000)
	fsys := os.DirFS(dir)
	b.ReportAllocs()
	start := cpuTime()
	links := 0
	for b.Loop() {
		v, skipped, err := vault.Scan(context.Background(), fsys, vault.DefaultLimits())
		if err != nil || len(skipped) > 0 {
			b.Fatal(err, skipped)
		}
		links = len(v.Unresolved("")) // resolves every link
	}
	b.ReportMetric(float64((cpuTime()-start).Milliseconds())/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(links), "unresolved")
	// What one scanned vault holds on the heap, its graph resolved.
	b.StopTimer()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v, _, _ := vault.Scan(context.Background(), fsys, vault.DefaultLimits())
	_ = v.Orphans()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "heap-MB")
	runtime.KeepAlive(v)
}

// BenchmarkPlanMoveHub: the plan of renaming a hub with 1,000+ backlinks.
func BenchmarkPlanMoveHub(b *testing.B) {
	dir := generated(b, 3_100)
	v, _, err := vault.Scan(context.Background(), os.DirFS(dir), vault.DefaultLimits())
	if err != nil {
		b.Fatal(err)
	}
	hub := vaultgen.Hubs()[0]
	if n := len(v.Backlinks(hub)); n < 1000 {
		b.Fatalf("the hub has %d backlinks", n)
	}
	read := func(p string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, filepath.FromSlash(p))) }
	b.ReportAllocs()
	var plan vault.Plan
	for b.Loop() {
		plan, err = v.PlanMove(hub, "Hubs/Renamed Index.md", read)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(plan.Links()), "links/op")
	b.ReportMetric(float64(len(plan.Edits)), "notes/op")
}

// BenchmarkChangeThenBacklinks: one note changes, then a question — the
// graph of a 3,100-note vault (about 40,000 links) is resolved again.
func BenchmarkChangeThenBacklinks(b *testing.B) {
	dir := generated(b, 3_100)
	v, _, err := vault.Scan(context.Background(), os.DirFS(dir), vault.DefaultLimits())
	if err != nil {
		b.Fatal(err)
	}
	n, _ := v.Note(v.Paths()[100])
	b.ReportAllocs()
	for b.Loop() {
		v.Put(n)
		if len(v.Backlinks(vaultgen.Hubs()[0])) < 1000 {
			b.Fatal("the hub lost its backlinks")
		}
	}
}
