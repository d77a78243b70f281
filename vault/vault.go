package vault

import (
	"maps"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
)

// logseqConfig marks a Logseq graph: a folder with pages/, journals/ and this file.
const logseqConfig = "logseq/config.edn"

// Ref is one link with the path it resolves to.
type Ref struct {
	From, To string // To is the resolved path or ""
	Link     Link
}

// Vault is the linked graph of one folder, in memory. Safe for concurrent
// use: every method takes its lock. The resolved graph is built on the
// first question, then kept up to date by each change: a change
// re-resolves only the links that could find the file it adds or
// removes (by one of its names), not the whole vault.
type Vault struct {
	mu    sync.Mutex
	style Style
	notes map[string]Note
	files map[string]bool // attachments: files that are not notes
	idx   *index

	graph *graph // nil until the first question (and after the graph's kind changes)
}

// graph is every link resolved, and who links by which name, for the
// questions and for PlanMove's "where to look".
type graph struct {
	out   map[string][]Ref
	in    map[string]map[string]int // to → notes with links to it → how many
	byKey map[string]map[string]int // a link's name (linkKeys) → notes with such links → how many
}

// New makes an empty vault that writes new links in style s.
func New(style Style) *Vault {
	return &Vault{style: style, notes: map[string]Note{}, files: map[string]bool{}, idx: newIndex()}
}

// Put adds or replaces a note.
func (v *Vault) Put(n Note) {
	v.mu.Lock()
	defer v.mu.Unlock()
	old, had := v.notes[n.Path]
	wasFile := v.files[n.Path]
	v.removeLocked(n.Path)
	v.notes[n.Path] = n
	v.idx.add(n.Path, n.Aliases)
	if v.graph == nil {
		return
	}
	// Other notes' links change only if a name of this note appeared or went.
	if !had || wasFile || !slices.Equal(old.Aliases, n.Aliases) {
		v.relinkLocked(n.Path, append(slices.Clone(old.Aliases), n.Aliases...), n.Path)
	}
	v.graph.link(v.idx, n)
}

// PutFile says a file that is not a note (an attachment) exists.
func (v *Vault) PutFile(p string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.files[p] {
		return
	}
	n := v.notes[p]
	v.removeLocked(p)
	v.files[p] = true
	v.idx.add(p, nil)
	if p == logseqConfig {
		v.idx.logseq = true
		v.graph = nil // every wikilink reads differently in a Logseq graph
		return
	}
	if v.graph != nil {
		v.relinkLocked(p, n.Aliases, "")
	}
}

// Remove says a note or a file is gone.
func (v *Vault) Remove(p string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	n, had := v.notes[p]
	if !had && !v.files[p] {
		return
	}
	v.removeLocked(p)
	if p == logseqConfig {
		v.graph = nil
		return
	}
	if v.graph != nil {
		v.relinkLocked(p, n.Aliases, "")
	}
}

func (v *Vault) removeLocked(p string) {
	if n, ok := v.notes[p]; ok {
		v.idx.remove(p, n.Aliases)
		delete(v.notes, p)
		if v.graph != nil {
			v.graph.unlink(p)
		}
	}
	if v.files[p] {
		v.idx.remove(p, nil)
		delete(v.files, p)
		if p == logseqConfig {
			v.idx.logseq = false
		}
	}
}

// relinkLocked resolves again the links of every note (but skip) that
// could find a file at p, with these aliases, by one of its names.
func (v *Vault) relinkLocked(p string, aliases []string, skip string) {
	keys := nameKeys(p)
	if v.idx.logseq {
		keys = append(keys, pageNames(p, aliases)...)
	}
	seen := map[string]bool{skip: true}
	for _, k := range keys {
		for f := range v.graph.byKey[k] {
			if seen[f] {
				continue
			}
			seen[f] = true
			v.graph.unlink(f)
			v.graph.link(v.idx, v.notes[f])
		}
	}
}

// unlink forgets note p's links.
func (g *graph) unlink(p string) {
	for _, r := range g.out[p] {
		if r.To != "" {
			dec(g.in, r.To, p)
		}
		for _, k := range linkKeys(r.Link.Target) {
			dec(g.byKey, k, p)
		}
	}
	delete(g.out, p)
}

