// Package hostile makes the hostile documents of issue 13 — PDFs whose
// page tree loops or repeats one page, a sparse gigabyte behind a text
// header, a file of one endless line — for the tests, fuzz seeds and
// benchmarks that hold the indexer's bounds. They are generated, not
// committed, so the repository holds no large or binary files.
//
// It imports only the standard library and is test and benchmark
// equipment: no product package may import it.
package hostile

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
)

// RawPDF writes a PDF from its objects' bodies (object n is objs[n-1])
// with a correct cross-reference table, so a reader gets as far as the
// page tree, where the hostile part is.
func RawPDF(objs ...string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, body := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, body)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// Page is the page object of PagesPDF (object 3), drawing its text with
// the font of object 4 from the content stream of object 5.
const Page = "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>"

// PagesPDF is a PDF whose page tree's root (object 2) lists kids, with
// one page (object 3) and any more objects after the first five.
func PagesPDF(kids string, count int, more ...string) []byte {
	content := "BT /F1 12 Tf 72 720 Td (hostile page text) Tj ET"
	return RawPDF(append([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", kids, count),
		Page,
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
	}, more...)...)
}

// SelfReferencingPDF is the kind of the 710-byte file: the root
// of the page tree is among its own kids, so a walk that forgets what it
// saw goes round it, twice at each level, until its bounds (once: 80,000
// chunks of one page).
func SelfReferencingPDF() []byte { return PagesPDF("3 0 R 2 0 R 2 0 R", 1) }

// SharedPagePDF lists one page n times (the file: 300,000, 1.8 MB).
func SharedPagePDF(n int) []byte {
	return PagesPDF(strings.TrimSpace(strings.Repeat("3 0 R ", n)), n)
}

// Sparse writes a Markdown header and extends the file to size with a
// hole, which reads as NUL bytes and takes no disk space.
func Sparse(path string, size int64) error {
	if err := os.WriteFile(path, []byte("# Notes\n\nA text header in front of a gigabyte of nothing.\n\n"), 0o644); err != nil {
		return err
	}
	return os.Truncate(path, size)
}

// OneLine writes a file of about size bytes of words with no line break.
func OneLine(path string, size int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	const word = "endless "
	for n := 0; n < size; n += len(word) {
		w.WriteString(word)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
