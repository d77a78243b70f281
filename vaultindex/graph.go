package vaultindex

import (
	"context"
	"math"
	"path"
	"slices"
	"sort"
	"strings"

	"quire/vault"
)

// Links is a note's place in the graph.
type Links struct {
	Path       string      `json:"path"`
	Backlinks  []vault.Ref `json:"backlinks"`
	Outgoing   []vault.Ref `json:"outgoing"`
	Unresolved []vault.Ref `json:"unresolved"`
}

// Links gives a note's backlinks, outgoing links and unresolved links.
func (x *Index) Links(path string) (Links, error) {
	if _, ok := x.graph.Note(path); !ok {
		return Links{}, ErrNotIndexed
	}
	return Links{Path: path, Backlinks: x.graph.Backlinks(path), Outgoing: x.graph.Outgoing(path), Unresolved: x.graph.Unresolved(path)}, nil
}

// Orphans are the notes nothing links to and that link nowhere.
func (x *Index) Orphans() []string { return x.graph.Orphans() }

// Related is one note related to another, with why.
type Related struct {
	Path    string   `json:"path"`
	Score   float64  `json:"score"`
	Reasons []string `json:"reasons"`
}

// How much each kind of relation counts. A direct link says most; notes
// that link to the same notes, or are linked from the same notes, count
// less, and less again through a hub (which links everything together).
const (
	weightLink     = 3.0
	weightShared   = 1.0
	weightTag      = 1.0
	weightWords    = 2.0
	weightMeaning  = 2.0
	maxWordMatches = 20
	maxTagNotes    = 200
)

// Related ranks notes related to path: direct links either way, shared
// outgoing links (bibliographic coupling), shared backlinks (co-citation),
// shared tags, and words of its title and headings found by FTS5.
func (x *Index) Related(ctx context.Context, path string, n int) ([]Related, error) {
	note, ok := x.graph.Note(path)
	if !ok {
		return nil, ErrNotIndexed
	}
	score := map[string]float64{}
	why := map[string]map[string]bool{}
	add := func(p string, s float64, reason string) {
		if p == "" || p == path {
			return
		}
		score[p] += s
		if why[p] == nil {
			why[p] = map[string]bool{}
		}
		why[p][reason] = true
	}
	damp := func(degree int) float64 { return 1 / math.Log2(2+float64(degree)) }
	out := x.graph.Outgoing(path)
	in := x.graph.Backlinks(path)
	targets := map[string]bool{}
	for _, r := range out {
		if r.To != "" && !targets[r.To] {
			targets[r.To] = true
			add(r.To, weightLink, "linked from it")
		}
	}
	sources := map[string]bool{}
	for _, r := range in {
		if !sources[r.From] {
			sources[r.From] = true
			add(r.From, weightLink, "links to it")
		}
	}
	for t := range targets {
		bl := x.graph.Backlinks(t)
		for _, r := range bl {
			add(r.From, weightShared*damp(len(bl)), "links to the same notes")
		}
	}
	for s := range sources {
		og := x.graph.Outgoing(s)
		for _, r := range og {
			add(r.To, weightShared*damp(len(og)), "linked from the same notes")
		}
	}
	if err := x.relatedByTags(ctx, path, note.Tags, add); err != nil {
		return nil, err
	}
	words := note.Title + " " + strings.Join(note.Headings, " ")
	if hits, err := x.Search(ctx, Query{Text: words, Limit: maxWordMatches}); err == nil {
		for i, h := range hits {
			add(h.Path, weightWords/float64(i+1), "shares words of its title or headings")
		}
	} else {
		return nil, err
	}
	if err := x.relatedByMeaning(ctx, path, add); err != nil {
		return nil, err
	}
	res := make([]Related, 0, len(score))
	for p, s := range score {
		if _, ok := x.graph.Note(p); !ok {
			continue // an attachment
		}
		r := Related{Path: p, Score: math.Round(s*1000) / 1000}
		for w := range why[p] {
			r.Reasons = append(r.Reasons, w)
		}
		sort.Strings(r.Reasons)
		res = append(res, r)
	}
	sort.Slice(res, func(i, j int) bool {
		if res[i].Score != res[j].Score {
			return res[i].Score > res[j].Score
		}
		return res[i].Path < res[j].Path
	})
	if n > 0 && len(res) > n {
		res = res[:n]
	}
	return res, nil
}

func (x *Index) relatedByTags(ctx context.Context, path string, tags []string, add func(string, float64, string)) error {
	for _, t := range tags {
		rows, err := x.db.QueryContext(ctx, `SELECT path FROM vault_notes WHERE root = ? AND kind = 'note'
			AND char(10) || lower(tags) || char(10) LIKE ? ESCAPE '\' LIMIT ?`, x.root, "%\n"+likeEscape(strings.ToLower(t))+"\n%", maxTagNotes)
		if err != nil {
			return err
		}
		var ps []string
		for rows.Next() {
			var p string
			if err := rows.Scan(&p); err != nil {
				rows.Close()
				return err
			}
			ps = append(ps, p)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, p := range ps {
			add(p, weightTag*(1/math.Log2(2+float64(len(ps)))), "shares the tag #"+t)
		}
	}
	return nil
}

// Names is every indexed path whose text holds q, case folded, as a
// scan of the folder would name it: notes, attachments and their folders
// (a folder with a trailing "/"), in path order, at most limit (more
// reports others). It reads the graph alone, no file and no table.
func (x *Index) Names(q string, limit int) (paths []string, more bool) {
	q = strings.ToLower(q)
	all := append(x.graph.Paths(), x.graph.Files()...)
	seen := map[string]bool{}
	var found []string
	for _, p := range all {
		for dir := path.Dir(p); dir != "." && !seen[dir]; dir = path.Dir(dir) {
			seen[dir] = true
			if strings.Contains(strings.ToLower(dir), q) {
				found = append(found, dir+"/")
			}
		}
		if strings.Contains(strings.ToLower(p), q) {
			found = append(found, p)
		}
	}
	slices.SortFunc(found, func(a, b string) int { return strings.Compare(strings.TrimSuffix(a, "/"), strings.TrimSuffix(b, "/")) })
	if len(found) > limit {
		return found[:limit], true
	}
	return found, false
}

// relatedByMeaning adds the notes nearest in meaning to the note as a
// whole (the mean of its passages' vectors), when the index has them.
func (x *Index) relatedByMeaning(ctx context.Context, path string, add func(string, float64, string)) error {
	var id int64
	if err := x.db.QueryRowContext(ctx, `SELECT id FROM vault_notes WHERE root = ? AND path = ?`, x.root, path).Scan(&id); err != nil {
		return nil // not stored yet: no vectors either
	}
	v, err := x.noteVector(ctx, id)
	if err != nil || v == nil {
		return err
	}
	ns, err := x.nearest(ctx, v, maxWordMatches+1)
	if err != nil {
		return err
	}
	rank := 0
	for _, n := range ns {
		if n.id == id {
			continue
		}
		rank++
		var p string
		if err := x.db.QueryRowContext(ctx, `SELECT path FROM vault_notes WHERE id = ?`, n.id).Scan(&p); err != nil {
			continue
		}
		add(p, weightMeaning/float64(rank), "close in meaning")
	}
	return nil
}
