package rag

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	rtmetrics "runtime/metrics"
	"strings"
	"testing"
	"time"

	"quire/rag/chunk"
	"quire/rag/parse"
)

var largeIndex = flag.Bool("rag.large", false, "also index the 100 MB file through the whole pipeline (about a minute)")

// makeLarge writes a Markdown file of about size bytes: sections of
// paragraphs, and one 8 MB line with no newline in the middle.
func makeLarge(t testing.TB, path string, size int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var written int64
	para := strings.Repeat("The quick brown fox jumps over the lazy dog near the riverbank. ", 12) + "\n"
	for i := 0; written < size; i++ {
		n, _ := fmt.Fprintf(w, "## Section %d\n\n%s\n%s\n", i, para, para)
		written += int64(n)
		if i == 1000 {
			n, _ := w.WriteString(strings.Repeat("longline ", 8<<20/9) + "\n\n")
			written += int64(n)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	old := time.Now().Add(-time.Hour)
	os.Chtimes(path, old, old)
}

// heapWatch samples the heap until stopped and returns the peaks of the
// live heap (what the last collection found reachable: what the code
// keeps) and of the heap in use (which also holds garbage not yet collected,
// and so depends on how busy the machine is).
func heapWatch() (stop func() (live, inUse uint64)) {
	done := make(chan struct{})
	type peaks struct{ live, inUse uint64 }
	result := make(chan peaks)
	go func() {
		sample := []rtmetrics.Sample{{Name: "/gc/heap/live:bytes"}}
		var ms runtime.MemStats
		var p peaks
		for {
			rtmetrics.Read(sample)
			p.live = max(p.live, sample[0].Value.Uint64())
			runtime.ReadMemStats(&ms)
			p.inUse = max(p.inUse, ms.HeapInuse)
			select {
			case <-done:
				result <- p
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return func() (uint64, uint64) { close(done); p := <-result; return p.live, p.inUse }
}

// TestA100MBFileStreamsInBoundedMemory reads a 100 MB Markdown file
// through the parser and chunker the indexer uses: the heap must stay far
// below the file's size.
func TestA100MBFileStreamsInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 100 MB")
	}
	path := filepath.Join(t.TempDir(), "large.md")
	makeLarge(t, path, 100<<20)
	runtime.GC()
	before := []rtmetrics.Sample{{Name: "/gc/heap/live:bytes"}}
	rtmetrics.Read(before)
	stop := heapWatch()
	start := time.Now()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunks, bytes, longest := 0, 0, 0
	split := chunk.New(1500, func(c chunk.Chunk) error {
		chunks++
		bytes += len(c.Text)
		longest = max(longest, len(c.Text))
		return nil
	})
	if err := parse.ReadMarkdown(bufio.NewReaderSize(f, 256<<10), split.Add); err != nil {
		t.Fatal(err)
	}
	split.Close()
	live, inUse := stop()
	grew := int64(live) - int64(before[0].Value.Uint64())
	t.Logf("100 MB: %d chunks in %v; live heap grew by at most %.1f MB (heap in use peaked at %.0f MB)",
		chunks, time.Since(start).Round(time.Millisecond), float64(grew)/(1<<20), float64(inUse)/(1<<20))
	// Reading the file whole would grow it by 100 MB or more; the bound
	// leaves room for what other tests' goroutines leave live meanwhile.
	if grew > 40<<20 {
		t.Fatalf("the live heap grew by %d MB while streaming a 100 MB file", grew>>20)
	}
	if longest > 1500 || bytes < 95<<20 {
		t.Fatalf("chunks: longest %d bytes, %d MB in all", longest, bytes>>20)
	}
}

// TestIndexA100MBFile indexes the file through the whole pipeline (behind
// -rag.large: about a minute on 2 cores). The chunks' vectors stay in
// memory by design (256 floats each); everything else must stream.
func TestIndexA100MBFile(t *testing.T) {
	if !*largeIndex {
		t.Skip("run with -rag.large")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "docs", "large.md")
	os.MkdirAll(filepath.Dir(path), 0o755)
	makeLarge(t, path, 100<<20)
	db := openDB(t, dir)
	// Past the default limits (64 MiB, 16 MiB of text) by design.
	ix := openIndex(t, db, nil, WithLimits(Limits{Bytes: 256 << 20, Text: 256 << 20, Chunks: 1 << 20}))
	runtime.GC()
	stop := heapWatch()
	start := time.Now()
	if err := ix.Index(context.Background(), []string{filepath.Dir(path)}, nil); err != nil {
		t.Fatal(err)
	}
	live, peak := stop()
	n := count(t, db, `SELECT count(*) FROM rag_chunks`)
	vectors := float64(n) * 256 * 4 / (1 << 20)
	t.Logf("indexed 100 MB → %d chunks in %v; peak live heap %.0f MB, peak heap in use %.0f MB (vectors in memory ≈ %.0f MB)",
		n, time.Since(start).Round(time.Millisecond), float64(live)/(1<<20), float64(peak)/(1<<20), vectors)
	if d := docStatus(t, ix)["large.md"]; d.Status != Done {
		t.Fatalf("status %+v", d)
	}
	if !found(t, ix, "riverbank") {
		t.Fatal("the large file is not searchable")
	}
}
