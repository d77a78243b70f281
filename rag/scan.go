package rag

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"quire/rag/parse"
)

type root struct {
	path        string
	excluded    bool
	fingerprint string
}

func (ix *Index) roots(ctx context.Context) ([]root, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT path, excluded, fingerprint FROM rag_roots ORDER BY path`)
	if err != nil {
		return nil, fmt.Errorf("rag: %w", err)
	}
	defer rows.Close()
	var out []root
	for rows.Next() {
		var r root
		if err := rows.Scan(&r.path, &r.excluded, &r.fingerprint); err != nil {
			return nil, fmt.Errorf("rag: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Roots lists the watched folders and files.
func (ix *Index) Roots(ctx context.Context) ([]string, error) {
	rs, err := ix.roots(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range rs {
		if !r.excluded {
			out = append(out, r.path)
		}
	}
	return out, nil
}

// resolveRoots makes the named paths watched roots and returns the roots
// to scan: all watched roots when none are named. A path inside a watched
// root scans that root; a path enclosing watched roots replaces them.
// Naming an excluded path includes it again.
func (ix *Index) resolveRoots(ctx context.Context, paths []string) ([]string, error) {
	existing, err := ix.roots(ctx)
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		var out []string
		for _, r := range existing {
			if !r.excluded {
				out = append(out, r.path)
			}
		}
		return out, nil
	}
	var errs []error
	var scan []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			scan = append(scan, p)
		}
	}
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("rag: %w", err)
	}
	defer tx.Rollback()
	for _, p := range paths {
		p, err := absPath(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if _, err := os.Stat(p); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", p, ErrRootMissing))
			continue
		}
		// Naming a path lifts exclusions at, inside or around it.
		for _, r := range existing {
			if r.excluded && (r.path == p || within(r.path, p) || within(p, r.path)) {
				if _, err := tx.ExecContext(ctx, `DELETE FROM rag_roots WHERE path = ? AND excluded = 1`, r.path); err != nil {
					return nil, fmt.Errorf("rag: %w", err)
				}
			}
		}
		var enclosing string
		for _, r := range existing {
			if !r.excluded && (r.path == p || within(p, r.path)) {
				enclosing = r.path
			}
		}
		if enclosing != "" {
			if _, err := tx.ExecContext(ctx, `UPDATE rag_roots SET fingerprint = '' WHERE path = ?`, enclosing); err != nil {
				return nil, fmt.Errorf("rag: %w", err)
			}
			add(enclosing)
			continue
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM rag_roots WHERE excluded = 0 AND path LIKE ? ESCAPE '\'`, likeUnder(p)); err != nil {
			return nil, fmt.Errorf("rag: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE rag_files SET root = ? WHERE path LIKE ? ESCAPE '\'`, p, likeUnder(p)); err != nil {
			return nil, fmt.Errorf("rag: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO rag_roots(path) VALUES (?) ON CONFLICT(path) DO UPDATE SET excluded = 0`, p); err != nil {
			return nil, fmt.Errorf("rag: %w", err)
		}
		add(p)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("rag: %w", err)
	}
	return scan, errors.Join(errs...)
}

type fileStat struct {
	path  string
	size  int64
	mtime int64 // ns
	// outside: a symbolic link to a file outside the root; size and mtime
	// are the link's own, so a change of the link is seen and its
	// target's contents never are.
	outside bool
}

// outsideLink is the reason a link out of its folder is listed with. A
// dropped notes folder may hold a link to ~/.ssh/id_rsa: indexed, its text
// would be searchable by the model, which the folder never held.
const outsideLink = "a link to a file outside the folder — not indexed"

// racyWindow: a file modified this recently may be modified again within
// the resolution of its timestamp without its size or time changing, so
// neither its time nor its root's fingerprint is trusted.
const racyWindow = 2 * time.Second

// walk lists the regular files of a root in path order, skipping hidden
// files and folders (".git") and excluded paths; symbolic links to files
// inside the root are followed, to folders not, and a link to a file
// outside the root is listed as outside (never followed).
func walk(ctx context.Context, rootPath string, excluded []string) ([]fileStat, error) {
	var out []fileStat
	// The folder links are judged against, with its own links resolved:
	// the root itself, or the folder holding a root that is a file (as
	// parseJob opens it, through an os.Root of that folder).
	inside, err := filepath.EvalSymlinks(rootFolder(rootPath))
	if err != nil {
		return nil, err
	}
	err = filepath.WalkDir(rootPath, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == rootPath {
				return err
			}
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if p != rootPath && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		for _, e := range excluded {
			if p == e || within(p, e) {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
		}
		if d.IsDir() {
			return nil
		}
		var info fs.FileInfo
		var statErr error
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := filepath.EvalSymlinks(p)
			if err != nil {
				return nil // dangling, or a loop: nothing to read
			}
			if target != inside && !within(target, inside) {
				if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
					return nil // a link to a folder is not followed anyway
				}
				link, err := os.Lstat(p)
				if err != nil {
					return nil
				}
				out = append(out, fileStat{path: p, size: link.Size(), mtime: link.ModTime().UnixNano(), outside: true})
				return nil
			}
			// Not err: that is the link's own, scoped to this block.
			info, statErr = os.Stat(p)
		} else {
			info, statErr = d.Info()
		}
		if statErr != nil || !info.Mode().IsRegular() {
			return nil
		}
		out = append(out, fileStat{path: p, size: info.Size(), mtime: info.ModTime().UnixNano()})
		return nil
	})
	return out, err
}

