package eval

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strings"
	"testing/fstest"

	"quire/vault"
)

// brokenLinks is the links_intact check: every link that resolved in the
// notes folder as set up (before) still resolves in it afterwards (after),
// and to the same note, wherever that note went. Both folders are read by
// package vault, so a link counts as resolved exactly as Obsidian (and
// move_note's relinking) resolves it.
//
// A note is followed by its identity rather than the scenario's moves, so
// the check also judges what a batch or a tool outside the scripted calls
// did: a path still present afterwards is the same note (an edit in place,
// such as a merge, keeps it); a path gone is the one new path whose text,
// without front matter and link spans (what relinking and tagging rewrite),
// is the same as before.
func brokenLinks(ctx context.Context, before, after map[string]string) []string {
	bv, err := scanMap(ctx, before)
	if err != nil {
		return []string{fmt.Sprintf("links_intact: reading the notes folder as set up: %v", err)}
	}
	av, err := scanMap(ctx, after)
	if err != nil {
		return []string{fmt.Sprintf("links_intact: reading the notes folder afterwards: %v", err)}
	}
	where := follow(before, after)
	var fails []string
	for _, from := range bv.Paths() {
		newFrom := where(from)
		if newFrom == "" {
			continue // a note deleted takes its own links with it
		}
		an, _ := av.Note(newFrom)
		used := make([]bool, len(an.Links)) // an added link is skipped, never matched twice
		for _, ref := range bv.Outgoing(from) {
			if ref.To == "" {
				continue // broken before the scenario: not its doing
			}
			want := where(ref.To)
			written := before[from][ref.Link.Start:ref.Link.End]
			i := match(av, newFrom, an.Links, used, ref.Link, want)
			if i < 0 {
				fails = append(fails, fmt.Sprintf("links_intact: %s line %d: the link %s (to %s) is gone from %s", from, ref.Link.Line, written, ref.To, newFrom))
				continue
			}
			used[i] = true
			l := an.Links[i]
			got, ok := av.Resolve(newFrom, l)
			now := after[newFrom][l.Start:l.End]
			switch {
			case want == "":
				fails = append(fails, fmt.Sprintf("links_intact: %s line %d: the link %s led to %s, which no longer exists", newFrom, l.Line, now, ref.To))
			case !ok:
				fails = append(fails, fmt.Sprintf("links_intact: %s line %d: the link %s is broken: it led to %s, now at %s", newFrom, l.Line, now, ref.To, want))
			case got != want:
				fails = append(fails, fmt.Sprintf("links_intact: %s line %d: the link %s leads to %s, expected %s (where %s went)", newFrom, l.Line, now, got, want, ref.To))
			}
		}
	}
	return fails
}

// match is the index of the unused link of links that is b as it is now:
// the first of its form that leads to want, else the first of its form.
func match(av *vault.Vault, from string, links []vault.Link, used []bool, b vault.Link, want string) int {
	first := -1
	for i, l := range links {
		if used[i] || !sameLink(l, b) {
			continue
		}
		if got, ok := av.Resolve(from, l); ok && got == want {
			return i
		}
		if first < 0 {
			first = i
		}
	}
	return first
}

// sameLink: l is the link b as relinking may have rewritten it, which
// keeps its form, its heading or block and its text.
func sameLink(l, b vault.Link) bool {
	return l.Wiki == b.Wiki && l.Embed == b.Embed && l.Sub == b.Sub && l.Text == b.Text && l.Property == b.Property
}

// follow returns where each file of before is in after ("" when gone).
func follow(before, after map[string]string) func(string) string {
	fresh := map[string][]string{} // identity -> paths only after has
	for p, text := range after {
		if _, old := before[p]; !old {
			k := identity(p, text)
			fresh[k] = append(fresh[k], p)
		}
	}
	return func(p string) string {
		if _, ok := after[p]; ok {
			return p
		}
		if ps := fresh[identity(p, before[p])]; len(ps) == 1 {
			return ps[0]
		}
		return ""
	}
}

// identity is what relinking and filing leave alone in a file: a note's
// body without its links (they may be rewritten), an attachment's bytes.
func identity(p, text string) string {
	if !strings.EqualFold(pathExt(p), ".md") {
		return fmt.Sprintf("%x", sha256.Sum256([]byte(text)))
	}
	n := vault.Parse(p, []byte(text))
	var b strings.Builder
	at := 0
	for _, l := range n.Links {
		if l.Property != "" || l.Start < at {
			continue
		}
		b.WriteString(text[at:l.Start])
		at = l.End
	}
	b.WriteString(text[at:])
	return fmt.Sprintf("%x", sha256.Sum256([]byte(withoutFrontMatter(b.String()))))
}

// withoutFrontMatter drops a leading --- block: filing a note may tag it.
func withoutFrontMatter(s string) string {
	if rest, ok := strings.CutPrefix(s, "---\n"); ok {
		if _, body, ok := strings.Cut(rest, "\n---\n"); ok {
			return body
		}
	}
	return s
}

func pathExt(p string) string {
	i := strings.LastIndexAny(p, "./")
	if i < 0 || p[i] == '/' {
		return ""
	}
	return p[i:]
}

// scanMap reads a folder's files, held by slash path, as package vault does.
func scanMap(ctx context.Context, files map[string]string) (*vault.Vault, error) {
	fsys := fstest.MapFS{}
	for p, text := range files {
		fsys[p] = &fstest.MapFile{Data: []byte(text), Mode: 0o644}
	}
	v, _, err := vault.Scan(ctx, fsys, vault.DefaultLimits())
	return v, err
}
