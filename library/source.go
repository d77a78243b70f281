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
	if doc.Status == rag.Failed {
		return protocol.DocumentSource{}, fmt.Errorf("%w (%s)", ErrUnreadable, doc.Reason)
	}
	if linkAbove(rootDir(doc.Root)) {
		return protocol.DocumentSource{}, fmt.Errorf("%s: %w", doc.Path, ErrFolderIsLink)
	}
	f, err := openInRoot(doc.Root, path)
	if err != nil {
		if linkOnTheWay(doc.Root, path) {
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

// openInRoot opens path through the indexed folder it was found under (or,
// for an indexed file, the folder holding it) with os.Root, so no symbolic
// link — a document replaced by one, or a folder on the way — leads out of
// that folder: a document swapped for a link to /etc/passwd is refused,
// not shown.
func openInRoot(root, path string) (*os.File, error) {
	dir := rootDir(root)
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("%s is not inside %s", path, dir)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer r.Close() // an open file outlives its Root
	return r.Open(rel)
}

// rootDir is the folder a document is opened through: its indexed folder,
// or the folder holding an indexed file.
func rootDir(root string) string {
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return filepath.Dir(root)
	}
	return root
}

// linkAbove reports whether dir, or a folder above it, is a symbolic link.
// os.OpenRoot follows such a link, and rag records folders as themselves
// (resolved when added), so a link there now was put in the folder's place
// after it was indexed.
func linkAbove(dir string) bool {
	for p := dir; p != filepath.Dir(p); p = filepath.Dir(p) {
		if st, err := os.Lstat(p); err == nil && st.Mode()&os.ModeSymlink != 0 {
			return true
		}
	}
	return false
}

// linkOnTheWay reports whether the document, or a folder between its
// indexed folder and it, is a symbolic link: after os.Root refused it,
// that is why (the error it gives for a way out is not exported).
func linkOnTheWay(root, path string) bool {
	dir := rootDir(root)
	for p := path; p != dir && p != filepath.Dir(p); p = filepath.Dir(p) {
		if st, err := os.Lstat(p); err == nil && st.Mode()&os.ModeSymlink != 0 {
			return true
		}
	}
	return false
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