// rootFolder is the folder a root's files are read through: the root, or
// the folder holding a root that is a file.
func rootFolder(root string) string {
	if st, err := os.Stat(root); err == nil && !st.IsDir() {
		return filepath.Dir(root)
	}
	return root
}

// fingerprint is FNV-1a (64-bit) over the root, its exclusions and every
// file's path, size and modification time.
func fingerprint(rootPath string, excluded []string, files []fileStat) string {
	h := fnv.New64a()
	io.WriteString(h, rootPath)
	for _, e := range excluded {
		io.WriteString(h, "\x00-"+e)
	}
	var buf []byte
	for _, f := range files {
		buf = append(buf[:0], 0)
		buf = append(buf, f.path...)
		buf = append(buf, 0)
		buf = strconv.AppendInt(buf, f.size, 10)
		buf = append(buf, 0)
		buf = strconv.AppendInt(buf, f.mtime, 10)
		if f.outside {
			buf = append(buf, 0, '>')
		}
		h.Write(buf)
	}
	return strconv.FormatUint(h.Sum64(), 16)
}

// trustedMtime is the time to record for a file: its modification time,
// or 0 (meaning "check the content next time") if it is too recent.
func trustedMtime(mtime int64, now time.Time) int64 {
	if mtime > now.Add(-racyWindow).UnixNano() {
		return 0
	}
	return mtime
}

func hashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// scanResult is what a scan of one root found.
type scanResult struct {
	root        string
	fingerprint string // to record once the root's jobs are all finished
	stable      bool   // no file was modified within racyWindow
	skipped     bool   // the fingerprint matched and nothing was pending
}

