package chunk

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"quire/rag/parse"
)

func markdownChunks(t testing.TB, src string, max int) []Chunk {
	t.Helper()
	var out []Chunk
	s := New(max, func(c Chunk) error { out = append(out, c); return nil })
	if err := parse.ReadMarkdown(strings.NewReader(src), s.Add); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

const plan = `# Plan

Intro line one.
Intro line two.

## Goals

### Budget

Spend less
than last year.

` + "```" + `
# not a heading

still code
` + "```" + `

## Risks
Weather.
`

func TestMarkdownChunksFollowHeadingsWithExactLines(t *testing.T) {
	got := markdownChunks(t, plan, 1000)
	type want struct {
		headings   []string
		start, end int
		first      string
	}
	wants := []want{
		{[]string{"Plan"}, 1, 4, "# Plan"},
		// "## Goals" has no text of its own: it stays with "### Budget".
		{[]string{"Plan", "Goals", "Budget"}, 6, 17, "## Goals"},
		{[]string{"Plan", "Risks"}, 19, 20, "## Risks"},
	}
	if len(got) != len(wants) {
		t.Fatalf("got %d chunks, want %d: %+v", len(got), len(wants), got)
	}
	for i, w := range wants {
		c := got[i]
		if !reflect.DeepEqual(c.Headings, w.headings) || c.Start != w.start || c.End != w.end || !strings.HasPrefix(c.Text, w.first) {
			t.Errorf("chunk %d = %q lines %d-%d %q; want %q lines %d-%d starting %q", i, c.Headings, c.Start, c.End, c.Text, w.headings, w.start, w.end, w.first)
		}
	}
	if !strings.Contains(got[1].Text, "# not a heading\n\nstill code") {
		t.Errorf("the fenced block was not kept whole: %q", got[1].Text)
	}
	// Every line range names real lines whose text is in the chunk.
	lines := strings.Split(plan, "\n")
	for _, c := range got {
		for _, l := range []string{lines[c.Start-1], lines[c.End-1]} {
			if !strings.Contains(c.Text, strings.TrimSpace(l)) {
				t.Errorf("chunk %q lines %d-%d: line %q is not in its text", c.Headings, c.Start, c.End, l)
			}
		}
	}
}

func TestSetextHeadingsAndClosingHashes(t *testing.T) {
	src := "Title\n=====\n\nbody a\n\nSub *part* ##\n---\nbody b\n\n- item\n---\n"
	got := markdownChunks(t, src, 1000)
	if len(got) != 2 {
		t.Fatalf("got %+v", got)
	}
	if !reflect.DeepEqual(got[0].Headings, []string{"Title"}) || got[0].Start != 1 || got[0].End != 4 {
		t.Errorf("first chunk %+v", got[0])
	}
	if !reflect.DeepEqual(got[1].Headings, []string{"Title", "Sub part ##"}) || got[1].Start != 6 || got[1].End != 11 {
		t.Errorf("second chunk %+v (a list item underlined is a rule, not a heading)", got[1])
	}
}

func TestATXHeadingRules(t *testing.T) {
	src := "#notaheading\n\n    # indented code\n\n## Real ## \n\ntext\n\n####### seven\n"
	got := markdownChunks(t, src, 1000)
	if len(got) != 2 || len(got[0].Headings) != 0 || !reflect.DeepEqual(got[1].Headings, []string{"Real"}) {
		t.Fatalf("got %+v", got)
	}
	if !strings.Contains(got[1].Text, "####### seven") {
		t.Errorf("seven #s is body text: %q", got[1].Text)
	}
}

func TestLongSectionsSplitUnderTheCapWithLineRanges(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Log\n\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "entry %02d: the quick brown fox\n", i) // 30 bytes a line
	}
	const max = 200
	got := markdownChunks(t, b.String(), max)
	if len(got) < 6 {
		t.Fatalf("got %d chunks, want the 1,200-byte section split", len(got))
	}
	next := 3 // the first entry is on line 3
	for i, c := range got {
		if len(c.Text) > max {
			t.Errorf("chunk %d has %d bytes, cap %d", i, len(c.Text), max)
		}
		if !reflect.DeepEqual(c.Headings, []string{"Log"}) {
			t.Errorf("chunk %d lost its heading: %q", i, c.Headings)
		}
		first := strings.Split(strings.TrimPrefix(c.Text, "# Log\n\n"), "\n")[0]
		if want := fmt.Sprintf("entry %02d:", next-2); !strings.HasPrefix(first, want) || (i > 0 && c.Start != next) {
			t.Errorf("chunk %d starts at line %d with %q, want line %d %q", i, c.Start, first, next, want)
		}
		n := strings.Count(strings.TrimPrefix(c.Text, "# Log\n\n"), "\n") + 1
		if c.End != c.Start+n-1 && i > 0 {
			t.Errorf("chunk %d: lines %d-%d for %d lines of text", i, c.Start, c.End, n)
		}
		next = c.End + 1
	}
	if next != 43 {
		t.Errorf("the chunks end at line %d, want 42", next-1)
	}
}

