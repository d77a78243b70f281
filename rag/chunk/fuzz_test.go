package chunk

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"quire/rag/parse"
)

// FuzzChunkMarkdown: whatever the input and the cap, every chunk fits the
// cap, is valid UTF-8, cites lines inside the input in document order, and
// together the chunks keep every non-space character, in order.
func FuzzChunkMarkdown(f *testing.F) {
	f.Add([]byte(plan), 200)
	f.Add([]byte("# A\n## B\n### C\ntext\n# D\n"), 64)
	f.Add([]byte("# "+strings.Repeat("long heading ", 20)+"\n\nbody\n"), 64)
	f.Add([]byte(strings.Repeat("word ", 100)), 70)
	f.Add([]byte("日本語 "+strings.Repeat("é", 100)), 64)
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		if max < 0 {
			max = -max
		}
		max = MinSize + max%2000
		var chunks []Chunk
		s := New(max, func(c Chunk) error { chunks = append(chunks, c); return nil })
		if err := parse.ReadMarkdown(bytes.NewReader(data), s.Add); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		last := 0
		var got strings.Builder
		for i, c := range chunks {
			if len(c.Text) > max || !utf8.ValidString(c.Text) {
				t.Fatalf("chunk %d: %d bytes (cap %d), valid UTF-8 %v", i, len(c.Text), max, utf8.ValidString(c.Text))
			}
			if c.Start < 1 || c.Start > c.End || c.End > lines || c.Start < last {
				t.Fatalf("chunk %d cites lines %d-%d (input has %d; previous chunk started at %d)", i, c.Start, c.End, lines, last)
			}
			last = c.Start
			got.WriteString(nonSpace(c.Text))
		}
		if want := nonSpace(strings.ToValidUTF8(string(data), "\uFFFD")); got.String() != want && utf8.Valid(data) {
			t.Fatalf("text lost or changed:\n got %q\nwant %q", got.String(), want)
		}
	})
}

func nonSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v' {
			return -1
		}
		return r
	}, s)
}
