package rag

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Mode says which arms rank a search.
type Mode string

const (
	// ModeDefault ranks as the embedder's Calibration says: with the
	// built-in embedder, the lexical arm alone.
	ModeDefault Mode = ""
	// ModeLexical ranks by words alone (FTS5 bm25).
	ModeLexical Mode = "lexical"
	// ModeVector ranks by vector similarity alone, above the floor.
	ModeVector Mode = "vector"
	// ModeHybrid fuses both arms by Reciprocal Rank Fusion, the vector
	// list weighted as WithVectorWeight says.
	ModeHybrid Mode = "hybrid"
)

// ErrUnknownMode: a search mode other than lexical, vector, hybrid or the default.
var ErrUnknownMode = errors.New("unknown search mode")

// ParseMode reads a mode as a person types it: "lexical", "vector",
// "hybrid", or "" / "default" for the default ranking.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case ModeLexical, ModeVector, ModeHybrid, ModeDefault:
		return m, nil
	case "default":
		return ModeDefault, nil
	}
	return "", fmt.Errorf("%q: %w (lexical, vector or hybrid)", s, ErrUnknownMode)
}

// Calibration is how one embedder's vector arm joins the default ranking.
// Each embedder has its own: a vector arm's similarities and its worth
// against words differ from model to model.
type Calibration struct {
	// Weight multiplies the vector list in the default ranking's fusion;
	// 0 leaves the vector arm out of the default ranking.
	Weight float64
	// Floor is the least cosine similarity for the vector arm to count a
	// passage at all: below it, the vector arm says nothing of it.
	Floor float64
}

// defaultCalibration is the calibration of an embedder with none of its
// own, measured on SciFact (docs/BENCHMARKS-NOTEBOOK.md, "Ranking").
func defaultCalibration(offline bool) Calibration {
	if offline {
		// The built-in embedder's vectors are a lossy copy of the words
		// bm25 already ranks: fusing them at any weight lowered nDCG@10,
		// and their typo recall is too weak to be worth a floor (nonsense
		// queries reach the similarity of one-letter typos). The floor
		// keeps nonsense out of the vector and hybrid modes.
		return Calibration{Weight: 0, Floor: 0.3}
	}
	// An embedding model nobody has measured here (no model runs on the
	// machines this was built on): its list counts half as much as the
	// words', and only for passages with the similarity of a close
	// paraphrase — the vectors of a model without meaning (the stand-in of
	// TestSciFact) then add nothing, and the ranking stays lexical. A
	// measured model gets its own through WithCalibration.
	return Calibration{Weight: 0.5, Floor: 0.6}
}

// WithCalibration sets how the vector arm of the embedder named name
// joins the default ranking (and its floor in every mode), replacing that
// embedder's default. It is the named embedder's alone: after a switch to
// another one, searches follow the other's calibration.
func WithCalibration(name string, c Calibration) Option {
	return func(o *options) {
		if o.calibrations == nil {
			o.calibrations = map[string]Calibration{}
		}
		o.calibrations[name] = c
	}
}

// vectorRole is what the vector arm does in a ranking.
type vectorRole int

const (
	vectorOff   vectorRole = iota
	vectorRanks            // fused with the lexical list
)

// plan is how one search ranks.
type plan struct {
	lexical bool
	vector  vectorRole
	weight  float64 // the vector list's weight in the fusion
	floor   float64 // least similarity for the vector arm to count a passage
}

// calibration is e's: the one set for its name (WithCalibration), else
// the default for its kind of embedder — the search's own embedding, so a
// ranking never weighs one embedder's vectors by another's calibration.
func (ix *Index) calibration(e *embedding) Calibration {
	if c, ok := ix.opts.calibrations[e.name]; ok {
		return c
	}
	return defaultCalibration(e.offline != nil)
}

// plan is how a search in mode m ranks with e's vectors.
func (ix *Index) plan(m Mode, e *embedding) (plan, error) {
	c := ix.calibration(e)
	switch m {
	case ModeLexical:
		return plan{lexical: true}, nil
	case ModeVector:
		return plan{vector: vectorRanks, weight: 1, floor: c.Floor}, nil
	case ModeHybrid:
		return plan{lexical: true, vector: vectorRanks, weight: vectorWeight(ix.opts.vecWeight, e), floor: c.Floor}, nil
	case ModeDefault:
		if c.Weight > 0 {
			return plan{lexical: true, vector: vectorRanks, weight: c.Weight, floor: c.Floor}, nil
		}
		return plan{lexical: true}, nil
	}
	return plan{}, fmt.Errorf("rag: %q: %w", m, ErrUnknownMode)
}

