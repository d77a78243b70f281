package vault

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"
)

// Plan is what a move does: the files that move and the notes whose text
// must change for every link to keep leading where it led.
type Plan struct {
	From, To string
	Moves    []Move // every file that moves (a folder move lists each file in it)
	Edits    []Edit // sorted by Path
}

// Move is one file moving.
type Move struct {
	From, To string
}

// Edit is one note's text before and after its links are rewritten.
type Edit struct {
	Path          string // the note as named before the move
	NewPath       string // its path after the move (== Path unless it is among the moved)
	Before, After string
	Links         int // links rewritten in it
}

// Links is the number of links rewritten in all.
func (p Plan) Links() int {
	n := 0
	for _, e := range p.Edits {
		n += e.Links
	}
	return n
}

// cleanPath checks a slash path relative to the vault and cleans it.
func cleanPath(p string) (string, error) {
	c := path.Clean(strings.TrimSpace(p))
	if p == "" || c == "." || c == ".." || strings.HasPrefix(c, "/") || strings.HasPrefix(c, "../") ||
		strings.ContainsAny(c, "\x00\\") {
		return "", fmt.Errorf("%w: %q; name a path inside the notes folder", ErrBadPath, p)
	}
	// Hidden files and folders (.obsidian, .trash, .git) are not the vault's:
	// Scan never reads them, so nothing moves in or out of one.
	for _, part := range strings.Split(c, "/") {
		if strings.HasPrefix(part, ".") {
			return "", fmt.Errorf("%w: %q is hidden (a name starting with a dot); choose a visible name", ErrBadPath, p)
		}
	}
	return c, nil
}

// PlanMove is what moving from → to (a note, an attachment or a folder;
// slash paths relative to the vault, to the full new path) does to the
// links. Every link that resolved before resolves after to the same file
// (moved): the links to what moves, the moved notes' own links whose
// reading changes from their new folder (relative Markdown links among
// them), and links elsewhere that a moved file would now capture (it
// shadows their name). A rewritten link keeps its form — wiki or
// Markdown, short name, path or relative, .md or not, <…> or %20 — and
// its text, alias and #sub; only the bytes of its target change. Links
// that resolved nowhere are left as written. read gives a note's current
// text: the plan is computed from that text; the graph only says where
// to look.
func (v *Vault) PlanMove(from, to string, read func(path string) ([]byte, error)) (Plan, error) {
	from, err := cleanPath(from)
	if err != nil {
		return Plan{}, err
	}
	to, err = cleanPath(to)
	if err != nil {
		return Plan{}, err
	}
	plan := Plan{From: from, To: to}
	if from == to {
		return plan, fmt.Errorf("%w: %s is where it already is; choose another path", ErrExists, to)
	}

	v.mu.Lock()
	g := v.resolvedLocked()
	moves, err := v.movesLocked(from, to)
	if err != nil {
		v.mu.Unlock()
		return plan, err
	}
	old := v.idx.clone()
	next := v.idx.clone()
	aliases := map[string][]string{}
	for _, m := range moves {
		aliases[m.From] = v.notes[m.From].Aliases
		next.remove(m.From, aliases[m.From])
	}
	for _, m := range moves {
		next.add(m.To, aliases[m.From])
	}
	movedTo := make(map[string]string, len(moves))
	look := map[string]bool{}
	for _, m := range moves {
		movedTo[m.From] = m.To
		if _, ok := v.notes[m.From]; ok {
			look[m.From] = true
		}
		for f := range g.in[m.From] {
			look[f] = true
		}
		keys := nameKeys(m.To)
		if next.logseq {
			keys = append(keys, pageNames(m.To, aliases[m.From])...)
		}
		for _, k := range keys {
			for f := range g.byKey[k] {
				look[f] = true
			}
		}
	}
	v.mu.Unlock()

	plan.Moves = moves
	movedOr := func(p string) string {
		if q, ok := movedTo[p]; ok {
			return q
		}
		return p
	}
	md := newParser()
	for _, p := range slices.Sorted(maps.Keys(look)) {
		text, err := read(p)
		if err != nil {
			return plan, fmt.Errorf("%w: %s (%v); nothing was moved", ErrRead, p, err)
		}
		np := movedOr(p)
		_, spans := parse(md, p, text)
		var reps []replacement
		for _, s := range spans {
			if s.Target == "" {
				continue
			}
			before, h := old.resolve(p, s.Link)
			if h == byNone {
				continue
			}
			want := movedOr(before)
			after, h2 := next.resolve(np, s.Link)
			// A link written relative to its note, or as a path from the
			// root, keeps being one: that it still finds the file some
			// other way (by name, by a path's end) is not enough.
			pathForm := h == byPath && strings.Contains(s.Target, "/")
			if after == want && (h != byRelative || h2 == byRelative) && (!pathForm || h2 == byPath) {
				continue
			}
			t, ok := rewriteTarget(next, np, want, s, h)
			if !ok {
				return plan, fmt.Errorf("%w: %s (line %d of %s) could not lead to %s after the move; choose a name without # | [ or ]",
					ErrUnlinkable, text[s.Start:s.End], s.Line, p, want)
			}
			if t != string(text[s.tStart:s.tEnd]) {
				reps = append(reps, replacement{s.tStart, s.tEnd, t})
			}
		}
		if len(reps) == 0 {
			continue
		}
		plan.Edits = append(plan.Edits, Edit{Path: p, NewPath: np, Before: string(text), After: apply(text, reps), Links: len(reps)})
	}
	sort.Slice(plan.Edits, func(i, j int) bool { return plan.Edits[i].Path < plan.Edits[j].Path })
	return plan, nil
}

