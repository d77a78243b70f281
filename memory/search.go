package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"quire/internal/vecindex"
	"quire/rag/hashvec"
)

// rrfK is the Reciprocal Rank Fusion constant (as in rag).
const rrfK = 60

// Search returns the kept long-term items (facts and preferences, of kinds
// if given) most relevant to query: FTS5 bm25 and vector neighbours fused
// by Reciprocal Rank Fusion. Items of every session are searched: long-term
// memory is shared across conversations.
func (s *Store) Search(ctx context.Context, query string, limit int, kinds ...string) ([]Item, error) {
	if limit <= 0 {
		return nil, nil
	}
	if len(kinds) == 0 {
		kinds = []string{Fact, Preference}
	}
	depth := max(4*limit, 20)
	scores := map[int64]float64{}
	lex, err := s.lexical(ctx, query, depth)
	if err != nil {
		return nil, err
	}
	for i, id := range lex {
		scores[id] += 1 / float64(rrfK+i+1)
	}
	vec, err := s.vector(ctx, query, depth)
	if err != nil {
		return nil, err
	}
	for i, id := range vec {
		scores[id] += 1 / float64(rrfK+i+1)
	}
	ranked := make([]int64, 0, len(scores))
	for id := range scores {
		ranked = append(ranked, id)
	}
	slices.SortFunc(ranked, func(a, b int64) int {
		if scores[a] != scores[b] {
			if scores[a] > scores[b] {
				return -1
			}
			return 1
		}
		return int(a - b)
	})
	out := []Item{}
	for _, id := range ranked {
		if len(out) == limit {
			break
		}
		rowid, it, err := scanItem(s.db.QueryRowContext(ctx, `SELECT `+itemColumns+` FROM memory_items WHERE rowid = ?`, id))
		if err != nil || rowid == 0 {
			continue // forgotten since the vector was read
		}
		if it.Status == Kept && slices.Contains(kinds, it.Kind) {
			out = append(out, it)
		}
	}
	return out, nil
}

// queryTerms are the content words of a request, lower-cased, each once.
func queryTerms(query string) []string {
	var terms []string
	for _, w := range strings.FieldsFunc(strings.ToLower(query), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if !hashvec.IsStopword(w) && !slices.Contains(terms, w) && len(terms) < 32 {
			terms = append(terms, w)
		}
	}
	return terms
}

// quote makes a term an FTS5 string, so nothing in it is FTS5 syntax.
func quote(term string) string { return `"` + strings.ReplaceAll(term, `"`, `""`) + `"` }

// commonShare: a term in more than this share of the items says little about
// which are relevant, and scoring every item it matches is what makes a
// lexical search slow; such terms are dropped while rarer ones remain.
const commonShare = 0.2

func (s *Store) lexical(ctx context.Context, query string, depth int) ([]int64, error) {
	terms := queryTerms(query)
	if len(terms) == 0 {
		return nil, nil
	}
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM memory_items WHERE kind != 'working'`).Scan(&total); err != nil {
		return nil, fmt.Errorf("memory: lexical search: %w", err)
	}
	type counted struct {
		term string
		df   int
	}
	var kept, common []counted
	for _, t := range terms {
		var df int
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?`, quote(t)).Scan(&df); err != nil {
			return nil, fmt.Errorf("memory: lexical search: %w", err)
		}
		switch {
		case df == 0:
		case float64(df) > commonShare*float64(total) && total >= 50:
			common = append(common, counted{t, df})
		default:
			kept = append(kept, counted{t, df})
		}
	}
	if len(kept) == 0 && len(common) > 0 {
		// Only common words: the rarest of them still ranks something.
		kept = []counted{slices.MinFunc(common, func(a, b counted) int { return a.df - b.df })}
	}
	if len(kept) == 0 {
		return nil, nil
	}
	quoted := make([]string, len(kept))
	for i, c := range kept {
		quoted[i] = quote(c.term)
	}
	// Working items are few and filtered out with the rest by Search; a
	// join here would look up every matching row, not just the best.
	ids, err := rowids(ctx, s.db, `SELECT rowid FROM memory_fts WHERE memory_fts MATCH ? ORDER BY rank LIMIT ?`, strings.Join(quoted, " OR "), depth)
	if err != nil {
		return nil, fmt.Errorf("memory: lexical search: %w", err)
	}
	return ids, nil
}

func (s *Store) vector(ctx context.Context, query string, depth int) ([]int64, error) {
	if strings.TrimSpace(query) == "" {
		return nil, nil
	}
	vecs := s.vecs.Load()
	if vecs.Len() == 0 {
		return nil, nil
	}
	embedded, err := s.emb.Embed(ctx, []string{query})
	if err != nil || len(embedded) != 1 {
		s.logger.Warn("memory: embedding the request failed; lexical search only", "err", err)
		return nil, nil
	}
	q, err := vecindex.Unit(embedded[0])
	if err != nil {
		return nil, nil
	}
	hits, err := vecs.Nearest(q, depth)
	if err != nil {
		return nil, fmt.Errorf("memory: vector search: %w", err)
	}
	ids := make([]int64, 0, len(hits))
	for _, h := range hits {
		if h.Similarity <= 0 {
			continue // shares nothing with the request
		}
		ids = append(ids, h.ID)
	}
	return ids, nil
}

// recent returns the newest kept items of a kind.
func (s *Store) recent(ctx context.Context, kind string, limit int) ([]Item, error) {
	return s.query(ctx, `SELECT `+itemColumns+` FROM memory_items WHERE kind = ? AND status = 'kept'
		ORDER BY updated_ns DESC, rowid DESC LIMIT ?`, kind, limit)
}