// rules are the arrangements of the ranked passages into citations, each
// measured on SciFact and on a notes folder (docs/BENCHMARKS-NOTEBOOK.md).
type rules struct {
	merge  bool // adjacent passages of one file become one citation
	demote bool // passages that are mostly links or headings go below the others
	spread bool // at most spreadPer passages of one file in the top spreadTop
}

const (
	spreadTop = 5
	spreadPer = 2
	// maxMerged is the most chunks one merged citation spans: a long run
	// of matching chunks is several citations, not the whole file.
	maxMerged = 3
	// navShare is the share of a passage's text in links and headings
	// from which it is a table of contents or an index.
	navShare = 0.5
)

// arrange applies the rules to hits in rank order.
func arrange(hits []Hit, r rules) []Hit {
	if r.merge {
		hits = mergeAdjacent(hits)
	}
	if r.demote {
		hits = demoteNavigation(hits)
	}
	if r.spread {
		hits = spread(hits, spreadTop, spreadPer)
	}
	return hits
}

// touching reports whether two passages of one file are next to each
// other (consecutive chunks: only blank lines, if anything, between them)
// or cover overlapping lines. A PDF's lines count within a page, so its
// passages touch only under the same headings (the same page).
func touching(a, b Hit) bool {
	if a.file != b.file || a.StartLine <= 0 || b.StartLine <= 0 {
		return false
	}
	if strings.HasSuffix(strings.ToLower(a.Path), ".pdf") && !slices.Equal(a.HeadingPath, b.HeadingPath) {
		return false
	}
	return a.ordLo <= b.ordHi+1 && b.ordLo <= a.ordHi+1 || a.StartLine <= b.EndLine && b.StartLine <= a.EndLine
}

// mergeAdjacent folds each passage into the better-ranked passage of its
// file it touches: one citation with the joined line range, at the better
// one's place and ranks.
func mergeAdjacent(hits []Hit) []Hit {
	for i := 0; i < len(hits); i++ {
		for merged := true; merged; {
			merged = false
			for j := i + 1; j < len(hits); j++ {
				if !touching(hits[i], hits[j]) || max(hits[i].ordHi, hits[j].ordHi)-min(hits[i].ordLo, hits[j].ordLo) >= maxMerged {
					continue
				}
				hits[i] = join(hits[i], hits[j])
				hits = slices.Delete(hits, j, j+1)
				merged = true
				break
			}
		}
	}
	return hits
}

func join(a, b Hit) Hit {
	first, second := a, b
	if b.StartLine < a.StartLine {
		first, second = b, a
	}
	out := a
	out.StartLine, out.EndLine = min(a.StartLine, b.StartLine), max(a.EndLine, b.EndLine)
	out.ordLo, out.ordHi = min(a.ordLo, b.ordLo), max(a.ordHi, b.ordHi)
	out.text = first.text + "\n" + second.text
	n := 0
	for n < len(a.HeadingPath) && n < len(b.HeadingPath) && a.HeadingPath[n] == b.HeadingPath[n] {
		n++
	}
	out.HeadingPath = slices.Clip(a.HeadingPath[:n])
	if len(out.HeadingPath) == 0 {
		out.HeadingPath = nil
	}
	out.Matched = slices.Clone(a.Matched)
	for _, w := range b.Matched {
		if !slices.Contains(out.Matched, w) {
			out.Matched = append(out.Matched, w)
		}
	}
	out.Similarity = max(a.Similarity, b.Similarity)
	if out.VectorRank == 0 {
		out.VectorRank = b.VectorRank
	}
	if out.LexicalRank == 0 {
		out.LexicalRank = b.LexicalRank
	}
	return out
}

