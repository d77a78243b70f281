package vault

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"runtime"
	"strings"
	"sync"

	"github.com/yuin/goldmark/parser"
)

// Limits bound what Scan reads.
type Limits struct {
	MaxNoteBytes int64 // a larger note is listed as skipped, not read
	MaxFiles     int   // files past this many are not looked at
	MaxDepth     int   // folders deeper than this are not entered
}

// DefaultLimits: 4 MiB a note, 200,000 files, 64 folders deep.
func DefaultLimits() Limits {
	return Limits{MaxNoteBytes: MaxParseBytes, MaxFiles: 200_000, MaxDepth: 64}
}

// Skipped is a file or folder Scan did not use, and why, in a sentence.
type Skipped struct {
	Path, Reason string
}

// Scan reads every note and file under fsys (hidden files and folders
// skipped, symbolic links not followed, bounded by lim), reading
// .obsidian/app.json for the style. A file it cannot use is listed in
// Skipped and never stops the rest; only a cancelled ctx (its error) or
// an unreadable top folder stop it.
func Scan(ctx context.Context, fsys fs.FS, lim Limits) (*Vault, []Skipped, error) {
	def := DefaultLimits()
	if lim.MaxNoteBytes <= 0 {
		lim.MaxNoteBytes = def.MaxNoteBytes
	}
	if lim.MaxFiles <= 0 {
		lim.MaxFiles = def.MaxFiles
	}
	if lim.MaxDepth <= 0 {
		lim.MaxDepth = def.MaxDepth
	}
	var skipped []Skipped
	var notes, files []string
	count := 0
	logseq := false
	if _, err := fs.Stat(fsys, logseqConfig); err == nil {
		logseq = true
	}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			if p == "." {
				return err
			}
			skipped = append(skipped, Skipped{p, fmt.Sprintf("it could not be read (%v)", err)})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if p == "." {
			return nil
		}
		name := d.Name()
		if strings.HasPrefix(name, ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			skipped = append(skipped, Skipped{p, "it is a symbolic link, which is not followed"})
			return nil
		}
		if d.IsDir() {
			if strings.Count(p, "/")+1 > lim.MaxDepth {
				skipped = append(skipped, Skipped{p, fmt.Sprintf("it is more than %d folders deep", lim.MaxDepth)})
				return fs.SkipDir
			}
			// A Logseq graph keeps backups of its pages here: not notes of the graph.
			if logseq && (p == "logseq/bak" || p == "logseq/version-files") {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			skipped = append(skipped, Skipped{p, "it is not a regular file"})
			return nil
		}
		count++
		if count > lim.MaxFiles {
			skipped = append(skipped, Skipped{p, fmt.Sprintf("the folder holds more than %d files; this one and the rest were not read", lim.MaxFiles)})
			return fs.SkipAll
		}
		if isNotePath(p) {
			notes = append(notes, p)
		} else {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, skipped, err
	}
	var appJSON []byte
	if b, err := fs.ReadFile(fsys, ".obsidian/app.json"); err == nil {
		appJSON = b
	}
	parsed, more, err := readNotes(ctx, fsys, notes, lim)
	skipped = append(skipped, more...)
	if err != nil {
		return nil, skipped, err
	}
	v := New(DetectStyle(appJSON, parsed))
	for _, f := range files {
		v.PutFile(f)
	}
	for _, n := range parsed {
		v.Put(n)
	}
	return v, skipped, nil
}

// readNotes reads and parses the notes on one worker per core, keeping
// their order.
func readNotes(ctx context.Context, fsys fs.FS, paths []string, lim Limits) ([]Note, []Skipped, error) {
	out := make([]Note, len(paths))
	why := make([]string, len(paths))
	workers := min(runtime.GOMAXPROCS(0), max(len(paths), 1))
	var wg sync.WaitGroup
	next := make(chan int)
	md := newParser()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], why[i] = readNote(md, fsys, paths[i], lim)
			}
		}()
	}
	var err error
	for i := range paths {
		if err = ctx.Err(); err != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err != nil {
		return nil, nil, err
	}
	var skipped []Skipped
	for i, w := range why {
		if w != "" {
			skipped = append(skipped, Skipped{paths[i], w})
		}
	}
	return out, skipped, nil
}

// readNote reads one note; a note it cannot read is still a note of the
// vault (links to it resolve), with no links and the reason.
func readNote(md parser.Parser, fsys fs.FS, p string, lim Limits) (Note, string) {
	base := path.Base(p)
	blank := Note{Path: p, Title: strings.TrimSuffix(base, path.Ext(base))}
	info, err := fs.Stat(fsys, p)
	if err != nil {
		blank.Problem = fmt.Sprintf("it could not be read (%v)", err)
		return blank, blank.Problem
	}
	if info.Size() > lim.MaxNoteBytes {
		blank.Problem = fmt.Sprintf("it is larger than %d bytes, the most a note may hold; it was not read", lim.MaxNoteBytes)
		return blank, blank.Problem
	}
	b, err := fs.ReadFile(fsys, p)
	if err != nil {
		blank.Problem = fmt.Sprintf("it could not be read (%v)", err)
		return blank, blank.Problem
	}
	n, _ := parse(md, p, b)
	if strings.Contains(n.Problem, "binary") {
		return n, n.Problem
	}
	return n, ""
}
