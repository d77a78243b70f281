package parse

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"quire/rag/parse/hostile"
)

// checkBlocks holds for every parser: valid UTF-8, levels 0–6, body
// blocks within MaxBlock, and line ranges that are ordered and inside the
// input (when the input has lines).
func checkBlocks(t *testing.T, blocks []Block, lines int) {
	t.Helper()
	last := 0
	for i, b := range blocks {
		if !utf8.ValidString(b.Text) || !utf8.ValidString(b.Title) {
			t.Fatalf("block %d is not valid UTF-8: %q", i, b.Text)
		}
		if b.Level < 0 || b.Level > 6 || (b.Level == 0 && len(b.Text) > MaxBlock) {
			t.Fatalf("block %d: level %d, %d bytes", i, b.Level, len(b.Text))
		}
		if b.Start > b.End || b.Start < 0 || (lines > 0 && b.End > lines) {
			t.Fatalf("block %d: lines %d-%d of %d", i, b.Start, b.End, lines)
		}
		if b.Level > 0 && b.Start == 0 {
			last = 0 // a PDF page: its lines count from 1 again
		}
		if b.Start > 0 {
			if b.Start < last {
				t.Fatalf("block %d starts at line %d, before the previous block (%d)", i, b.Start, last)
			}
			last = b.Start
		}
	}
}

func lineCount(s []byte) int { return bytes.Count(s, []byte("\n")) + 1 }

func nonSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v' {
			return -1
		}
		return r
	}, s)
}

var markdownSeeds = []string{
	"# Title\n\ntext\n\n## Sub\nmore\n",
	"Title\n===\n\nbody\n\nSub\n---\n- item\n---\n",
	"```\n# code\n\n```\n~~~~\nx\n~~~\n",
	"---\ntitle: x\n---\n# After\n",
	"   ### closing ###   \n    # indented\n#no\n",
	"[link](http://x) **bold** `code` ![img](y)\n",
	"\r\n\r\n# crlf\r\ntext\r\n",
	"caf\xe9 \xff\xfe\n",
}

func FuzzReadMarkdown(f *testing.F) {
	for _, s := range markdownSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var blocks []Block
		if err := ReadMarkdown(bytes.NewReader(data), func(b Block) error { blocks = append(blocks, b); return nil }); err != nil {
			t.Fatal(err)
		}
		checkBlocks(t, blocks, lineCount(data))
		// Nothing is lost: the non-space text of the blocks, in order, is
		// the non-space text of the input (after invalid UTF-8 is replaced).
		var got strings.Builder
		for _, b := range blocks {
			got.WriteString(nonSpace(b.Text))
		}
		if want := nonSpace(strings.ToValidUTF8(string(data), "\uFFFD")); got.String() != want && utf8.Valid(data) {
			t.Fatalf("text lost or changed:\n got %q\nwant %q", got.String(), want)
		}
	})
}

func FuzzReadText(f *testing.F) {
	for _, s := range append(markdownSeeds, "a\n\n\nb\n", strings.Repeat("x", 70000)) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var blocks []Block
		if err := ReadText(bytes.NewReader(data), func(b Block) error { blocks = append(blocks, b); return nil }); err != nil {
			t.Fatal(err)
		}
		checkBlocks(t, blocks, lineCount(data))
		for _, b := range blocks {
			if b.Level != 0 {
				t.Fatal("plain text has no headings")
			}
		}
	})
}

func FuzzReadHTML(f *testing.F) {
	for _, s := range []string{
		"<h1>A</h1><p>b</p>", "<script>x</script><h2>t<b>x</b></h2>", "<p>a &amp; b<br>c</p><table><tr><td>1</td></tr></table>",
		"<svg><h1>no</h1></svg><h3>yes</h3>", "<<<>>>", "<h1>unclosed", "\n\n<p>\nline\n</p>",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var blocks []Block
		err := ReadHTML(bytes.NewReader(data), func(b Block) error { blocks = append(blocks, b); return nil })
		if err != nil {
			t.Fatal(err)
		}
		checkBlocks(t, blocks, lineCount(data))
	})
}

func FuzzReadPDF(f *testing.F) {
	f.Add(makePDF(f, "1.4", [][]string{{"hello", "", "world"}, {"page two"}}))
	f.Add(makePDF(f, "1.7", [][]string{{"(paren) \\ back"}}))
	f.Add([]byte("%PDF-1.4\n%%EOF\n"))
	// The hostile page trees of issue 13 (the 300,000-reference file,
	// shortened: the repeat is found at the second reference).
	f.Add(hostile.SelfReferencingPDF())
	f.Add(hostile.SharedPagePDF(2000))
	f.Fuzz(func(t *testing.T, data []byte) {
		var blocks []Block
		// Any error is fine; a panic or a hang is not.
		if err := ReadPDF(bytes.NewReader(data), int64(len(data)), 100, func(b Block) error { blocks = append(blocks, b); return nil }); err != nil {
			return
		}
		checkBlocks(t, blocks, 0)
	})
}

// FuzzSniff: whatever the content, Sniff answers without panicking, and
// content it passes as text has a head Check passes too and no NUL in
// what it sampled — here, for inputs small enough to be read whole, none
// at all.
func FuzzSniff(f *testing.F) {
	f.Add([]byte("# Notes\n\nA text header in front of a gigabyte of nothing.\n\n" + strings.Repeat("\x00", 20000)))
	f.Add([]byte(strings.Repeat("plain text line\n", 2000)))
	f.Add([]byte(strings.Repeat("日本語のテキスト。", 3000)))
	f.Add([]byte(strings.Repeat("text ", 3000) + "\xff\xfe\x01\x02" + strings.Repeat("text ", 3000)))
	f.Fuzz(func(t *testing.T, data []byte) {
		err := Sniff(Markdown, bytes.NewReader(data), int64(len(data)))
		if err != nil && !errors.Is(err, ErrBinary) {
			t.Fatalf("not ErrBinary: %v", err)
		}
		if err == nil && Check(Markdown, data) != nil {
			t.Fatalf("Sniff passed what Check refuses in the head")
		}
		if err == nil && len(data) <= SniffLen && bytes.IndexByte(data, 0) >= 0 {
			t.Fatalf("Sniff passed a NUL byte in a file it read whole")
		}
	})
}