// demoteNavigation moves the passages that are mostly links or headings
// (tables of contents, indexes) below the others, each group keeping its order.
func demoteNavigation(hits []Hit) []Hit {
	var nav []Hit
	out := hits[:0:0]
	for _, h := range hits {
		if navigationShare(h.text) >= navShare {
			nav = append(nav, h)
		} else {
			out = append(out, h)
		}
	}
	return append(out, nav...)
}

// spread keeps at most per passages of one file among the first top,
// as long as other files have passages to take their place.
func spread(hits []Hit, top, per int) []Hit {
	var head, rest []Hit
	count := map[int64]int{}
	for _, h := range hits {
		if len(head) < top && count[h.file] < per {
			head = append(head, h)
			count[h.file]++
		} else {
			rest = append(rest, h)
		}
	}
	if len(head) < top {
		// Fewer files match than places: the file's further passages are
		// the best there is.
		k := min(top-len(head), len(rest))
		head = append(head, rest[:k]...)
		rest = rest[k:]
	}
	return append(head, rest...)
}

// navigationShare is the share of text's visible characters (not spaces)
// in headings, links and list markers: near 1 for a table of contents,
// near 0 for prose.
func navigationShare(text string) float64 {
	var total, nav int
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		visible := countVisible(line)
		if visible == 0 {
			continue
		}
		total += visible
		if strings.HasPrefix(line, "#") {
			nav += visible
			continue
		}
		nav += countVisible(linkText(line))
		if t := strings.TrimLeft(line, "-*+ 0123456789.)"); len(t) < len(line) && (strings.HasPrefix(line, "-") || strings.HasPrefix(line, "*") ||
			strings.HasPrefix(line, "+") || line[0] >= '0' && line[0] <= '9') {
			nav += countVisible(line[:len(line)-len(t)])
		}
	}
	if total == 0 {
		return 0
	}
	return float64(nav) / float64(total)
}

// linkText is the links of a Markdown line joined: [text](target),
// [[wiki links]], <autolinks> and bare http(s) addresses.
func linkText(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		rest := line[i:]
		switch {
		case strings.HasPrefix(rest, "[["):
			if j := strings.Index(rest, "]]"); j > 0 {
				b.WriteString(rest[:j+2])
				i += j + 2
				continue
			}
		case rest[0] == '[':
			if j := strings.Index(rest, "]("); j > 0 {
				if k := strings.IndexByte(rest[j:], ')'); k > 0 {
					b.WriteString(rest[:j+k+1])
					i += j + k + 1
					continue
				}
			}
		case rest[0] == '<' && (strings.HasPrefix(rest, "<http://") || strings.HasPrefix(rest, "<https://")):
			if j := strings.IndexByte(rest, '>'); j > 0 {
				b.WriteString(rest[:j+1])
				i += j + 1
				continue
			}
		case strings.HasPrefix(rest, "http://") || strings.HasPrefix(rest, "https://"):
			j := strings.IndexFunc(rest, unicode.IsSpace)
			if j < 0 {
				j = len(rest)
			}
			b.WriteString(rest[:j])
			i += j
			continue
		}
		_, size := utf8.DecodeRuneInString(rest)
		i += size
	}
	return b.String()
}

func countVisible(s string) int {
	n := 0
	for _, r := range s {
		if !unicode.IsSpace(r) {
			n++
		}
	}
	return n
}

// maxMatched bounds the words a hit lists as matched.
const maxMatched = 16

// matchedTerms lists the terms found in a passage's heading path or text,
// in the query's order, each matched as the snippet marks it (a word
// matches its inflections: matchesTerm). Done here, not by FTS5's
// highlight(): that cost 29 ms of CPU a search for 40 passages on SciFact,
// eight times the lexical arm; this costs microseconds.
func matchedTerms(terms []string, heading, text string) []string {
	found := make([]bool, len(terms))
	left := len(terms)
	for _, s := range []string{heading, text} {
		for _, w := range strings.FieldsFunc(s, func(r rune) bool {
			return !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r))
		}) {
			w = strings.ToLower(w)
			for i, t := range terms {
				if !found[i] && matchesTerm(w, t) {
					found[i] = true
					left--
				}
			}
			if left == 0 {
				break
			}
		}
	}
	var out []string
	for i, t := range terms {
		if found[i] && len(out) < maxMatched {
			out = append(out, t)
		}
	}
	return out
}
