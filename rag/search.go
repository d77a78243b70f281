package rag

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"quire/internal/vecindex"
	"quire/rag/hashvec"
)

// MaxHits is the most hits Search returns.
const MaxHits = 100

// Search ranks chunks for query by the index's default ranking
// (SearchMode with ModeDefault) and returns the best n hits (10 if n <= 0,
// at most MaxHits), each with its citation. A query that matches nothing
// returns no hit and no error.
func (ix *Index) Search(ctx context.Context, query string, n int) ([]Hit, error) {
	return ix.SearchMode(ctx, query, n, ModeDefault)
}

// SearchMode ranks chunks for query in up to two independent arms —
// lexical (FTS5 bm25 over the heading path and text) and vector (cosine
// similarity to the query's embedding) — each to the index's depth, as
// mode says (see Mode and Calibration), then arranges the best of them
// into citations: adjacent passages of one file merge, no file takes more
// than two of the top five while other files match, and passages that are
// mostly links or headings go below the passages they point to.
//
// The vector arm counts only the passages with a similarity at or above
// the embedder's floor, so a query with no word in common with the
// documents (and no meaning near them) returns no hit.
//
// Any text is a valid query: it is cut into words and each word is
// quoted, so FTS5 syntax in it ("col:x", "AND", "*", a lone quote) is
// searched for as words, never interpreted. If the vector arm fails (the
// embedding model went away), the hits come from the lexical arm alone
// and VectorError says why.
func (ix *Index) SearchMode(ctx context.Context, query string, n int, mode Mode) ([]Hit, error) {
	if ix.closed.Load() {
		return nil, ErrClosed
	}
	query = strings.TrimSpace(query)
	if query == "" {
		return nil, ErrEmptyQuery
	}
	if n <= 0 {
		n = 10
	}
	n = min(n, MaxHits)
	// One embedder for the whole search: a switch adopting another one
	// meanwhile cannot mix their vectors in this ranking, nor rank one
	// embedder's vectors by the other's calibration.
	e := ix.cur()
	p, err := ix.plan(mode, e)
	if err != nil {
		return nil, err
	}
	depth := max(ix.opts.depth, n)
	terms := QueryTerms(query)
	lex, vec, err := ix.arms(ctx, e, query, terms, depth, p)
	if err != nil {
		return nil, err
	}
	fused := fuse(ix.opts.rrfK, p, lex, vec)
	hits, err := ix.arrangeable(ctx, e, fused, terms, n)
	if err != nil {
		return nil, err
	}
	hits = arrange(hits, ix.opts.rules)
	if len(hits) > n {
		hits = hits[:n]
	}
	// Snippets last: only the hits returned need one.
	for i := range hits {
		hits[i].Snippet = snippet(hits[i].text, terms, ix.opts.snippet)
	}
	return hits, nil
}

// arrangeable reads the passages the arrangement works on: a few past the
// nth (merged and deferred ones leave room), and, while one or two files
// hold all of them, further down the ranking until other files show or the
// ranking ends — else a note of forty sections would take every place, as
// though no other file matched.
func (ix *Index) arrangeable(ctx context.Context, e *embedding, fused []ranked, terms []string, n int) ([]Hit, error) {
	enough := (spreadTop + spreadPer - 1) / spreadPer // files that fill the top places
	for w := 3*n + 10; ; w *= 4 {
		cut := fused[:min(w, len(fused))]
		hits, err := ix.hits(ctx, e, cut, terms)
		if err != nil || !ix.opts.rules.spread || len(cut) == len(fused) || distinctFiles(hits) >= enough {
			return hits, err
		}
	}
}

// distinctFiles counts the files hits come from.
func distinctFiles(hits []Hit) int {
	seen := map[int64]bool{}
	for _, h := range hits {
		seen[h.file] = true
	}
	return len(seen)
}

