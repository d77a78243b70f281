package vaultindex_test

import (
	"context"
	"database/sql"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"quire/rag/hashvec"
)

// The floors: beside each figure, the least work the same result needs,
// measured in the same run on the same vault, so a figure is read as a
// multiple of what the machine can do at that moment (docs/BENCHMARKS.md)
// rather than against a number from another day or another load.

// floorSchema is a bare FTS5 table with the index's tokenizer: the note's
// whole text in one column, its path beside it so a hit names a note.
const floorSchema = `CREATE VIRTUAL TABLE floor_fts USING fts5(path UNINDEXED, body,
	tokenize='porter unicode61 remove_diacritics 2')`

// openFloorDB opens a new SQLite file with the store's durability (WAL,
// synchronous=NORMAL) and the bare table.
func openFloorDB(tb testing.TB, path string) *sql.DB {
	tb.Helper()
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?_pragma=busy_timeout(5000)&_pragma=synchronous(NORMAL)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		tb.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("PRAGMA journal_mode=WAL"); err != nil {
		tb.Fatal(err)
	}
	if _, err := db.Exec(floorSchema); err != nil {
		tb.Fatal(err)
	}
	return db
}

// floorIndex reads every note's bytes under dir (hidden entries skipped,
// as the scan skips them) and inserts its text in one transaction.
func floorIndex(tb testing.TB, db *sql.DB, dir string) int {
	tb.Helper()
	tx, err := db.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	ins, err := tx.Prepare(`INSERT INTO floor_fts(path, body) VALUES (?, ?)`)
	if err != nil {
		tb.Fatal(err)
	}
	n := 0
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !strings.EqualFold(filepath.Ext(p), ".md") {
			return nil
		}
		text, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if _, err := ins.Exec(filepath.ToSlash(rel), string(text)); err != nil {
			return err
		}
		n++
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
	return n
}

// floorStat walks dir and stats every file: the least a reconcile that
// trusts sizes and times can do.
func floorStat(tb testing.TB, dir string) int {
	tb.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if _, err := d.Info(); err != nil {
			return err
		}
		n++
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// floorDB is the bare table of the generated vault's text, built once for
// the run's floors that start from an index.
var floorDB *sql.DB

func floorIndexed(b *testing.B, dir string) *sql.DB {
	if floorDB == nil {
		os.Remove(dir + ".floor.db")
		floorDB = openFloorDB(b, dir+".floor.db")
		floorIndex(b, floorDB, dir)
	}
	return floorDB
}

// floorMatch is the query as the index asks it: its words (stopwords
// dropped unless nothing else is left), each quoted, any of them.
func floorMatch(q string) string {
	var all, content []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(q, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r))
	}) {
		w = strings.ToLower(w)
		if seen[w] {
			continue
		}
		seen[w] = true
		all = append(all, w)
		if !hashvec.IsStopword(w) {
			content = append(content, w)
		}
	}
	if len(content) == 0 {
		content = all
	}
	for i, t := range content {
		content[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	return strings.Join(content, " OR ")
}

// floorSearch ranks the bare table by bm25 and reads the paths of the
// first limit hits.
func floorSearch(ctx context.Context, db *sql.DB, q string, limit int) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT path FROM floor_fts WHERE floor_fts MATCH ? ORDER BY bm25(floor_fts) LIMIT ?`, floorMatch(q), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var paths []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, rows.Err()
}
