package vault

import (
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
// use: every method takes its lock; the resolved graph is rebuilt on the
// first question after a change.
type Vault struct {
	mu    sync.Mutex
	style Style
	notes map[string]Note
	files map[string]bool // attachments: files that are not notes
	idx   *index

	graph *graph // nil when a change made it stale
}

// graph is every link resolved, and who links by which name, for the
// questions and for PlanMove's "where to look".
type graph struct {
	out   map[string][]Ref
	in    map[string][]Ref
	byKey map[string][]string // lower(link's last path part, no .md) → notes with such a link
}

// New makes an empty vault that writes new links in style s.
func New(style Style) *Vault {
	return &Vault{style: style, notes: map[string]Note{}, files: map[string]bool{}, idx: newIndex()}
}

// Put adds or replaces a note.
func (v *Vault) Put(n Note) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.removeLocked(n.Path)
	v.notes[n.Path] = n
	v.idx.add(n.Path, n.Aliases)
	v.graph = nil
}

// PutFile says a file that is not a note (an attachment) exists.
func (v *Vault) PutFile(p string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.removeLocked(p)
	v.files[p] = true
	v.idx.add(p, nil)
	if p == logseqConfig {
		v.idx.logseq = true
	}
	v.graph = nil
}

// Remove says a note or a file is gone.
func (v *Vault) Remove(p string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.removeLocked(p)
	v.graph = nil
}

func (v *Vault) removeLocked(p string) {
	if n, ok := v.notes[p]; ok {
		v.idx.remove(p, n.Aliases)
		delete(v.notes, p)
	}
	if v.files[p] {
		v.idx.remove(p, nil)
		delete(v.files, p)
		if p == logseqConfig {
			v.idx.logseq = false
		}
	}
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
	g := v.resolved()
	return slices.Clone(g.in[p])
}

// Outgoing is the note's links with their resolved target ("" if unresolved).
func (v *Vault) Outgoing(p string) []Ref {
	g := v.resolved()
	return slices.Clone(g.out[p])
}

// Unresolved is the links of note p (of the whole vault when p is "")
// that lead nowhere.
func (v *Vault) Unresolved(p string) []Ref {
	g := v.resolved()
	var refs []Ref
	from := []string{p}
	if p == "" {
		from = v.Paths()
	}
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
	g := v.resolved()
	var out []string
	for _, p := range v.Paths() {
		if linksOut(g.out[p], p) || linksOut(g.in[p], p) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// linksOut: some ref joins p to another file.
func linksOut(refs []Ref, p string) bool {
	for _, r := range refs {
		if r.To != "" && (r.From != p || r.To != p) {
			return true
		}
	}
	return false
}

// resolved gives the graph, resolving every link if a change made it stale.
func (v *Vault) resolved() *graph {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.resolvedLocked()
}

func (v *Vault) buildGraph() *graph {
	g := &graph{out: map[string][]Ref{}, in: map[string][]Ref{}, byKey: map[string][]string{}}
	paths := make([]string, 0, len(v.notes))
	for p := range v.notes {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		n := v.notes[p]
		refs := make([]Ref, 0, len(n.Links))
		for _, l := range n.Links {
			to, h := v.idx.resolve(p, l)
			if h == byNone {
				to = ""
			}
			r := Ref{From: p, To: to, Link: l}
			refs = append(refs, r)
			if to != "" {
				g.in[to] = append(g.in[to], r)
			}
			for _, k := range linkKeys(l.Target) {
				if ks := g.byKey[k]; len(ks) == 0 || ks[len(ks)-1] != p {
					g.byKey[k] = append(ks, p)
				}
			}
		}
		g.out[p] = refs
	}
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
