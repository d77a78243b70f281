package memory_test

import (
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"quire/kernel/event"
	"quire/kernel/prompt"
	"quire/kernel/store"
	"quire/memory"
)

// openWithFacts builds a database whose log holds n memory.remember facts
// (written straight to the log in batches), then opens memory over it: the
// index is built from the log as at start-up.
func openWithFacts(b *testing.B, n int) (*memory.Store, string) {
	b.Helper()
	st, err := store.Open(b.Context(), filepath.Join(b.TempDir(), "quire.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	const session = "bench"
	if _, _, err := st.CreateSession(b.Context(), session, "bench", time.Now(), nil, nil); err != nil {
		b.Fatal(err)
	}
	subjects := []string{"garden", "invoice", "passport", "recipe", "meeting", "holiday", "bicycle", "library", "tax", "piano"}
	places := []string{"Archive", "Inbox", "Projects", "Finance", "Home", "Travel", "Music", "Work"}
	for start := 0; start < n; start += 500 {
		var drafts []event.Draft
		for i := start; i < min(n, start+500); i++ {
			text := fmt.Sprintf("The %s note number %d from %d is filed under %s/%s-%d and mentions person%d.",
				subjects[i%len(subjects)], i, 2000+i%27, places[i%len(places)], subjects[(i/7)%len(subjects)], i%97, i%313)
			drafts = append(drafts, event.Draft{Type: event.MemoryRemember, Time: time.Unix(int64(i), 0),
				Payload: event.MemoryRememberPayload{ID: fmt.Sprintf("f%d", i), Kind: memory.Fact, Text: text, Origin: memory.ByUser}})
		}
		if _, err := st.Append(b.Context(), session, drafts...); err != nil {
			b.Fatal(err)
		}
	}
	mem, err := memory.Open(b.Context(), st.DB(), st)
	if err != nil {
		b.Fatal(err)
	}
	return mem, session
}

// BenchmarkSearch10kFacts is the retrieval behind the working-memory zone:
// FTS5 bm25 + vector neighbours, fused, over 10,000 kept facts. Besides
// ns/op it reports the process's CPU time per search as cpu-ms/op, which
// says more than the wall clock on a shared machine.
func BenchmarkSearch10kFacts(b *testing.B) {
	mem, _ := openWithFacts(b, 10_000)
	benchQueries(b, "search", func(q string) (int, error) {
		hits, err := mem.Search(b.Context(), q, 8)
		return len(hits), err
	})
}

// BenchmarkVectorArm10kFacts is Search's vector arm alone (embed the
// request, scan the vectors) over the same facts, at Search's depth for 8.
func BenchmarkVectorArm10kFacts(b *testing.B) {
	mem, _ := openWithFacts(b, 10_000)
	benchQueries(b, "vector arm", func(q string) (int, error) {
		ids, err := mem.VectorArm(b.Context(), q, 32)
		return len(ids), err
	})
}

// benchQueries times run over the queries in turn; each must find something.
func benchQueries(b *testing.B, what string, run func(query string) (int, error)) {
	queries := []string{"where is the passport note filed?", "tax invoice from 2013", "what did person42 say about the piano", "holiday bicycle"}
	b.ResetTimer()
	cpu := cpuTime()
	i := 0
	for ; b.Loop(); i++ {
		if n, err := run(queries[i%len(queries)]); err != nil || n == 0 {
			b.Fatalf("%s: %d hits, %v", what, n, err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu)/1e6/float64(i), "cpu-ms/op")
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkContribute10kFacts is the whole working-memory zone for one
// request (search for facts and preferences, render within the budget).
func BenchmarkContribute10kFacts(b *testing.B) {
	mem, session := openWithFacts(b, 10_000)
	ctx := prompt.WithRequest(b.Context(), "where is the passport note filed?")
	b.ResetTimer()
	for b.Loop() {
		text, err := mem.Contributor().Contribute(ctx, session)
		if err != nil || text == "" {
			b.Fatalf("contribute: %q, %v", text, err)
		}
	}
}
