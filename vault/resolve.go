package vault

import (
	"fmt"
	"maps"
	"net/url"
	"path"
	"slices"
	"strings"
	"time"
)

// index is what resolution looks at: every path (notes and attachments)
// by its lowercase spelling and by its lowercase name, and in a Logseq
// graph the page names. A move plans against a copy with the move applied.
type index struct {
	exact  map[string]string   // lower(path) → path
	byName map[string][]string // lower(file name), and for notes lower(name without .md) → paths
	pages  map[string][]string // Logseq: lower(page name or alias) → note paths
	logseq bool
}

func newIndex() *index {
	return &index{exact: map[string]string{}, byName: map[string][]string{}, pages: map[string][]string{}}
}

// clone copies the maps; the slices are shared until add or remove
// replaces them, which they do rather than changing one in place.
func (x *index) clone() *index {
	return &index{exact: maps.Clone(x.exact), byName: maps.Clone(x.byName), pages: maps.Clone(x.pages), logseq: x.logseq}
}

func isNotePath(p string) bool { return strings.EqualFold(path.Ext(p), ".md") }

// nameKeys are the names a path is found by: its file name, and a note's
// file name without .md.
func nameKeys(p string) []string {
	b := strings.ToLower(path.Base(p))
	if isNotePath(p) {
		return []string{b, strings.TrimSuffix(b, ".md")}
	}
	return []string{b}
}

// pageNames are a Logseq page's names: the file name with "___" (or an
// encoded %2F) read as the namespace '/', and its aliases (title:: among them).
func pageNames(p string, aliases []string) []string {
	if !isNotePath(p) {
		return nil
	}
	b := strings.TrimSuffix(path.Base(p), path.Ext(p))
	names := []string{strings.ToLower(pageName(b))}
	if j, ok := journalName(p, b); ok {
		names = append(names, strings.ToLower(j))
	}
	for _, a := range aliases {
		names = append(names, strings.ToLower(a))
	}
	return names
}

// journalName is the page name Logseq gives a journal file
// (journals/2020_12_05.md) in its default title format, "MMM do, yyyy":
// "Dec 5th, 2020". A graph whose config.edn sets another format names its
// journals otherwise; those links stay unresolved here.
func journalName(p, base string) (string, bool) {
	if path.Base(path.Dir(p)) != "journals" {
		return "", false
	}
	t, err := time.Parse("2006_01_02", base)
	if err != nil {
		return "", false
	}
	d := t.Day()
	suffix := "th"
	switch {
	case d%100 >= 11 && d%100 <= 13:
	case d%10 == 1:
		suffix = "st"
	case d%10 == 2:
		suffix = "nd"
	case d%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf("%s %d%s, %d", t.Format("Jan"), d, suffix, t.Year()), true
}

func pageName(base string) string {
	n := strings.ReplaceAll(base, "___", "/")
	if d, err := url.PathUnescape(n); err == nil {
		n = d
	}
	return n
}

func addTo(m map[string][]string, k, p string) {
	if slices.Contains(m[k], p) {
		return
	}
	m[k] = append(slices.Clip(m[k]), p)
}

func removeFrom(m map[string][]string, k, p string) {
	i := slices.Index(m[k], p)
	if i < 0 {
		return
	}
	if len(m[k]) == 1 {
		delete(m, k)
		return
	}
	m[k] = slices.Delete(slices.Clone(m[k]), i, i+1)
}

func (x *index) add(p string, aliases []string) {
	x.exact[strings.ToLower(p)] = p
	for _, k := range nameKeys(p) {
		addTo(x.byName, k, p)
	}
	for _, k := range pageNames(p, aliases) {
		addTo(x.pages, k, p)
	}
}

func (x *index) remove(p string, aliases []string) {
	if x.exact[strings.ToLower(p)] == p {
		delete(x.exact, strings.ToLower(p))
	}
	for _, k := range nameKeys(p) {
		removeFrom(x.byName, k, p)
	}
	for _, k := range pageNames(p, aliases) {
		removeFrom(x.pages, k, p)
	}
}

// how says which rule found a link's target: a Markdown link written
// relative to its note's folder keeps being written that way after a move.
type how int

const (
	byNone how = iota
	bySelf
	byRelative
	byPath
	byName
	byPage
)

// resolve finds the file a link from note `from` names.
//
// Obsidian's rule (MetadataCache.getFirstLinkpathDest, as observed on
// Obsidian 1.x): a path from the vault root that exists wins (with or
// without .md, any case); else among the files whose name matches — and,
// for a link with folders, whose path ends with the link's path — the one
// in the linking note's own folder, else the shortest path (then the
// first in byte order). "./" and "../" are relative to the note's folder.
// A Markdown link is first relative to the note's folder, then falls back
// to the same rule. In a Logseq graph a wikilink is first a page name (or
// alias, title::), case-insensitively.
func (x *index) resolve(from string, l Link) (string, how) {
	t := l.Target
	if t == "" {
		if _, ok := x.exact[strings.ToLower(from)]; ok {
			return from, bySelf
		}
		return "", byNone
	}
	if !l.Wiki && !strings.HasPrefix(t, "/") {
		if p, ok := x.lookupPath(path.Join(path.Dir(from), t)); ok {
			return p, byRelative
		}
	}
	if l.Wiki && x.logseq {
		if ps := x.pages[strings.ToLower(t)]; len(ps) > 0 {
			return pick(from, ps), byPage
		}
	}
	return x.resolvePath(from, t)
}

func (x *index) resolvePath(from, t string) (string, how) {
	if strings.HasPrefix(t, "./") || strings.HasPrefix(t, "../") {
		if p, ok := x.lookupPath(path.Join(path.Dir(from), t)); ok {
			return p, byRelative
		}
		return "", byNone
	}
	t = strings.TrimPrefix(t, "/")
	if p, ok := x.lookupPath(t); ok {
		return p, byPath
	}
	lt := strings.ToLower(t)
	base := lt
	if i := strings.LastIndexByte(lt, '/'); i >= 0 {
		base = lt[i+1:]
	}
	var cands []string
	for _, c := range x.byName[base] {
		if base != lt {
			lc := strings.ToLower(c)
			if !strings.HasSuffix(lc, "/"+lt) && !strings.HasSuffix(lc, "/"+lt+".md") {
				continue
			}
		}
		// A name without .md finds a note or a file with no extension;
		// with an extension it finds exactly that file name.
		if !isNotePath(c) && strings.ToLower(path.Base(c)) != base {
			continue
		}
		cands = append(cands, c)
	}
	if len(cands) == 0 {
		return "", byNone
	}
	return pick(from, cands), byName
}

// lookupPath finds a path as written or with .md added, in any case.
func (x *index) lookupPath(p string) (string, bool) {
	if p == "" || p == "." || strings.HasPrefix(p, "../") || p == ".." {
		return "", false
	}
	lp := strings.ToLower(p)
	if q, ok := x.exact[lp]; ok {
		return q, true
	}
	if q, ok := x.exact[lp+".md"]; ok {
		return q, true
	}
	return "", false
}

// pick chooses among candidates: the linking note's folder first, then the
// shortest path, then byte order.
func pick(from string, cands []string) string {
	if len(cands) == 1 {
		return cands[0]
	}
	dir := path.Dir(from)
	best := ""
	for _, c := range cands {
		if best == "" || better(c, best, dir) {
			best = c
		}
	}
	return best
}

func better(a, b, dir string) bool {
	ad, bd := path.Dir(a) == dir, path.Dir(b) == dir
	if ad != bd {
		return ad
	}
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}
