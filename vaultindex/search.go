package vaultindex

import (
	"context"
	"math"
	"sort"
	"strings"
	"unicode/utf8"

	"quire/rag"
)

// Query is one search of the notes.
type Query struct {
	Text   string
	Tags   []string // every tag must be on the note (a tag matches its children: project matches project/x)
	Folder string   // only notes under it (slash path relative to the folder)
	Limit  int
}

// Hit is one note found.
type Hit struct {
	Path      string   `json:"path"`
	Title     string   `json:"title"`
	Line      int      `json:"line,omitempty"` // 1-based line of the first match in the text; 0: matched by title, alias or heading only
	Snippet   string   `json:"snippet,omitempty"`
	Tags      []string `json:"tags,omitempty"`
	Backlinks int      `json:"backlinks"`
	Score     float64  `json:"score"`
	// Why it was found: its rank by words and by meaning (0: not found
	// that way), and its best passage's similarity to the query.
	LexicalRank int     `json:"lexicalRank,omitempty"`
	MeaningRank int     `json:"meaningRank,omitempty"`
	Similarity  float64 `json:"similarity,omitempty"`
}

// bm25 weights of the FTS5 columns: title, aliases, headings, body. A
// word in the title says far more about a note than one in its text.
const weights = "10.0, 8.0, 4.0, 1.0"

const (
	snippetRunes = 200
	// candidates ranked by words before the link structure re-ranks them.
	candidateFactor = 3
)

func likeEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(s)
}

// Search ranks the notes for q by FTS5 bm25 over title, aliases,
// headings and text, then lifts notes many others link to (a hub is more
// often what is meant), and gives each hit the line of its first match.
func (x *Index) Search(ctx context.Context, q Query) ([]Hit, error) {
	ts := rag.QueryTerms(q.Text)
	if len(ts) == 0 {
		return nil, nil
	}
	if q.Limit <= 0 {
		q.Limit = 10
	}
	match, headOnly, err := x.plan(ctx, ts)
	if err != nil {
		return nil, err
	}
	sqlq := `SELECT n.id, n.path, n.title, n.tags, bm25(vault_fts, ` + weights + `) AS r
		FROM vault_fts JOIN vault_notes n ON n.id = vault_fts.rowid
		WHERE vault_fts MATCH ? AND n.root = ?`
	var filters string
	var fargs []any
	if f := strings.Trim(q.Folder, "/"); f != "" && f != "." {
		filters += ` AND n.path LIKE ? ESCAPE '\'`
		fargs = append(fargs, likeEscape(f)+"/%")
	}
	for _, t := range q.Tags {
		t = strings.TrimPrefix(strings.TrimSpace(t), "#")
		if t == "" {
			continue
		}
		filters += ` AND (char(10) || lower(n.tags) || char(10) LIKE ? ESCAPE '\' OR char(10) || lower(n.tags) LIKE ? ESCAPE '\')`
		e := likeEscape(strings.ToLower(t))
		fargs = append(fargs, "%\n"+e+"\n%", "%\n"+e+"/%")
	}
	args := append(append([]any{match, x.root}, fargs...), q.Limit*candidateFactor)
	sqlq += filters + ` ORDER BY r LIMIT ?`
	if headOnly {
		// and after those, notes with the words in their text alone, in
		// the index's order: ranking thousands of them by words so common
		// would cost more than it tells
		sqlq = `SELECT * FROM (` + sqlq + `) UNION ALL SELECT * FROM (SELECT n.id, n.path, n.title, n.tags, 0.0
			FROM vault_fts JOIN vault_notes n ON n.id = vault_fts.rowid
			WHERE vault_fts MATCH ? AND n.root = ?` + filters + ` LIMIT ?)`
		args = append(append(append(args, rag.MatchAny(ts), x.root), fargs...), q.Limit*candidateFactor)
	}
	rows, err := x.db.QueryContext(ctx, sqlq, args...)
	if err != nil {
		return nil, err
	}
	var cs []cand
	var raw []float64
	seen := map[int64]bool{}
	for rows.Next() {
		var c cand
		var tags string
		var r float64
		if err := rows.Scan(&c.id, &c.hit.Path, &c.hit.Title, &tags, &r); err != nil {
			rows.Close()
			return nil, err
		}
		if seen[c.id] {
			continue
		}
		seen[c.id] = true
		c.hit.Tags = lines(tags)
		cs = append(cs, c)
		raw = append(raw, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	paths := make([]string, len(cs))
	for i, c := range cs {
		paths[i] = c.hit.Path
	}
	in, err := x.backlinkCounts(ctx, paths)
	if err != nil {
		return nil, err
	}
	for i := range cs {
		c := &cs[i]
		c.hit.Backlinks = in[c.hit.Path]
		// bm25 is negative, lower is better; the lift is at most ×1.5 for
		// a note with about 150 backlinks, so words still decide.
		c.hit.Score = -raw[i] * (1 + 0.1*math.Log1p(float64(c.hit.Backlinks)))
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].hit.Score > cs[j].hit.Score })
	for i := range cs {
		cs[i].hit.LexicalRank = i + 1
	}
	// Meaning, when the index has an embedder: the notes whose passages
	// are nearest the query, fused with the words' ranking by RRF, as the
	// documents' are. A query the embedder cannot take now is ranked by
	// words alone.
	byMeaning, _ := x.byMeaning(ctx, q)
	lines := map[int64]int{}
	if len(byMeaning) > 0 {
		at := map[int64]int{}
		lex := make([]int64, len(cs))
		for i, c := range cs {
			at[c.id] = i
			lex[i] = c.id
		}
		var sem []int64
		var only []near
		for i, n := range byMeaning {
			sem = append(sem, n.id)
			if j, ok := at[n.id]; ok {
				cs[j].hit.MeaningRank, cs[j].hit.Similarity = i+1, roundSim(n.similarity)
			} else {
				only = append(only, n)
			}
			lines[n.id] = n.line
		}
		extra, err := x.meaningHits(ctx, only)
		if err != nil {
			return nil, err
		}
		for _, c := range extra {
			at[c.id] = len(cs)
			cs = append(cs, c)
		}
		fused := fuse(lex, sem)
		ordered := make([]cand, 0, len(fused))
		for i, id := range fused {
			c := cs[at[id]]
			c.hit.Score = math.Round(1e4/float64(60+i+1)) / 1e4 // the fused order, as a score
			ordered = append(ordered, c)
		}
		cs = ordered
	}
	if len(cs) > q.Limit {
		cs = cs[:q.Limit]
	}
	out := make([]Hit, len(cs))
	for i, c := range cs {
		out[i] = c.hit
		if c.hit.LexicalRank == 0 {
			out[i].Line, out[i].Snippet, err = x.lineAt(ctx, c.id, lines[c.id])
			if err != nil {
				return nil, err
			}
			continue
		}
		var h string
		err := x.db.QueryRowContext(ctx, `SELECT highlight(vault_fts, 3, char(2), char(3)) FROM vault_fts WHERE vault_fts MATCH ? AND rowid = ?`,
			rag.MatchAny(ts), c.id).Scan(&h)
		if err != nil {
			return nil, err
		}
		out[i].Line, out[i].Snippet = firstMatch(h)
	}
	return out, nil
}