// link resolves note n's links.
func (g *graph) link(x *index, n Note) {
	refs := make([]Ref, 0, len(n.Links))
	for _, l := range n.Links {
		to, h := x.resolve(n.Path, l)
		if h == byNone {
			to = ""
		}
		refs = append(refs, Ref{From: n.Path, To: to, Link: l})
		if to != "" {
			inc(g.in, to, n.Path)
		}
		for _, k := range linkKeys(l.Target) {
			inc(g.byKey, k, n.Path)
		}
	}
	g.out[n.Path] = refs
}

func inc(m map[string]map[string]int, k, p string) {
	s := m[k]
	if s == nil {
		s = map[string]int{}
		m[k] = s
	}
	s[p]++
}

func dec(m map[string]map[string]int, k, p string) {
	s := m[k]
	if s[p] <= 1 {
		delete(s, p)
		if len(s) == 0 {
			delete(m, k)
		}
		return
	}
	s[p]--
}

// SetStyle sets how the vault writes new links.
func (v *Vault) SetStyle(s Style) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.style = s
}

// Style is how the vault writes new links.
func (v *Vault) Style() Style {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.style
}

// Note gives a note by its path.
func (v *Vault) Note(p string) (Note, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	n, ok := v.notes[p]
	return n, ok
}

// Paths is every note path, sorted.
func (v *Vault) Paths() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	ps := make([]string, 0, len(v.notes))
	for p := range v.notes {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return ps
}

// Files is every attachment path (a file that is not a note), sorted.
func (v *Vault) Files() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	ps := make([]string, 0, len(v.files))
	for p := range v.files {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return ps
}

// Resolve finds the path a link written in note `from` leads to, as
// Obsidian resolves it (see index.resolve).
func (v *Vault) Resolve(from string, l Link) (string, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	p, h := v.idx.resolve(from, l)
	return p, h != byNone
}

// Backlinks is every link to p: from other notes and from p itself
// (a "#Heading" link in p), in path then text order.
func (v *Vault) Backlinks(p string) []Ref {
	v.mu.Lock()
	defer v.mu.Unlock()
	g := v.resolvedLocked()
	var refs []Ref
	for _, f := range slices.Sorted(maps.Keys(g.in[p])) {
		for _, r := range g.out[f] {
			if r.To == p {
				refs = append(refs, r)
			}
		}
	}
	return refs
}

// Outgoing is the note's links with their resolved target ("" if unresolved).
func (v *Vault) Outgoing(p string) []Ref {
	v.mu.Lock()
	defer v.mu.Unlock()
	return slices.Clone(v.resolvedLocked().out[p])
}

// Unresolved is the links of note p (of the whole vault when p is "")
// that lead nowhere.
func (v *Vault) Unresolved(p string) []Ref {
	v.mu.Lock()
	defer v.mu.Unlock()
	g := v.resolvedLocked()
	from := []string{p}
	if p == "" {
		from = slices.Sorted(maps.Keys(g.out))
	}
	var refs []Ref
	for _, f := range from {
		for _, r := range g.out[f] {
			if r.To == "" {
				refs = append(refs, r)
			}
		}
	}
	return refs
}

// Orphans is every note no other note links to and that links to no
// other note or file, sorted.
func (v *Vault) Orphans() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	g := v.resolvedLocked()
	var out []string
	for _, p := range slices.Sorted(maps.Keys(v.notes)) {
		if linksOut(g.out[p], p) || len(g.in[p]) > 1 || len(g.in[p]) == 1 && g.in[p][p] == 0 {
			continue
		}
		out = append(out, p)
	}
	return out
}

// linksOut: some ref joins p to another file.
func linksOut(refs []Ref, p string) bool {
	for _, r := range refs {
		if r.To != "" && r.To != p {
			return true
		}
	}
	return false
}

// resolvedLocked gives the graph, resolving every link the first time.
func (v *Vault) resolvedLocked() *graph {
	if v.graph != nil {
		return v.graph
	}
	g := &graph{out: map[string][]Ref{}, in: map[string]map[string]int{}, byKey: map[string]map[string]int{}}
	for _, n := range v.notes {
		g.link(v.idx, n)
	}
	v.graph = g
	return g
}

// linkKeys are the names a link could find a file by: its last path part
// in lower case, with and without .md, and the whole target (a Logseq
// page name may hold a '/').
func linkKeys(t string) []string {
	if t == "" {
		return nil
	}
	lt := strings.ToLower(t)
	b := path.Base(lt)
	keys := []string{b}
	if s := strings.TrimSuffix(b, ".md"); s != b {
		keys = append(keys, s)
	}
	if lt != b {
		keys = append(keys, lt)
	}
	return keys
}
