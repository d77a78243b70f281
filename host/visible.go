package host

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Visible escapes what would not read as itself in a dialog or a
// terminal: control characters (but newline and tab), format characters (zero-width spaces
// and joiners, bidirectional controls, the BOM, soft hyphens), line and
// paragraph separators, letters that draw blank, private-use and unassigned
// code points, and bytes that are not UTF-8. Each becomes \u200b (or
// \U0001f3f4 past the first plane), so a name cannot reorder or hide the
// text around it, and a terminal is sent no escape sequence to run (a
// note's text in a question cannot move the cursor and rewrite what the
// question shows). The page's card does the same (frontend toolcard.ts).
func Visible(s string) string {
	var b strings.Builder
	for i, c := range s {
		switch {
		case c == '\n' || c == '\t':
			b.WriteRune(c)
		case c == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, s[i]) // a byte that is not UTF-8
		case invisible(c):
			if c > 0xFFFF {
				fmt.Fprintf(&b, `\U%08x`, c)
			} else {
				fmt.Fprintf(&b, `\u%04x`, c)
			}
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

func invisible(c rune) bool {
	switch c {
	case 0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800:
		return true // letters (and the braille blank) that draw nothing
	}
	return unicode.IsControl(c) || unicode.In(c, unicode.Cf, unicode.Zl, unicode.Zp) || !unicode.IsGraphic(c)
}