// scan compares a root with the index: new files are queued (or refused
// by name), files whose size or time changed are hashed and queued only if
// their content changed, and files gone from disk are dropped.
func (ix *Index) scan(ctx context.Context, w *writer, rootPath string, excluded []string, stored string) (scanResult, error) {
	now := time.Now()
	if _, err := os.Stat(rootPath); err != nil {
		return scanResult{}, fmt.Errorf("%s: %w", rootPath, ErrRootMissing)
	}
	files, err := walk(ctx, rootPath, excluded)
	if err != nil {
		return scanResult{}, fmt.Errorf("rag: scan %s: %w", rootPath, err)
	}
	res := scanResult{root: rootPath, fingerprint: fingerprint(rootPath, excluded, files), stable: true}
	for _, f := range files {
		if trustedMtime(f.mtime, now) == 0 {
			res.stable = false
			break
		}
	}
	var pending int
	if err := ix.db.QueryRowContext(ctx, `SELECT count(*) FROM rag_files WHERE root = ? AND status IN ('queued', 'parsed', 'embedded')`, rootPath).Scan(&pending); err != nil {
		return res, fmt.Errorf("rag: %w", err)
	}
	if res.fingerprint == stored && pending == 0 {
		res.skipped = true
		return res, nil
	}

	type known struct {
		id          int64
		size, mtime int64
		hash        string
		status      string
		format      string
	}
	rows, err := ix.db.QueryContext(ctx, `SELECT id, path, size, mtime_ns, hash, status, format FROM rag_files WHERE root = ?`, rootPath)
	if err != nil {
		return res, fmt.Errorf("rag: %w", err)
	}
	have := map[string]known{}
	for rows.Next() {
		var k known
		var p string
		if err := rows.Scan(&k.id, &p, &k.size, &k.mtime, &k.hash, &k.status, &k.format); err != nil {
			rows.Close()
			return res, fmt.Errorf("rag: %w", err)
		}
		have[p] = k
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return res, fmt.Errorf("rag: %w", err)
	}

	// Hash the changed files before the transaction: reading is slow.
	type change struct {
		f      fileStat
		k      known
		exists bool
		same   bool // content unchanged
	}
	var changes []change
	for _, f := range files {
		k, ok := have[f.path]
		delete(have, f.path)
		if ok && k.size == f.size && k.mtime == f.mtime {
			continue
		}
		c := change{f: f, k: k, exists: ok}
		if ok && k.hash != "" && k.size == f.size && !f.outside {
			if h, err := hashFile(f.path); err == nil && h == k.hash {
				c.same = true
			}
		}
		changes = append(changes, c)
	}
	if len(changes) == 0 && len(have) == 0 {
		return res, nil
	}
	err = w.inTx(func(tx *sql.Tx) error {
		for _, c := range changes {
			mtime := trustedMtime(c.f.mtime, now)
			switch {
			case c.f.outside && c.exists:
				// Listed with the reason; what an older Quire indexed of
				// the link's target goes.
				if err := w.deleteChunks(tx, c.k.id); err != nil {
					return err
				}
				if err := w.execCtx(ctx, tx, `UPDATE rag_files SET status = 'failed', reason = ?, format = '', hash = '', chunks = 0, size = ?, mtime_ns = ?, updated_ns = ? WHERE id = ?`,
					outsideLink, c.f.size, mtime, now.UnixNano(), c.k.id); err != nil {
					return err
				}
			case c.f.outside:
				if err := w.execCtx(ctx, tx, `INSERT INTO rag_files(path, root, format, size, mtime_ns, status, reason, updated_ns)
					VALUES (?, ?, '', ?, ?, 'failed', ?, ?)`, c.f.path, rootPath, c.f.size, mtime, outsideLink, now.UnixNano()); err != nil {
					return err
				}
				w.refused++
			case c.same || (c.exists && c.k.status == Skipped && refusedByName(c.f.path)):
				// Same content (or a file Quire does not read): only the stat changes.
				if err := w.execCtx(ctx, tx, `UPDATE rag_files SET size = ?, mtime_ns = ? WHERE id = ?`, c.f.size, mtime, c.k.id); err != nil {
					return err
				}
			case c.exists:
				if err := w.execCtx(ctx, tx, `UPDATE rag_files SET status = 'queued', reason = '', size = ?, mtime_ns = ?, updated_ns = ? WHERE id = ?`,
					c.f.size, mtime, now.UnixNano(), c.k.id); err != nil {
					return err
				}
			default:
				status, reason, format := Queued, "", ""
				if f, err := parse.ByName(c.f.path); err != nil {
					status, reason = Skipped, SkipReason(c.f.path)
					w.skipped++
				} else {
					format = string(f)
				}
				if err := w.execCtx(ctx, tx, `INSERT INTO rag_files(path, root, format, size, mtime_ns, status, reason, updated_ns)
					VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, c.f.path, rootPath, format, c.f.size, mtime, status, reason, now.UnixNano()); err != nil {
					return err
				}
			}
		}
		for _, k := range have {
			if err := w.deleteFile(tx, k.id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("rag: scan %s: %w", rootPath, err)
	}
	w.afterCommit()
	return res, nil
}

// refusedByName: the file's name says it is not a document Quire reads;
// until it is renamed only its stat changes. (A link once listed as
// outside its folder that now leads inside is read again.)
func refusedByName(path string) bool {
	_, err := parse.ByName(path)
	return err != nil
}

// SkipReason is the reason a skipped file is listed with: "Quire does not
// read .yml files". Hosts group skipped files by it.
func SkipReason(path string) string {
	return "Quire does not read " + strings.ToLower(filepath.Ext(path)) + " files"
}

// OpenInRoot opens path, a document of the watched root, through an
// os.Root of the root's folder (rootFolder: the root, or the folder
// holding a root that is a file), so no symbolic link leads out of it:
// the indexer reads every document this way (the walk lists links out as
// outside, and one swapped in after the walk is refused when it is read),
// and the source viewer shows them this way. A way out is ErrOutsideRoot.
func OpenInRoot(root, path string) (*os.File, error) {
	dir := rootFolder(root)
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("%s is not inside %s: %w", path, dir, ErrOutsideRoot)
	}
	if linkAbove(dir) {
		return nil, fmt.Errorf("%s: %w", dir, ErrFolderIsLink)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer r.Close() // an open file outlives its Root
	f, err := r.Open(rel)
	if err == nil || !linkOnTheWay(dir, path) {
		return f, err
	}
	// os.Root refuses a link out, and also any link with an absolute
	// target (its error for either is not exported). A link whose target
	// lies inside is opened by that target's own path, still through the
	// Root, so a link swapped in on the way meanwhile is refused too.
	real, rerr := filepath.EvalSymlinks(path)
	inside, ierr := filepath.EvalSymlinks(dir)
	if rerr != nil || ierr != nil || !within(real, inside) {
		return nil, fmt.Errorf("%s: %w", path, ErrOutsideRoot)
	}
	rel, err = filepath.Rel(inside, real)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, ErrOutsideRoot)
	}
	if f, err = r.Open(rel); err != nil {
		return nil, fmt.Errorf("%s: %w (%w)", path, ErrOutsideRoot, err)
	}
	return f, nil
}

// linkAbove reports whether dir, or a folder above it, is a symbolic link.
func linkAbove(dir string) bool {
	for p := dir; p != filepath.Dir(p); p = filepath.Dir(p) {
		if st, err := os.Lstat(p); err == nil && st.Mode()&os.ModeSymlink != 0 {
			return true
		}
	}
	return false
}

// linkOnTheWay reports whether path, or a folder between dir and it, is a
// symbolic link.
func linkOnTheWay(dir, path string) bool {
	for p := path; p != dir && p != filepath.Dir(p); p = filepath.Dir(p) {
		if st, err := os.Lstat(p); err == nil && st.Mode()&os.ModeSymlink != 0 {
			return true
		}
	}
	return false
}
