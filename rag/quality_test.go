package rag

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

var qualityAll = flag.Bool("quality.all", false, "the quality gates also score the vector and hybrid rankings (docs/BENCHMARKS-NOTEBOOK.md); make test leaves them out")

// notesDocs is how many of the subset's abstracts the notes folder holds:
// every one relevant to a claim, then the others in the file's order.
// Half the subset keeps the test's cost in `make test` (under -race) down.
const notesDocs = 1200

// The quality gates of `make test`: a held-out subset of SciFact ships in
// testdata/scifact (README there: what it is, its licence, how it was
// made), so they run on a clean clone with no data folder. The full
// measurement is TestSciFact with -scifact (make bench).
//
// subsetLexicalFloor is the lexical arm's nDCG@10 on the subset as
// measured (docs/BENCHMARKS-NOTEBOOK.md, "Ranking") less a margin of 0.02: a change
// to the lexical arm, the chunker or the arrangement that loses more fails.
const subsetLexicalFloor = 0.663

func loadSubset(t *testing.T) ([]sfDoc, []sfQuery, map[string]map[string]bool) {
	dir := filepath.Join("testdata", "scifact")
	docs, queries, qrels := loadSciFactFiles(t, filepath.Join(dir, "docs.jsonl.gz"), filepath.Join(dir, "queries.jsonl"), filepath.Join(dir, "qrels.tsv"))
	if len(docs) < 2000 || len(queries) < 60 {
		t.Fatalf("the subset has %d abstracts and %d judged claims; want ≥ 2000 and ≥ 60", len(docs), len(queries))
	}
	for _, q := range queries {
		if !heldOut(q.ID) {
			t.Fatalf("claim %s of the subset is not held out: it may have been tuned on", q.ID)
		}
	}
	return docs, queries, qrels
}

// TestTheDefaultRankingIsNeverWorseThanLexicalOnHeldOutClaims: on claims
// nothing was tuned on, the default ranking (what search_docs and `quire
// search` use) scores at least the lexical arm alone, and the lexical arm
// keeps its measured figure.
func TestTheDefaultRankingIsNeverWorseThanLexicalOnHeldOutClaims(t *testing.T) {
	t.Parallel()
	docs, queries, qrels := loadSubset(t)
	dir := t.TempDir()
	corpus := filepath.Join(dir, "scifact")
	writeCorpus(t, corpus, docs, nil)
	ix := openIndex(t, openDB(t, dir), nil)
	index(t, ix, corpus)
	ev := newEvaluator(ix, queries, qrels)
	modes := []Mode{ModeLexical, ModeDefault}
	if *qualityAll {
		modes = append(modes, ModeVector, ModeHybrid)
	}
	byMode := map[Mode]metrics{}
	for _, m := range modes {
		r := ev.score(t, m)
		byMode[m] = r
		t.Logf("subset (%d claims, %d abstracts) %-8s nDCG@10 %.4f R@10 %.4f MRR@10 %.4f", len(queries), len(docs), modeName(m), r.ndcg, r.recall, r.mrr)
	}
	lex, def := byMode[ModeLexical], byMode[ModeDefault]
	if lex.ndcg < subsetLexicalFloor {
		t.Errorf("lexical nDCG@10 %.4f fell below its floor %.4f", lex.ndcg, subsetLexicalFloor)
	}
	if def.ndcg < lex.ndcg {
		t.Errorf("the default ranking (nDCG@10 %.4f) is worse than lexical alone (%.4f)", def.ndcg, lex.ndcg)
	}
}

// notesFolder writes the abstracts as a Markdown notes folder: each note a
// title, a summary and details section, and a README that links every
// note by its title — the table of contents that, ranked by words alone,
// takes the top places for any question.
func notesFolder(t *testing.T, dir string, docs []sfDoc) {
	var readme strings.Builder
	readme.WriteString("# Reading notes\n\nEvery note, by title.\n\n")
	writeCorpus(t, dir, docs, func(d sfDoc) string {
		sentences := strings.SplitAfter(d.Text, ". ")
		half := (len(sentences) + 1) / 2
		return "# " + d.Title + "\n\n## Summary\n\n" + strings.Join(sentences[:half], "") + "\n\n## Details\n\n" + strings.Join(sentences[half:], "") + "\n"
	})
	for _, d := range docs {
		fmt.Fprintf(&readme, "- [%s](%s.md)\n", d.Title, d.ID)
	}
	write(t, filepath.Join(dir, "README.md"), readme.String())
}