// movesLocked lists what moves: the one note or file, or every file in
// the folder, refusing a destination that is taken.
func (v *Vault) movesLocked(from, to string) ([]Move, error) {
	var moves []Move
	_, isNote := v.notes[from]
	if isNote || v.files[from] {
		moves = []Move{{from, to}}
	} else {
		if strings.HasPrefix(to+"/", from+"/") {
			return nil, fmt.Errorf("%w: %s is inside %s; choose a path outside it", ErrIntoItself, to, from)
		}
		prefix := from + "/"
		for p := range v.notes {
			if strings.HasPrefix(p, prefix) {
				moves = append(moves, Move{p, to + "/" + p[len(prefix):]})
			}
		}
		for p := range v.files {
			if strings.HasPrefix(p, prefix) {
				moves = append(moves, Move{p, to + "/" + p[len(prefix):]})
			}
		}
		if len(moves) == 0 {
			return nil, fmt.Errorf("%w: no note, file or folder is at %s; check the path", ErrNotFound, from)
		}
		if q, ok := v.idx.exact[strings.ToLower(to)]; ok {
			return nil, fmt.Errorf("%w: %s is a file; choose another folder name", ErrExists, q)
		}
	}
	moving := map[string]bool{}
	for _, m := range moves {
		moving[m.From] = true
		if m.From == logseqConfig {
			return nil, fmt.Errorf("%w: %s marks the folder as a Logseq graph; move the pages instead", ErrGraphConfig, logseqConfig)
		}
	}
	for _, m := range moves {
		if q, ok := v.idx.exact[strings.ToLower(m.To)]; ok && !moving[q] {
			return nil, fmt.Errorf("%w: %s is taken; choose another name or move that first", ErrExists, q)
		}
	}
	// Onto an existing folder is onto an existing path, for a file or a
	// folder alike: merging two folders is not a move.
	prefix := strings.ToLower(to) + "/"
	for lp, q := range v.idx.exact {
		if strings.HasPrefix(lp, prefix) && !moving[q] {
			return nil, fmt.Errorf("%w: %s is a folder (it holds %s); choose another name", ErrExists, to, q)
		}
	}
	sort.Slice(moves, func(i, j int) bool { return moves[i].From < moves[j].From })
	return moves, nil
}

type replacement struct {
	start, end int
	text       string
}

func apply(text []byte, reps []replacement) string {
	sort.Slice(reps, func(i, j int) bool { return reps[i].start < reps[j].start })
	var b strings.Builder
	b.Grow(len(text) + 64)
	last := 0
	for _, r := range reps {
		b.Write(text[last:r.start])
		b.WriteString(r.text)
		last = r.end
	}
	b.Write(text[last:])
	return b.String()
}

// rewriteTarget writes the target of link s, in note `from` (its path
// after the move), so that it leads to want in the moved vault, in the
// link's own form. The first form that resolves to want wins; a form is
// tried only if the link can hold it.
func rewriteTarget(x *index, from, want string, s span, h how) (string, bool) {
	t := s.Target
	keepMD := strings.EqualFold(path.Ext(t), ".md")
	shape := func(p string) string {
		if isNotePath(p) && !keepMD {
			return strings.TrimSuffix(p, path.Ext(p))
		}
		return p
	}
	rel := relPath(path.Dir(from), want)
	if s.dot && !strings.HasPrefix(rel, "../") {
		rel = "./" + rel
	}
	var forms []string
	switch {
	case strings.HasPrefix(t, "/"):
		forms = append(forms, "/"+shape(want))
	case h == byRelative:
		forms = append(forms, shape(rel))
	case h == byPage && isNotePath(want):
		forms = append(forms, pageName(path.Base(shape(strings.TrimSuffix(want, path.Ext(want))))))
	case strings.Contains(t, "/"):
		forms = append(forms, shape(want))
	}
	parts := strings.Split(shape(want), "/")
	for i := len(parts) - 1; i >= 0; i-- {
		forms = append(forms, strings.Join(parts[i:], "/"))
	}
	if !s.Wiki {
		forms = append(forms, shape(rel))
	}
	forms = append(forms, "/"+shape(want))
	for _, f := range forms {
		if !writable(f, s) {
			continue
		}
		l := s.Link
		l.Target = f
		if got, h2 := x.resolve(from, l); h2 != byNone && got == want {
			if s.Wiki {
				return f, true
			}
			return encodeDest(f, s.angle), true
		}
	}
	return "", false
}

// writable: a wikilink target cannot hold what ends it.
func writable(t string, s span) bool {
	if s.Wiki {
		return !strings.ContainsAny(t, "[]|#\n\r")
	}
	return !strings.ContainsAny(t, "\n\r")
}

// relPath is the relative path from folder dir ("." for the root) to p.
func relPath(dir, p string) string {
	var d []string
	if dir != "." && dir != "" {
		d = strings.Split(dir, "/")
	}
	ps := strings.Split(p, "/")
	i := 0
	for i < len(d) && i < len(ps)-1 && d[i] == ps[i] {
		i++
	}
	return strings.Repeat("../", len(d)-i) + strings.Join(ps[i:], "/")
}

// encodeDest writes a Markdown destination: inside <…> as it is (but the
// brackets), else %-encoded where CommonMark or the '#' of a sub would
// read it otherwise.
func encodeDest(t string, angle bool) string {
	var b strings.Builder
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case angle && (c == '<' || c == '>' || c == '%' || c == '#'):
			fmt.Fprintf(&b, "%%%02X", c)
		case !angle && (c <= ' ' || c == '%' || c == '(' || c == ')' || c == '<' || c == '>' || c == '#' || c == '\\' || c == 0x7f):
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
