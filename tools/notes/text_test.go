package notes

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLooksBinary(t *testing.T) {
	euro := "€" // three bytes
	for _, c := range []struct {
		name     string
		data     string
		complete bool
		want     bool
	}{
		{"text", "# Plan\n", true, false},
		{"NUL", "a\x00b", true, true},
		{"Latin-1", "caf\xe9", true, true},
		{"a rune cut at the end of a partial read", "price: " + euro[:2], false, false},
		{"the same cut at the end of the whole file", "price: " + euro[:2], true, true},
		{"bad bytes before the end of a partial read", "\xff\xfe text", false, true},
	} {
		if got := looksBinary([]byte(c.data), c.complete); got != c.want {
			t.Errorf("%s: looksBinary = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestSnippetCutsLongLinesAroundTheMatch(t *testing.T) {
	line := strings.Repeat("é", 500) + "NEEDLE" + strings.Repeat("ü", 500)
	s := snippet(line, strings.Index(line, "NEEDLE"))
	if !strings.Contains(s, "NEEDLE") || !strings.HasPrefix(s, "…") || !strings.HasSuffix(s, "…") || !utf8.ValidString(s) {
		t.Fatalf("snippet %q", s)
	}
	if n := utf8.RuneCountInString(s); n > snippetRunes+2 {
		t.Errorf("snippet of %d runes", n)
	}
	if got := snippet("  short line\r", 2); got != "short line" {
		t.Errorf("short line: %q", got)
	}
}

func TestEditNoteSaysWhenOnlyWhitespaceDiffers(t *testing.T) {
	k := newKit(t)
	k.write("n.md", "intro\n- a task\n")
	contains(t, k.fails("edit_note", map[string]any{"path": "n.md", "find": "- a task\n\n", "replace": "x"}, "no_match"), "leading or trailing spaces", "line 2")
}
