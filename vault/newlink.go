package vault

import (
	"path"
	"strings"
)

// NewLink writes a link from note `from` to the file `to` in the vault's
// style: a wikilink or a Markdown link, its target the shortest name that
// resolves to `to` from `from` (Format "shortest"), the path relative to
// from's folder ("relative") or the path from the root ("absolute").
// sub ("Heading", "^block") and text are added when not "". A wikilink
// to a note leaves out ".md"; a Markdown link keeps it and is %-encoded.
func (v *Vault) NewLink(from, to, sub, text string) string {
	v.mu.Lock()
	defer v.mu.Unlock()
	s := v.style
	target := to
	switch s.Format {
	case FormatRelative:
		target = relPath(path.Dir(from), to)
	case FormatAbsolute:
	default:
		l := Link{Wiki: !s.Markdown}
		parts := strings.Split(to, "/")
		for i := len(parts) - 1; i >= 0; i-- {
			l.Target = strings.Join(parts[i:], "/")
			if got, h := v.idx.resolve(from, l); h != byNone && got == to {
				target = l.Target
				break
			}
		}
	}
	if s.Markdown {
		dest := encodeDest(target, false)
		if sub != "" {
			dest += "#" + encodeDest(sub, false)
		}
		if text == "" {
			text = strings.TrimSuffix(path.Base(to), ".md")
		}
		return "[" + text + "](" + dest + ")"
	}
	if isNotePath(target) {
		target = strings.TrimSuffix(target, path.Ext(target))
	}
	var b strings.Builder
	b.WriteString("[[")
	b.WriteString(target)
	if sub != "" {
		b.WriteString("#" + sub)
	}
	if text != "" {
		b.WriteString("|" + text)
	}
	b.WriteString("]]")
	return b.String()
}