// cand is one note a search found, by its id.
type cand struct {
	id  int64
	hit Hit
}

func roundSim(f float32) float64 { return math.Round(float64(f)*1000) / 1000 }

// byMeaning is the notes nearest q by meaning that pass its folder and
// tags, best first; nil without an embedder or vectors.
func (x *Index) byMeaning(ctx context.Context, q Query) ([]near, error) {
	qv, err := x.queryVector(ctx, q.Text)
	if err != nil || qv == nil {
		return nil, err
	}
	ns, err := x.nearest(ctx, qv, q.Limit*candidateFactor*2)
	if err != nil || len(ns) == 0 {
		return nil, err
	}
	folder := strings.Trim(q.Folder, "/")
	var tags []string
	for _, t := range q.Tags {
		if t = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(t), "#")); t != "" {
			tags = append(tags, t)
		}
	}
	if (folder == "" || folder == ".") && len(tags) == 0 {
		return ns, nil
	}
	var out []near
	for _, n := range ns {
		var p, ts string
		if err := x.db.QueryRowContext(ctx, `SELECT path, tags FROM vault_notes WHERE id = ?`, n.id).Scan(&p, &ts); err != nil {
			continue
		}
		if folder != "" && folder != "." && !strings.HasPrefix(p, folder+"/") {
			continue
		}
		ok := true
		for _, t := range tags {
			has := false
			for _, nt := range lines(strings.ToLower(ts)) {
				if nt == t || strings.HasPrefix(nt, t+"/") {
					has = true
				}
			}
			ok = ok && has
		}
		if ok {
			out = append(out, n)
		}
	}
	return out, nil
}

// meaningHits are the hits of notes found by meaning alone.
func (x *Index) meaningHits(ctx context.Context, ns []near) ([]cand, error) {
	var out []cand
	var paths []string
	for i, n := range ns {
		c := cand{id: n.id}
		var tags string
		err := x.db.QueryRowContext(ctx, `SELECT path, title, tags FROM vault_notes WHERE id = ?`, n.id).Scan(&c.hit.Path, &c.hit.Title, &tags)
		if err != nil {
			continue // gone meanwhile
		}
		c.hit.Tags = lines(tags)
		c.hit.MeaningRank, c.hit.Similarity = i+1, roundSim(n.similarity)
		out = append(out, c)
		paths = append(paths, c.hit.Path)
	}
	in, err := x.backlinkCounts(ctx, paths)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].hit.Backlinks = in[out[i].hit.Path]
	}
	return out, nil
}

