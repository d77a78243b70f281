package mcpclient

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Screening (tool poisoning). A server's tool descriptions and schemas go
// verbatim into every request Quire sends the model, and a hostile server
// can hide instructions there that the user never sees: Unicode tag
// characters (U+E0000–U+E007F spell ASCII invisibly), zero-width and bidi
// controls, terminal escapes. screen removes them from every string the
// model is told (the description, and every string of the input schema:
// descriptions, titles, enum values, defaults) and says how many it
// removed, so nothing is dropped silently; a tool whose name, or any key
// of its schema (property names among them), holds one is refused, as
// those are what the model calls with and the user reads the tool by.

// screening is what screen made of one listed tool.
type screening struct {
	description string         // as the model gets it: screened, then bounded
	params      map[string]any // the input schema, its strings screened
	notes       []string       // what was removed or cut, in sentences
	refused     string         // why the tool is not offered ("" when it is)
}

// screen screens one tool's name, description and input schema (params,
// already decoded; it is not changed — the screened copy is returned).
// maxDesc bounds the description in characters.
func screen(name, description string, params map[string]any, maxDesc int) screening {
	var out screening
	var desc hiddenCount
	out.description = clean(description, &desc)
	if h := hidden(name); h.count > 0 {
		out.description = bounded(out.description, maxDesc)
		out.refused = fmt.Sprintf("Its name holds %s; it is not offered.", h)
		return out
	}
	if desc.count > 0 {
		out.notes = append(out.notes, fmt.Sprintf("%s removed from %s's description before the model sees it.", desc, name))
	}
	if n := utf8.RuneCountInString(out.description); n > maxDesc {
		out.description = bounded(out.description, maxDesc)
		out.notes = append(out.notes, fmt.Sprintf("Its description was %d characters; the model gets the first %d.", n, maxDesc-1))
	}
	if params == nil {
		return out
	}
	var inSchema hiddenCount
	badKey := ""
	v := cleanJSON(params, &inSchema, &badKey)
	if badKey != "" {
		out.refused = fmt.Sprintf("Its input schema has a key or property name that holds %s (%s); it is not offered.", hidden(badKey), escapeHidden(badKey))
		return out
	}
	out.params = v.(map[string]any)
	if inSchema.count > 0 {
		out.notes = append(out.notes, fmt.Sprintf("%s removed from %s's input schema before the model sees it.", inSchema, name))
	}
	return out
}

// cleanJSON is v with every string screened; the first key that holds a
// hidden character is put in badKey.
func cleanJSON(v any, h *hiddenCount, badKey *string) any {
	switch v := v.(type) {
	case string:
		return clean(v, h)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = cleanJSON(e, h, badKey)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			if *badKey == "" && hidden(k).count > 0 {
				*badKey = k
			}
			out[k] = cleanJSON(e, h, badKey)
		}
		return out
	default:
		return v
	}
}

// clean is s without its hidden characters, each counted in h. A CRLF is
// an ordinary line end, made "\n" and not counted.
func clean(s string, h *hiddenCount) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if !strings.ContainsFunc(s, isHidden) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isHidden(r) {
			h.add(r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// hidden counts s's hidden characters.
func hidden(s string) hiddenCount {
	var h hiddenCount
	for _, r := range s {
		if isHidden(r) {
			h.add(r)
		}
	}
	return h
}

// isHidden reports whether r draws nothing a reader would notice yet
// reaches the model as text: format characters (category Cf: the tag
// characters, zero-width and bidi controls, the soft hyphen), controls
// but the newline and tab, line and paragraph separators, variation
// selectors (which can carry bytes after any visible character), the
// Hangul fillers that draw as blanks, and code points with no glyph at
// all (unassigned, private use, surrogates).
func isHidden(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r == 0x115F || r == 0x1160 || r == 0x3164 || r == 0xFFA0:
		return true
	case unicode.Is(unicode.Variation_Selector, r):
		return true
	}
	return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Co, unicode.Cs) || !unicode.IsGraphic(r) && !unicode.IsSpace(r)
}

// hiddenCount is how many hidden characters were found, by kind.
type hiddenCount struct {
	count int
	kinds []string // in the order first met
}

func (h *hiddenCount) add(r rune) {
	h.count++
	if k := hiddenKind(r); !slices.Contains(h.kinds, k) {
		h.kinds = append(h.kinds, k)
	}
}

// String says the count and kinds: "3 hidden characters (Unicode tag
// characters)".
func (h hiddenCount) String() string {
	noun := "hidden characters"
	if h.count == 1 {
		noun = "hidden character"
	}
	return fmt.Sprintf("%d %s (%s)", h.count, noun, strings.Join(h.kinds, ", "))
}

func hiddenKind(r rune) string {
	switch {
	case r >= 0xE0000 && r <= 0xE007F:
		return "Unicode tag characters"
	case r == 0x200B || r == 0x200C || r == 0x200D || r == 0x2060 || r == 0xFEFF || r == 0x180E:
		return "zero-width characters"
	case r == 0x200E || r == 0x200F || r == 0x061C || r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069:
		return "bidi controls"
	case unicode.IsControl(r):
		return "control characters"
	case unicode.Is(unicode.Variation_Selector, r):
		return "variation selectors"
	default:
		return "other invisible characters"
	}
}

// escapeHidden shows s with each hidden character as \uXXXX, so a refused
// name can be read and named.
func escapeHidden(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case !isHidden(r):
			b.WriteRune(r)
		case r > 0xFFFF:
			fmt.Fprintf(&b, `\U%08X`, r)
		default:
			fmt.Fprintf(&b, `\u%04X`, r)
		}
	}
	return b.String()
}
