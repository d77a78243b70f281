package parse

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"quire/rag/parse/hostile"
)

// makePDF writes a real PDF: one Helvetica font, each page a
// Flate-compressed content stream showing its lines with Tj and moving
// down with T* (an empty line moves down twice: a paragraph break).
func makePDF(t testing.TB, version string, pages [][]string) []byte {
	t.Helper()
	var b bytes.Buffer
	nObj := 3 + 2*len(pages)
	offsets := make([]int, nObj+1)
	obj := func(n int, body string) {
		offsets[n] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", n, body)
	}
	fmt.Fprintf(&b, "%%PDF-%s\n%%\xe2\xe3\xcf\xd3\n", version)
	obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	var kids []string
	for i := range pages {
		kids = append(kids, fmt.Sprintf("%d 0 R", 4+2*i))
	}
	obj(2, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)))
	obj(3, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	for i, lines := range pages {
		var content strings.Builder
		content.WriteString("BT /F1 12 Tf 14 TL 72 720 Td\n")
		for _, l := range lines {
			if l != "" {
				esc := strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`).Replace(l)
				fmt.Fprintf(&content, "(%s) Tj\n", esc)
			}
			content.WriteString("T*\n")
		}
		content.WriteString("ET\n")
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		zw.Write([]byte(content.String()))
		zw.Close()
		obj(4+2*i, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i))
		offsets[5+2*i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n<< /Length %d /Filter /FlateDecode >>\nstream\n", 5+2*i, z.Len())
		b.Write(z.Bytes())
		b.WriteString("\nendstream\nendobj\n")
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", nObj+1)
	for n := 1; n <= nObj; n++ {
		fmt.Fprintf(&b, "%010d 00000 n \n", offsets[n])
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", nObj+1, xref)
	return b.Bytes()
}

func collect(t testing.TB, read func(emit func(Block) error) error) []Block {
	t.Helper()
	var out []Block
	if err := read(func(b Block) error { out = append(out, b); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestReadPDFExtractsPagesLinesAndParagraphs(t *testing.T) {
	for _, version := range []string{"1.4", "2.0"} {
		t.Run(version, func(t *testing.T) {
			pdf := makePDF(t, version, [][]string{
				{"Quarterly report", "", "Revenue grew by (12%)", "in the north."},
				{"Second page text"},
			})
			got := collect(t, func(emit func(Block) error) error { return ReadPDF(bytes.NewReader(pdf), int64(len(pdf)), 0, emit) })
			want := []Block{
				{Level: 1, Title: "Page 1"},
				{Text: "Quarterly report", Start: 1, End: 1},
				{Text: "Revenue grew by (12%)\nin the north.", Start: 3, End: 4},
				{Level: 1, Title: "Page 2"},
				{Text: "Second page text", Start: 1, End: 1},
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got  %#v\nwant %#v", got, want)
			}
		})
	}
}

func TestBrokenPDFsAreRefusedNotPanics(t *testing.T) {
	good := makePDF(t, "1.4", [][]string{{"hello"}})
	for name, data := range map[string][]byte{
		"truncated":  good[:len(good)/2],
		"no xref":    bytes.Replace(good, []byte("xref"), []byte("xxxx"), 1),
		"garbage":    []byte("%PDF-1.4\n" + strings.Repeat("(((<<[[", 100) + "\n%%EOF\n"),
		"bad stream": bytes.Replace(good, []byte("/FlateDecode"), []byte("/LZWDecode  "), 1),
	} {
		err := ReadPDF(bytes.NewReader(data), int64(len(data)), 0, func(Block) error { return nil })
		if err != nil && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: %v is not ErrMalformed", name, err)
		}
	}
}

func TestReadHTMLHeadingsBlocksAndLines(t *testing.T) {
	src := `<!doctype html>
<html><head><title>Ignored &amp; title</title>
<style>h1 { color: red }</style>
<script>if (a < b) { document.write("<h1>no</h1>") }</script></head>
<body>
<h1>Trip &ndash; plan</h1>
<p>Take the
<b>night</b> train.</p>
<ul><li>one</li><li>two</li></ul>
<h2>Costs</h2><table><tr><td>rail</td><td>90</td></tr></table>
<noscript>enable js</noscript>
</body></html>`
	got := collect(t, func(emit func(Block) error) error { return ReadHTML(strings.NewReader(src), emit) })
	want := []Block{
		{Text: "Ignored & title", Start: 2, End: 2},
		{Level: 1, Title: "Trip – plan", Text: "Trip – plan", Start: 6, End: 6},
		{Text: "Take the night train.", Start: 7, End: 8},
		{Text: "one", Start: 9, End: 9},
		{Text: "two", Start: 9, End: 9},
		{Level: 2, Title: "Costs", Text: "Costs", Start: 10, End: 10},
		{Text: "rail 90", Start: 10, End: 10},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %#v\nwant %#v", got, want)
	}
}

func TestFormatsByNameAndContent(t *testing.T) {
	for name, want := range map[string]Format{"a.md": Markdown, "B.MARKDOWN": Markdown, "c.txt": Text, "README": Text, "d.htm": HTML, "e.PDF": PDF} {
		if got, err := ByName(name); err != nil || got != want {
			t.Errorf("ByName(%q) = %q, %v; want %q", name, got, err, want)
		}
	}
	for _, name := range []string{"a.docx", "b.png", "c.go", "d.epub"} {
		_, err := ByName(name)
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "Markdown (.md), plain text (.txt), HTML (.html) and PDF (.pdf)") {
			t.Errorf("ByName(%q): %v", name, err)
		}
	}
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	if err := Check(Text, png); !errors.Is(err, ErrBinary) || !strings.Contains(err.Error(), "image/png") {
		t.Errorf("a PNG as text: %v", err)
	}
	if err := Check(Markdown, []byte("\xff\xfeh\x00i\x00")); !errors.Is(err, ErrBinary) || !strings.Contains(err.Error(), "UTF-16") {
		t.Errorf("UTF-16: %v", err)
	}
	if err := Check(Text, []byte("caf\xe9 cr\xe8me, na\xefve: Latin-1 text is still text\n")); err != nil {
		t.Errorf("Latin-1 text refused: %v", err)
	}
	if err := Check(Text, []byte("日本語のテキスト"[:10])); err != nil {
		t.Errorf("text cut mid-rune by the sniff refused: %v", err)
	}
	if err := Check(PDF, []byte("PK\x03\x04")); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "not a PDF") {
		t.Errorf("zip as PDF: %v", err)
	}
}

func TestInvalidUTF8BecomesReplacementCharacters(t *testing.T) {
	got := collect(t, func(emit func(Block) error) error { return ReadText(strings.NewReader("caf\xe9\n"), emit) })
	if len(got) != 1 || got[0].Text != "caf\uFFFD" {
		t.Fatalf("got %#v", got)
	}
}

func TestPageTreesThatLoopOrRepeatAreRefusedAtOnce(t *testing.T) {
	for name, data := range map[string][]byte{
		"self-referencing":       hostile.SelfReferencingPDF(),
		"one page 300,000 times": hostile.SharedPagePDF(300000),
		// A Pages node under itself two levels down.
		"cycle through a child": hostile.PagesPDF("6 0 R", 1, "<< /Type /Pages /Parent 2 0 R /Kids [3 0 R 2 0 R] /Count 1 >>"),
	} {
		blocks := 0
		err := ReadPDF(bytes.NewReader(data), int64(len(data)), 0, func(Block) error { blocks++; return nil })
		if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "page tree is damaged") || blocks != 0 {
			t.Errorf("%s: %d blocks, %v", name, blocks, err)
		}
	}
	// A tree whose kids are two distinct pages is fine.
	ok := hostile.PagesPDF("3 0 R 6 0 R", 2, hostile.Page)
	if err := ReadPDF(bytes.NewReader(ok), int64(len(ok)), 0, func(Block) error { return nil }); err != nil {
		t.Fatalf("two distinct pages: %v", err)
	}
}

func TestPDFPageLimitIsFoundBeforeAnyPageIsRead(t *testing.T) {
	pdf := makePDF(t, "1.4", [][]string{{"one"}, {"two"}, {"three"}})
	for _, tc := range []struct {
		max  int
		fail bool
	}{{2, true}, {3, false}, {0, false}} {
		blocks := 0
		err := ReadPDF(bytes.NewReader(pdf), int64(len(pdf)), tc.max, func(Block) error { blocks++; return nil })
		var le *LimitError
		if tc.fail != errors.As(err, &le) || (tc.fail && (le.Limit != LimitPages || le.Max != int64(tc.max) || blocks != 0 || !errors.Is(err, ErrOverLimit))) {
			t.Errorf("limit %d: %d blocks, %v", tc.max, blocks, err)
		}
	}
}

func TestSniffSamplesTheWholeFile(t *testing.T) {
	text := []byte(strings.Repeat("An ordinary line of Markdown text, repeated.\n", 20000)) // 900 KB
	binaryAt := func(off int) []byte {
		b := bytes.Clone(text)
		for i := off; i < off+16<<10; i++ {
			b[i] = byte(i*7) | 0x80 // invalid UTF-8 and control bytes
			if i%3 == 0 {
				b[i] = 0
			}
		}
		return b
	}
	cases := []struct {
		name string
		data []byte
		want error
	}{
		{"all text", text, nil},
		{"text cut mid-rune at a sample", []byte(strings.Repeat("日本語のテキスト。", 40000)), nil},
		{"binary in the middle, past the head", binaryAt(len(text) / 2), ErrBinary},
		{"binary at the end", binaryAt(len(text) - 16<<10), ErrBinary},
		{"binary in the head", binaryAt(100), ErrBinary},
		{"shorter than the head", []byte("# short\n"), nil},
	}
	for _, tc := range cases {
		err := Sniff(Markdown, bytes.NewReader(tc.data), int64(len(tc.data)))
		if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	// A PDF's body is binary by design; only its head is checked.
	if err := Sniff(PDF, bytes.NewReader(binaryAt(len(text)/2)), int64(len(text))); !errors.Is(err, ErrMalformed) {
		t.Errorf("text as a PDF: %v", err)
	}
}

func TestBoundedReaderStopsAtANULOrTheByteLimit(t *testing.T) {
	read := func(r io.Reader) error { _, err := io.Copy(io.Discard, r); return err }
	if err := read(Bounded(strings.NewReader("text\nmore text\x00binary"), 0)); !errors.Is(err, ErrBinary) || !strings.Contains(err.Error(), "offset 14") {
		t.Errorf("NUL: %v", err)
	}
	var le *LimitError
	if err := read(Bounded(strings.NewReader(strings.Repeat("x", 1001)), 1000)); !errors.As(err, &le) || le.Limit != LimitBytes {
		t.Errorf("over the limit: %v", err)
	}
	if err := read(Bounded(strings.NewReader(strings.Repeat("x", 1000)), 1000)); err != nil {
		t.Errorf("at the limit: %v", err)
	}
}

func TestTextBudget(t *testing.T) {
	var got []Block
	emit := TextBudget(10, func(b Block) error { got = append(got, b); return nil })
	for _, b := range []Block{{Level: 1, Title: "Head", Text: "# Head"}, {Text: "four"}, {Text: "x"}} {
		if err := emit(b); err != nil {
			var le *LimitError
			if !errors.As(err, &le) || le.Limit != LimitText || len(got) != 2 {
				t.Fatalf("after %d blocks: %v", len(got), err)
			}
			return
		}
	}
	t.Fatalf("11 bytes passed a budget of 10: %v", got)
}