// arms runs the arms p asks for, at once when both rank, the vector arm
// with e's vectors; a plan without the vector arm leaves them unloaded.
func (ix *Index) arms(ctx context.Context, e *embedding, query string, terms []string, depth int, p plan) (lex []int64, vec []vecindex.Hit, err error) {
	var vecErr error
	switch {
	case p.lexical && p.vector == vectorRanks:
		vecDone := make(chan struct{})
		go func() {
			defer close(vecDone)
			vec, vecErr = ix.vectorRanking(ctx, e, query, depth)
		}()
		lex, err = ix.lexical(ctx, terms, depth)
		<-vecDone
	case p.lexical:
		lex, err = ix.lexical(ctx, terms, depth)
	default:
		vec, vecErr = ix.vectorRanking(ctx, e, query, depth)
	}
	if err != nil {
		return nil, nil, err
	}
	if p.vector == vectorOff {
		return lex, nil, nil
	}
	if vecErr != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		msg := vecErr.Error()
		ix.vectorErr.Store(&msg)
		if !p.lexical {
			return nil, nil, fmt.Errorf("rag: vector search: %w", vecErr)
		}
		return lex, nil, nil
	}
	ix.vectorErr.Store(nil)
	return lex, vec, nil
}

// ranked is one chunk in the fused ranking.
type ranked struct {
	id       int64
	score    float64
	lex, vec int     // 1-based ranks; 0 = absent from that list
	sim      float32 // similarity to the query when the vector arm ranked it
}

// fuse combines the arms as p says: Reciprocal Rank Fusion (fuseWeighted)
// with the vector list weighted p.weight. The vector arm contributes only
// the passages at or above p.floor — its list, best first, is cut there —
// so a vector arm with nothing close adds nothing, and a query with no
// matching word and nothing near in meaning finds no passage.
func fuse(k float64, p plan, lex []int64, vec []vecindex.Hit) []ranked {
	ids := make([]int64, 0, len(vec))
	sims := make(map[int64]float32, len(vec))
	for _, h := range vec {
		if float64(h.Similarity) < p.floor {
			break // Nearest returns the best first: the rest are below too
		}
		ids = append(ids, h.ID)
		if _, dup := sims[h.ID]; !dup {
			sims[h.ID] = h.Similarity
		}
	}
	out := fuseWeighted(k, p.weight, lex, ids)
	for i := range out {
		if out[i].vec > 0 {
			out[i].sim = sims[out[i].id]
		}
	}
	return out
}

// RRF fuses two rankings by Reciprocal Rank Fusion with constant k
// (fuseWeighted, both lists weighted alike) and returns the ids best
// first. Ties go to the first list, so a caller that fuses another
// source's results (search_docs' notes) puts its own first.
func RRF(k float64, first, second []int64) []int64 {
	fused := fuseWeighted(k, 1, first, second)
	out := make([]int64, len(fused))
	for i, r := range fused {
		out[i] = r.id
	}
	return out
}

// fuseWeighted combines rankings by Reciprocal Rank Fusion: a chunk scores
// the sum of 1/(k + rank) over the lists it appears in, the vector list's
// terms multiplied by vw. Ties go to the better lexical rank, then the
// better vector rank, then the lower id, so the order is deterministic.
// lists[0] is lexical, lists[1] vector.
func fuseWeighted(k, vw float64, lists ...[]int64) []ranked {
	byID := map[int64]*ranked{}
	var order []*ranked
	for li, list := range lists {
		for i, id := range list {
			r := byID[id]
			if r == nil {
				r = &ranked{id: id}
				byID[id] = r
				order = append(order, r)
			}
			rank := i + 1
			switch li {
			case 0:
				if r.lex != 0 {
					continue // a duplicate in one list counts once, at its best rank
				}
				r.lex = rank
			case 1:
				if r.vec != 0 {
					continue
				}
				r.vec = rank
			}
			w := 1.0
			if li == 1 {
				w = vw
			}
			r.score += w / (k + float64(rank))
		}
	}
	out := make([]ranked, len(order))
	for i, r := range order {
		out[i] = *r
	}
	slices.SortFunc(out, func(a, b ranked) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		if c := compareRank(a.lex, b.lex); c != 0 {
			return c
		}
		if c := compareRank(a.vec, b.vec); c != 0 {
			return c
		}
		return compareInt(a.id, b.id)
	})
	return out
}