func TestAnOverlongLineIsCutOnRuneBoundaries(t *testing.T) {
	line := strings.Repeat("日本語 ", 200) + strings.Repeat("é", 300)
	var got []Chunk
	s := New(100, func(c Chunk) error { got = append(got, c); return nil })
	if err := parse.ReadText(strings.NewReader("first\n\n"+line+"\n"), s.Add); err != nil {
		t.Fatal(err)
	}
	s.Close()
	var joined strings.Builder
	for i, c := range got {
		if len(c.Text) > 100 || !utf8.ValidString(c.Text) {
			t.Fatalf("chunk %d: %d bytes, valid %v", i, len(c.Text), utf8.ValidString(c.Text))
		}
		if i > 0 && (c.Start != 3 || c.End != 3) {
			t.Errorf("chunk %d cites lines %d-%d, want 3-3", i, c.Start, c.End)
		}
		if i > 0 {
			joined.WriteString(c.Text)
		}
	}
	if strings.ReplaceAll(joined.String(), " ", "") != strings.ReplaceAll(line, " ", "") {
		t.Error("text was lost or changed when cutting")
	}
}

func TestPlainTextParagraphsArePacked(t *testing.T) {
	a, b := strings.Repeat("a", 20), strings.Repeat("b", 20)
	src := a + "\n" + a + "\n\n\n" + b + "\n\n" + b + "\n"
	var got []Chunk
	s := New(64, func(c Chunk) error { got = append(got, c); return nil })
	if err := parse.ReadText(strings.NewReader(src), s.Add); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// 41 + 2 + 20 = 63 bytes would fit; 41 + 2 + 20 + 2 + 20 would not.
	want := []Chunk{{Start: 1, End: 5, Text: a + "\n" + a + "\n\n" + b}, {Start: 7, End: 7, Text: b}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v\nwant %#v", got, want)
	}
}

func TestLimitStopsAtTheNthChunk(t *testing.T) {
	doc := strings.Repeat("# Section\n\nbody text\n\n", 10) // 10 chunks
	for _, tc := range []struct{ limit, want int }{{3, 3}, {10, 10}, {0, 10}, {11, 10}} {
		var got int
		s := New(200, func(Chunk) error { got++; return nil })
		s.Limit(tc.limit)
		err := parse.ReadMarkdown(strings.NewReader(doc), s.Add)
		if err == nil {
			err = s.Close()
		}
		var le *parse.LimitError
		over := tc.limit > 0 && tc.limit < 10
		if got != tc.want || over != errors.As(err, &le) || (over && (le.Limit != parse.LimitChunks || le.Max != int64(tc.limit))) {
			t.Errorf("limit %d: %d chunks, %v", tc.limit, got, err)
		}
	}
}