// scorePassages scores passages as a reader meets them: a passage of a
// relevant note counts at its own place, the first of its note only, so a
// second passage of one note takes a place and adds nothing.
func scorePassages(ids []string, rel map[string]bool) metrics {
	seen := map[string]bool{}
	out := make([]string, len(ids))
	for i, id := range ids {
		if !seen[id] {
			out[i] = id
		}
		seen[id] = true
	}
	return score(out, rel)
}

// TestNotesFolderRanksNotesAboveTheirTableOfContents: on the subset as a
// notes folder with a README linking every note, the default ranking is at
// least lexical alone with no rule, and the README rarely takes a top-3 place.
func TestNotesFolderRanksNotesAboveTheirTableOfContents(t *testing.T) {
	t.Parallel()
	subset, queries, qrels := loadSubset(t)
	relevant := map[string]bool{}
	for _, rel := range qrels {
		for d := range rel {
			relevant[d] = true
		}
	}
	var docs []sfDoc
	for _, d := range subset {
		if relevant[d.ID] {
			docs = append(docs, d)
		}
	}
	for _, d := range subset {
		if !relevant[d.ID] && len(docs) < notesDocs {
			docs = append(docs, d)
		}
	}
	dir := t.TempDir()
	root := filepath.Join(dir, "notes")
	notesFolder(t, root, docs)
	ix := openIndex(t, openDB(t, dir), nil)
	index(t, ix, root)
	run := func(r rules, mode Mode) (m metrics, readmeTop3 int) {
		saved := ix.opts.rules
		ix.opts.rules = r
		defer func() { ix.opts.rules = saved }()
		var sum metrics
		for _, q := range queries {
			hits, err := ix.SearchMode(context.Background(), q.Text, evalHits, mode)
			if err != nil {
				t.Fatal(err)
			}
			ids := make([]string, len(hits))
			for i, h := range hits {
				ids[i] = docID(h)
				if i < 3 && ids[i] == "README" {
					readmeTop3++
				}
			}
			add(&sum, scorePassages(ids, qrels[q.ID]))
		}
		n := float64(len(queries))
		return metrics{sum.ndcg / n, sum.recall / n, sum.mrr / n}, readmeTop3
	}
	all := rules{merge: true, demote: true, spread: true}
	results := map[string]metrics{}
	var readme int
	for _, c := range []struct {
		name string
		r    rules
		mode Mode
	}{
		{"lexical, no rule", rules{}, ModeLexical},
		{"vector, all rules", all, ModeVector},
		{"hybrid, all rules", all, ModeHybrid},
		{"default, all rules", all, ModeDefault},
		{"default, no rule", rules{}, ModeDefault},
		{"default, without merging", rules{demote: true, spread: true}, ModeDefault},
		{"default, without demoting", rules{merge: true, spread: true}, ModeDefault},
		{"default, without spreading", rules{merge: true, demote: true}, ModeDefault},
	} {
		if (c.mode == ModeVector || c.mode == ModeHybrid) && !*qualityAll {
			continue
		}
		m, top3 := run(c.r, c.mode)
		results[c.name] = m
		if c.name == "default, all rules" {
			readme = top3
		}
		t.Logf("notes folder (%d notes + README, %d claims): %-28s nDCG@10 %.4f R@10 %.4f MRR@10 %.4f; README in a top-3 place %d times",
			len(docs), len(queries), c.name, m.ndcg, m.recall, m.mrr, top3)
	}
	if d, l := results["default, all rules"], results["lexical, no rule"]; d.ndcg < l.ndcg {
		t.Errorf("notes folder: the default ranking (nDCG@10 %.4f) is worse than lexical alone (%.4f)", d.ndcg, l.ndcg)
	}
	if readme > len(queries)/20 {
		t.Errorf("the README took a top-3 place for %d of %d claims", readme, len(queries))
	}
}
