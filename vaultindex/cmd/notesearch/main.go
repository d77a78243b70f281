// Command notesearch indexes a notes folder into a new database, gives
// its notes vectors, and prints what search_notes and related_notes find
// for each query: every hit with its rank by words and by meaning and its
// best passage's similarity. It shows the meaning search on a real vault.
//
//	go run ./vaultindex/cmd/notesearch -dir VAULT -related "Note.md" "query one" "query two"
//
// The embedder is Quire's built-in hashed one (rag/hashvec: stemmed words
// and character 4-grams; what the documents use without a model): no
// model runs offline here, so "meaning" is near spellings and shared
// word parts, not synonyms; with Ollama the app uses the model's vectors.
// Test equipment: it reads the folder and writes only a temporary database.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"quire/kernel/store"
	"quire/rag/hashvec"
	"quire/vaultindex"
)

func main() {
	dir := flag.String("dir", "", "the notes folder (read only)")
	floor := flag.Float64("floor", 0.3, "the least similarity the meaning arm counts")
	related := flag.String("related", "", "a note whose related notes to print")
	limit := flag.Int("n", 5, "hits a query")
	flag.Parse()
	if err := run(*dir, *floor, *related, *limit, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "notesearch:", err)
		os.Exit(1)
	}
}

func run(dir string, floor float64, related string, limit int, queries []string) error {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "quire-notesearch-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	st, err := store.Open(ctx, filepath.Join(tmp, "quire.db"))
	if err != nil {
		return err
	}
	defer st.Close()
	embedded := make(chan [2]int, 1024)
	x, err := vaultindex.Open(ctx, st.DB(), dir, vaultindex.WithMeaningFloor(floor),
		vaultindex.WithEmbedProgress(func(done, total int) { embedded <- [2]int{done, total} }))
	if err != nil {
		return err
	}
	defer x.Close()
	start := time.Now()
	if err := x.Sync(ctx); err != nil {
		return err
	}
	fmt.Printf("indexed %d notes of %s in %.1f s\n", x.Count(), dir, time.Since(start).Seconds())
	emb := hashvec.New(hashvec.Default)
	start = time.Now()
	x.UseMeaning(emb, "")
	for r := range embedded {
		if r[0] == r[1] {
			break
		}
	}
	var vectors int
	if err := st.DB().QueryRow(`SELECT count(*) FROM vault_vectors`).Scan(&vectors); err != nil {
		return err
	}
	fmt.Printf("embedded by %s: %d passages in %.1f s\n\n", emb.Name(), vectors, time.Since(start).Seconds())
	for _, q := range queries {
		hits, err := x.Search(ctx, vaultindex.Query{Text: q, Limit: limit})
		if err != nil {
			return err
		}
		fmt.Printf("%q\n", q)
		for i, h := range hits {
			how := []string{}
			if h.LexicalRank > 0 {
				how = append(how, fmt.Sprintf("words #%d", h.LexicalRank))
			}
			if h.MeaningRank > 0 {
				how = append(how, fmt.Sprintf("meaning #%d (%.2f)", h.MeaningRank, h.Similarity))
			}
			fmt.Printf("  %d. %s [%s] line %d: %s\n", i+1, h.Path, strings.Join(how, ", "), h.Line, clip(h.Snippet, 90))
		}
	}
	if related != "" {
		rel, err := x.Related(ctx, related, limit)
		if err != nil {
			return err
		}
		fmt.Printf("\nrelated to %s\n", related)
		for i, r := range rel {
			fmt.Printf("  %d. %s (%.2f: %s)\n", i+1, r.Path, r.Score, strings.Join(r.Reasons, "; "))
		}
	}
	return nil
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
