package library

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"quire/kernel/protocol"
	"quire/rag"
	"quire/rag/parse"
)

// MaxSourceBytes is the largest file the viewer shows.
const MaxSourceBytes = 8 << 20

// Source is an indexed document's text, for the viewer a citation opens.
// path must be exactly a document's path in the index: anything else —
// a folder, a file outside the indexed folders, a relative path — is
// refused, so the page cannot read arbitrary files through it. For a PDF,
// page picks the page (from 1; 0 means the first), as citations name it.
func (l *Library) Source(ctx context.Context, path string, page int) (protocol.DocumentSource, error) {
	if !filepath.IsAbs(path) {
		return protocol.DocumentSource{}, fmt.Errorf("%q: %w", path, ErrRelativePath)
	}
	path = filepath.Clean(path)
	doc, err := l.idx.Document(ctx, path)
	if errors.Is(err, rag.ErrNotIndexed) {
		return protocol.DocumentSource{}, fmt.Errorf("%s: %w", path, ErrUnknownDocument)
	}
	if err != nil {
		return protocol.DocumentSource{}, err
	}
	switch doc.Status {
	case rag.Failed:
		return protocol.DocumentSource{}, fmt.Errorf("%w (%s)", ErrUnreadable, doc.Reason)
	case rag.Skipped:
		// Never read, so never shown: what was not indexed is not the
		// viewer's to open (a .json of keys beside the notes).
		return protocol.DocumentSource{}, fmt.Errorf("%w (%s)", ErrNotRead, doc.Reason)
	}
	f, err := rag.OpenInRoot(doc.Root, path)
	if err != nil {
		if errors.Is(err, rag.ErrFolderIsLink) {
			return protocol.DocumentSource{}, fmt.Errorf("%s: %w", doc.Path, ErrFolderIsLink)
		}
		if errors.Is(err, rag.ErrOutsideRoot) {
			return protocol.DocumentSource{}, fmt.Errorf("%s: %w", doc.Path, ErrOutsideRoot)
		}
		return protocol.DocumentSource{}, protocol.Classify(protocol.ErrConflict,
			fmt.Errorf("%s cannot be opened now (%v); if it moved, index it again", doc.Path, unwrapPath(err)))
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return protocol.DocumentSource{}, err
	}
	if !info.Mode().IsRegular() {
		return protocol.DocumentSource{}, fmt.Errorf("%s: %w", path, ErrUnknownDocument)
	}
	if info.Size() > MaxSourceBytes {
		return protocol.DocumentSource{}, ErrTooLarge
	}
	src := protocol.DocumentSource{Path: doc.Path, Name: rag.DisplayName(doc.Root, doc.Path), Format: doc.Format}
	if parse.Format(doc.Format) == parse.PDF {
		src.Page = max(page, 1)
		src.Text, src.Pages, err = pdfPage(f, info.Size(), src.Page)
		return src, err
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return protocol.DocumentSource{}, err
	}
	src.Text = strings.ToValidUTF8(string(b), "\uFFFD")
	return src, nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// pdfPage rebuilds the extracted text of one page line by line, so the
// line numbers citations give (lines of the page's text) point at the
// right lines.
func pdfPage(r io.ReaderAt, size int64, want int) (string, int, error) {
	var lines []string
	page, pages := 0, 0
	err := parse.ReadPDF(r, size, 0, func(b parse.Block) error {
		if b.Level == 1 && b.Start == 0 && strings.HasPrefix(b.Title, "Page ") {
			if n, err := strconv.Atoi(strings.TrimPrefix(b.Title, "Page ")); err == nil {
				page, pages = n, max(pages, n)
				return nil
			}
		}
		if page != want || b.Start <= 0 {
			return nil
		}
		for len(lines) < b.End {
			lines = append(lines, "")
		}
		parts := strings.Split(b.Text, "\n")
		if len(parts) != b.End-b.Start+1 {
			parts = []string{strings.ReplaceAll(b.Text, "\n", " ")}
		}
		for i, p := range parts {
			if lines[b.Start-1+i] != "" {
				p = lines[b.Start-1+i] + p // a long line cut in pieces
			}
			lines[b.Start-1+i] = p
		}
		return nil
	})
	if err != nil {
		return "", 0, protocol.Classify(protocol.ErrConflict, fmt.Errorf("the PDF cannot be read now: %w", err))
	}
	if want > pages {
		return "", pages, protocol.Classify(protocol.ErrNotFound, fmt.Errorf("the PDF has %d pages, not %d", pages, want))
	}
	return strings.Join(lines, "\n"), pages, nil
}
