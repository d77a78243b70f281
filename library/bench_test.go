package library_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"quire/library"
	"quire/test/testkit"
)

// BenchmarkState is the documents panel's list load, which the page repeats
// at most once a second while a pass runs: 5,000 indexed documents.
func BenchmarkState(b *testing.B) {
	lib, _ := benchLibrary(b, 5000)
	for b.Loop() {
		st, err := lib.State(b.Context())
		if err != nil || len(st.Documents) != 5000 {
			b.Fatalf("%d documents, %v", len(st.Documents), err)
		}
	}
}

// BenchmarkSource is what a click on a citation costs: find the document
// among 5,000 and read its text.
func BenchmarkSource(b *testing.B) {
	lib, dir := benchLibrary(b, 5000)
	path := filepath.Join(dir, "doc-2500.md")
	for b.Loop() {
		src, err := lib.Source(b.Context(), path, 0)
		if err != nil || !strings.Contains(src.Text, "document 2500") {
			b.Fatalf("%+v %v", src, err)
		}
	}
}

// benchLibrary indexes n small Markdown files with the offline embedder.
func benchLibrary(b *testing.B, n int) (*library.Library, string) {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "docs")
	for i := range n {
		testkit.WriteOld(b, filepath.Join(dir, fmt.Sprintf("doc-%d.md", i)), fmt.Sprintf("# Title %d\n\nThis is document %d about topic %d.\n", i, i, i%97))
	}
	lib, _ := open(b, b.TempDir(), nil)
	if err := lib.Add(b.Context(), []string{dir}); err != nil {
		b.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Minute)
	for p := lib.Progress(); p.Running || p.Phase == "idle" || p.Queued > 0; p = lib.Progress() {
		if time.Now().After(deadline) {
			b.Fatal("indexing did not finish")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return lib, dir
}