// lineAt is the first non-empty line of a note's text from line n on,
// clipped: the snippet of a note found by meaning.
func (x *Index) lineAt(ctx context.Context, id int64, n int) (int, string, error) {
	var body string
	if err := x.db.QueryRowContext(ctx, `SELECT body FROM vault_fts WHERE rowid = ?`, id).Scan(&body); err != nil {
		return 0, "", err
	}
	// The passage's first line of text: its heading says less, and is
	// taken only when the passage has nothing else near it.
	ls := strings.Split(body, "\n")
	first := -1
	for i := max(n, 1) - 1; i < len(ls) && i < max(n, 1)+8; i++ {
		t := strings.TrimSpace(ls[i])
		if t == "" || t == "---" {
			continue
		}
		if first < 0 {
			first = i
		}
		if !strings.HasPrefix(t, "#") {
			first = i
			break
		}
	}
	if first < 0 {
		return 0, "", nil
	}
	t := strings.TrimSpace(ls[first])
	if r := []rune(t); len(r) > snippetRunes {
		t = string(r[:snippetRunes]) + "…"
	}
	return first + 1, t, nil
}

// backlinkCounts counts the links to each candidate as resolved when
// their notes were indexed (refreshed by each Sync): the search lift needs
// no graph, which a change would make it rebuild.
func (x *Index) backlinkCounts(ctx context.Context, paths []string) (map[string]int, error) {
	out := map[string]int{}
	if len(paths) == 0 {
		return out, nil
	}
	// one count a path, each read from the (root, resolved) index alone
	for _, p := range paths {
		var n int
		if err := x.db.QueryRowContext(ctx, `SELECT count(*) FROM vault_links WHERE root = ? AND resolved = ?`, x.root, p).Scan(&n); err != nil {
			return nil, err
		}
		out[p] = n
	}
	return out, nil
}

// Above minPlanned notes, a word in more than a quarter of them is common.
const minPlanned = 1000

// plan is the FTS5 expression a search ranks by. Words in more than a
// quarter of the notes are dropped when the query has rarer ones (they
// say little, and ranking every note that holds them is most of a
// search's time); when every word is that common, only titles, aliases
// and headings are ranked (headOnly).
func (x *Index) plan(ctx context.Context, ts []string) (match string, headOnly bool, err error) {
	total := x.notesN.Load()
	if total < minPlanned {
		return rag.MatchAny(ts), false, nil
	}
	var rare []string
	for _, t := range ts {
		df, err := x.docFreq(ctx, t, total)
		if err != nil {
			return "", false, err
		}
		if df*4 <= total {
			rare = append(rare, t)
		}
	}
	if len(rare) > 0 {
		return rag.MatchAny(rare), false, nil
	}
	return "{title aliases headings}: (" + rag.MatchAny(ts) + ")", true, nil
}

// docFreq is how many notes hold the word t, counted again once the
// number of notes moved by more than 1% since (common stays common).
func (x *Index) docFreq(ctx context.Context, t string, total int64) (int64, error) {
	if v, ok := x.dfs.Load(t); ok {
		if c := v.(docCount); (c.total-total)*100 <= total && (total-c.total)*100 <= total {
			return c.df, nil
		}
	}
	var df int64
	if err := x.db.QueryRowContext(ctx, `SELECT count(*) FROM vault_fts WHERE vault_fts MATCH ?`, rag.MatchAny([]string{t})).Scan(&df); err != nil {
		return 0, err
	}
	if x.dfN.Add(1) > maxDocCounts { // bounded: a long session's words start over
		x.dfs.Clear()
		x.dfN.Store(0)
	}
	x.dfs.Store(t, docCount{df: df, total: total})
	return df, nil
}

type docCount struct{ df, total int64 }

const maxDocCounts = 4096

// firstMatch finds the first highlighted word (between \x02 and \x03) in
// a highlighted text and returns its line and that line, clipped.
func firstMatch(h string) (int, string) {
	i := strings.IndexByte(h, 2)
	if i < 0 {
		return 0, ""
	}
	line := 1 + strings.Count(h[:i], "\n")
	start := strings.LastIndexByte(h[:i], '\n') + 1
	end := strings.IndexByte(h[i:], '\n')
	if end < 0 {
		end = len(h)
	} else {
		end += i
	}
	text := h[start:end]
	at := i - start
	clean := strings.NewReplacer("\x02", "", "\x03", "").Replace(text[:at])
	rest := strings.NewReplacer("\x02", "", "\x03", "").Replace(text[at:])
	// keep the match in view: cut before it when the line is long
	if n := utf8.RuneCountInString(clean); n > snippetRunes/3 {
		r := []rune(clean)
		clean = "…" + string(r[n-snippetRunes/3:])
	}
	s := strings.TrimSpace(clean + rest)
	if r := []rune(s); len(r) > snippetRunes {
		s = string(r[:snippetRunes]) + "…"
	}
	return line, s
}