// compareRank orders ranks best first, absent (0) last.
func compareRank(a, b int) int {
	switch {
	case a == b:
		return 0
	case a == 0:
		return 1
	case b == 0:
		return -1
	case a < b:
		return -1
	}
	return 1
}

func compareInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// maxTerms bounds the words of a query sent to FTS5.
const maxTerms = 64

// QueryTerms cuts a query into lowercase words (runs of letters, digits
// and combining marks, as FTS5's unicode61 tokenizer does), once each, in
// order, without English stopwords unless the query is nothing but. The
// notes index (vaultindex) ranks with the same terms.
func QueryTerms(q string) []string {
	var all, content []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(q, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r))
	}) {
		w = strings.ToLower(w)
		if seen[w] || strings.IndexFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
			continue
		}
		seen[w] = true
		all = append(all, w)
		if !hashvec.IsStopword(w) {
			content = append(content, w)
		}
	}
	if len(content) == 0 {
		content = all
	}
	if len(content) > maxTerms {
		content = content[:maxTerms]
	}
	return content
}

// MatchAny is an FTS5 query matching any of the terms: each term is a
// double-quoted string (internal quotes doubled), so nothing in it is syntax.
func MatchAny(terms []string) string {
	quoted := make([]string, len(terms))
	for i, t := range terms {
		quoted[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	return strings.Join(quoted, " OR ")
}

func (ix *Index) lexical(ctx context.Context, terms []string, depth int) ([]int64, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	if ix.opts.maxDF > 0 {
		var err error
		if terms, err = ix.pruneCommon(ctx, terms); err != nil {
			return nil, fmt.Errorf("rag: lexical search: %w", err)
		}
	}
	rows, err := ix.db.QueryContext(ctx, `SELECT rowid FROM rag_fts WHERE rag_fts MATCH ? ORDER BY bm25(rag_fts, ?, ?) LIMIT ?`,
		MatchAny(terms), ix.opts.lexWeights[0], ix.opts.lexWeights[1], depth)
	if err != nil {
		return nil, fmt.Errorf("rag: lexical search: %w", err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("rag: lexical search: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("rag: lexical search: %w", err)
	}
	return ids, nil
}

// vectorWeight is the vector list's weight in the fusion: the one set
// (WithVectorWeight), else the default for e's kind of embedder.
func vectorWeight(set float64, e *embedding) float64 {
	switch {
	case set > 0:
		return set
	case e.offline != nil:
		return 0.3
	}
	return 1
}

// QueryEmbedWait bounds the embedding model's answer for a query's vector.
// Ollama embeds a query in tens of milliseconds once the model is loaded and
// in a few seconds when it must load it first.
const QueryEmbedWait = 5 * time.Second

// ErrQueryEmbedSlow: the embedding model did not give a query's vector in
// time; the search ranked by words alone.
var ErrQueryEmbedSlow = errors.New("the embedding model did not answer in time, so this search ranked by words alone")

func (ix *Index) queryWait() time.Duration {
	if ix.opts.queryWait > 0 {
		return ix.opts.queryWait
	}
	return QueryEmbedWait
}

func (ix *Index) queryVector(ctx context.Context, e *embedding, query string) ([]float32, error) {
	if e.offline != nil {
		return e.offline.Query(query, e.sketch), nil
	}
	// An embedding model's query vector costs a call to the model (tens of
	// milliseconds through Ollama) and never changes under one model name,
	// so repeated queries reuse it. The offline embedder's is not cached:
	// it is cheap, and its idf weights follow the corpus.
	if v, ok := e.queries.Get(query); ok {
		return v, nil
	}
	// The model is asked with a bound of its own: a stalled Ollama must not
	// hold up a search whose words alone can answer (arms falls back to
	// them, saying why in VectorError).
	ctx, cancel := context.WithTimeoutCause(ctx, ix.queryWait(), ErrQueryEmbedSlow)
	defer cancel()
	var v []float32
	var err error
	if qe, ok := e.emb.(QueryEmbedder); ok {
		v, err = qe.EmbedQuery(ctx, query)
	} else {
		var vs [][]float32
		vs, err = e.emb.Embed(ctx, []string{query})
		if err == nil && len(vs) != 1 {
			err = fmt.Errorf("%s returned %d vectors for one query", e.name, len(vs))
		}
		if err == nil {
			v = vs[0]
		}
	}
	if err != nil && errors.Is(context.Cause(ctx), ErrQueryEmbedSlow) {
		return nil, fmt.Errorf("%s: %w", e.name, ErrQueryEmbedSlow)
	}
	if err != nil {
		return nil, fmt.Errorf("embed the query with %s: %w", e.name, err)
	}
	if v, err = vecindex.Unit(v); err != nil {
		return nil, err
	}
	e.queries.Add(query, v)
	return v, nil
}

func (ix *Index) vectorRanking(ctx context.Context, e *embedding, query string, depth int) ([]vecindex.Hit, error) {
	vecs, err := ix.vectors(ctx, e)
	if err != nil {
		return nil, err
	}
	if vecs.Len() == 0 {
		return nil, nil
	}
	qv, err := ix.queryVector(ctx, e, query)
	if err != nil || qv == nil {
		return nil, err
	}
	hits, err := vecs.Nearest(qv, depth)
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	return hits, nil
}

// hits loads the chunks of a fused ranking with their citations and what
// made each one match (e made its vectors). A chunk deleted since it was
// ranked is left out.
func (ix *Index) hits(ctx context.Context, e *embedding, fused []ranked, terms []string) ([]Hit, error) {
	if len(fused) == 0 {
		return nil, nil
	}
	args := make([]any, len(fused))
	for i, r := range fused {
		args[i] = r.id
	}
	rows, err := ix.db.QueryContext(ctx, `SELECT c.id, c.file_id, c.ord, f.path, f.root, c.heading, c.start_line, c.end_line, c.text
		FROM rag_chunks c JOIN rag_files f ON f.id = c.file_id WHERE c.id IN (?`+strings.Repeat(", ?", len(fused)-1)+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("rag: %w", err)
	}
	defer rows.Close()
	byID := map[int64]Hit{}
	for rows.Next() {
		var id int64
		var h Hit
		var root, heading string
		if err := rows.Scan(&id, &h.file, &h.ordLo, &h.Path, &root, &heading, &h.StartLine, &h.EndLine, &h.text); err != nil {
			return nil, fmt.Errorf("rag: %w", err)
		}
		h.ordHi = h.ordLo
		h.Name = displayName(root, h.Path)
		h.HeadingPath = splitHeadings(heading)
		h.Matched = matchedTerms(terms, heading, h.text)
		byID[id] = h
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("rag: %w", err)
	}
	out := make([]Hit, 0, len(fused))
	for _, r := range fused {
		h, ok := byID[r.id]
		if !ok {
			continue
		}
		h.Score, h.LexicalRank, h.VectorRank = r.score, r.lex, r.vec
		if e.offline == nil {
			// The built-in embedder's cosine is word overlap again, not
			// meaning: only a model's is worth showing.
			h.Similarity = float64(r.sim)
		}
		out = append(out, h)
	}
	return out, nil
}

// displayName is a path relative to the parent of its root: dropping
// ~/notes gives "notes/plan.md".
func displayName(root, path string) string {
	if rel, err := filepath.Rel(filepath.Dir(root), path); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return path
}

// snippet picks the passage of at most max bytes of text (whitespace
// collapsed) with the most distinct query words, then the most
// occurrences; "…" marks a cut.
func snippet(text string, terms []string, max int) string {
	words := strings.Fields(text)
	if len(words) == 0 {
		return ""
	}
	if max < 16 {
		max = 16
	}
	hit := make([]int, len(words)) // index+1 of the matched term, or 0
	for i, w := range words {
		lw := strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
		for ti, t := range terms {
			if matchesTerm(lw, t) {
				hit[i] = ti + 1
				break
			}
		}
	}
	bestStart, bestEnd, bestDistinct, bestCount := 0, 0, -1, -1
	counts := make([]int, len(terms)+1)
	distinct, count, size, end := 0, 0, -1, 0
	for start := range words {
		// Grow the window [start, end) while it fits (always at least one word).
		for end < len(words) && (end == start || size+1+len(words[end]) <= max) {
			size += 1 + len(words[end])
			if t := hit[end]; t > 0 {
				if counts[t] == 0 {
					distinct++
				}
				counts[t]++
				count++
			}
			end++
		}
		if distinct > bestDistinct || distinct == bestDistinct && count > bestCount {
			bestStart, bestEnd, bestDistinct, bestCount = start, end, distinct, count
		}
		if end == len(words) {
			break // later windows are suffixes of this one
		}
		size -= 1 + len(words[start])
		if t := hit[start]; t > 0 {
			counts[t]--
			count--
			if counts[t] == 0 {
				distinct--
			}
		}
	}
	s := strings.Join(words[bestStart:bestEnd], " ")
	if len(s) > max {
		s = cutBytes(s, max)
	}
	if bestStart > 0 {
		s = "…" + s
	}
	if bestEnd < len(words) {
		s += "…"
	}
	return s
}

func matchesTerm(w, t string) bool {
	if len(t) <= 3 {
		return w == t
	}
	p := t[:max(4, len(t)-2)]
	return strings.HasPrefix(w, p)
}

func cutBytes(s string, n int) string {
	for n > 0 && n < len(s) && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// termStats caches how many chunks contain each query word (as FTS5
// matches it, stemmed), and the number of chunks; any change to the
// chunks clears it.
type termStats struct {
	mu     sync.Mutex
	chunks int
	df     map[string]int
}

func (s *termStats) reset() {
	s.mu.Lock()
	s.chunks, s.df = 0, nil
	s.mu.Unlock()
}

// pruneCommon drops the words in more than maxDF of the chunks, keeping
// at least the rarest word.
func (ix *Index) pruneCommon(ctx context.Context, terms []string) ([]string, error) {
	s := &ix.dfs
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.df == nil {
		s.df = map[string]int{}
		if err := ix.db.QueryRowContext(ctx, `SELECT count(*) FROM rag_chunks`).Scan(&s.chunks); err != nil {
			s.df = nil
			return nil, err
		}
	}
	// Below a few hundred matches scoring is cheap anyway, and in a small
	// collection every word is "common".
	limit := max(int(ix.opts.maxDF*float64(s.chunks)), ix.opts.pruneFloor)
	var kept []string
	rarest, rarestDF := "", -1
	for _, t := range terms {
		df, ok := s.df[t]
		if !ok {
			if err := ix.db.QueryRowContext(ctx, `SELECT count(*) FROM rag_fts WHERE rag_fts MATCH ?`, MatchAny([]string{t})).Scan(&df); err != nil {
				return nil, err
			}
			if len(s.df) > 50000 {
				clear(s.df)
			}
			s.df[t] = df
		}
		if df <= limit {
			kept = append(kept, t)
		}
		if df > 0 && (rarestDF < 0 || df < rarestDF) {
			rarest, rarestDF = t, df
		}
	}
	if len(kept) == 0 && rarest != "" {
		kept = []string{rarest}
	}
	return kept, nil
}
