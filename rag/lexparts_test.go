package rag

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
)

// Ranking the lexical arm in rowid ranges on parallel connections must give
// exactly the ranking of one query over the whole table — the same chunks
// in the same order, ties (identical files) included — before and after
// chunks are added beyond the rowid bounds read at the start.
func TestLexicalRangesRankLikeOneQuery(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "notes")
	words := []string{"alpha", "beta", "gamma", "delta", "kappa", "omega", "sigma", "theta"}
	doc := func(i int) string {
		body := fmt.Sprintf("# note %d\n\n", i)
		for j := range 3 + i%5 {
			body += words[(i*j+i/3)%len(words)] + " "
		}
		return body + "\n"
	}
	for i := range 120 {
		write(t, filepath.Join(root, fmt.Sprintf("n%03d.md", i)), doc(i%40)) // three copies of each: equal scores
	}
	db := openDB(t, dir)
	whole := openIndex(t, db, nil, WithLexicalMaxDF(0))
	index(t, whole, root)
	split := openIndex(t, db, nil, WithLexicalMaxDF(0), func(o *options) { o.lexParts, o.lexPartRows = 4, 10 })
	ctx := context.Background()
	check := func(stage string) {
		t.Helper()
		for _, q := range []string{"alpha", "beta gamma", "omega sigma theta kappa", "delta alpha note", "note"} {
			for _, depth := range []int{5, 100} {
				want, err := whole.lexical(ctx, queryTerms(q), depth)
				if err != nil {
					t.Fatal(err)
				}
				got, err := split.lexical(ctx, queryTerms(q), depth)
				if err != nil {
					t.Fatal(err)
				}
				if len(want) == 0 || !slices.Equal(got, want) {
					t.Fatalf("%s: %q depth %d: ranges ranked %v, one query %v", stage, q, depth, got, want)
				}
			}
		}
	}
	check("first pass")
	if st, _ := split.corpusStats(ctx); st.chunks != 120 {
		t.Fatalf("corpus statistics say %d chunks, want 120", st.chunks)
	}
	// More chunks, written by the other index: split's cached bounds are
	// stale, and its last range must still reach them.
	for i := 120; i < 160; i++ {
		write(t, filepath.Join(root, fmt.Sprintf("n%03d.md", i)), doc(i%40)+"alpha\n")
	}
	index(t, whole, root)
	check("after more chunks")
}
