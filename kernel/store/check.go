package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Check runs SQLite's check of the whole file: quick_check (every page's
// structure and every record's format, linear in the file's size), or with
// full the integrity_check, which also checks that rows are in key order and
// indexes match their tables — what torn or flipped pages break while the
// structure still reads. A file that fails is ErrCorrupt, with SQLite's
// findings (the first ten).
//
// Each check runs on a connection of its own, opened for it and closed
// after (read-only, so it writes nothing and its close checkpoints
// nothing). Not on one of the store's: SQLite's check of an FTS5 index
// reads the index's segment structure as the connection last cached it,
// so a pooled connection that cached it before other connections merged
// segments away reports "fts5: corruption found reading blob …" of a file
// that is sound (measured with SQLite 3.54.1: 265 of 400 checks on one
// connection while three writers appended and deleted; 0 of 400 on a new
// connection each time; TestACheckBesideWritersFindsNoDamage). Such a
// false finding would set the store damaged and refuse every later write,
// and the owner's doctor checks while its chats write.
func (s *Store) Check(ctx context.Context, full bool) error {
	db, err := sql.Open("sqlite", s.checkDSN)
	if err != nil {
		return fmt.Errorf("open %s: %w", s.path, err)
	}
	defer db.Close()
	s.checks.Add(1)
	if err := s.check(ctx, db, checkPragma(full)); err != nil {
		return err
	}
	if full && !s.readOnly {
		// Best effort: unrecorded, the next start checks once more.
		_, _ = s.db.ExecContext(ctx, `INSERT INTO store_state (name, value) VALUES (?, ?)
			ON CONFLICT (name) DO UPDATE SET value = excluded.value`, checkedMark, time.Now().Unix())
	}
	return nil
}

// checkedMark is the store_state row that holds when the file last passed
// the full check (Unix seconds), recorded by an owner's Check.
const checkedMark = "checked"

// LastFullCheck is when the file last passed an owner's full check; the
// zero time when it never did (or a file older than schema 3). An owner's
// start checks the whole file in the background only when that is long
// ago: the check costs seconds of CPU a gigabyte (issue 30).
func (s *Store) LastFullCheck(ctx context.Context) (time.Time, error) {
	var v int64
	err := s.db.QueryRowContext(ctx, "SELECT value FROM store_state WHERE name = ?", checkedMark).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, err
	}
	return time.Unix(v, 0), nil
}

// checkPragma is the whole file's check: integrity_check when full, else
// quick_check; the first ten findings.
func checkPragma(full bool) string {
	if full {
		return "PRAGMA integrity_check(10)"
	}
	return "PRAGMA quick_check(10)"
}

// logTables are the tables a reader reads of the store: the log.
var logTables = []string{"sessions", "events"}

// checkLog is a reader's check at open: quick_check of the log's tables
// alone, linear in the log's size. A reader writes nothing, so the check
// is not what keeps a damaged file from being written (the owner's full
// check at every open is, and doctor's): it is what makes `quire sessions`
// and `replay` say "damaged" instead of showing a torn log. The rest of
// the file is the document index's and memory's (their FTS5 indexes are
// most of a documents folder's file, and quick_check verifies each of
// them: 130 of the 200 ms `quire search` took on the SciFact index,
// docs/BENCHMARKS-NOTEBOOK.md "CLI time to first result"); a search that meets a
// damaged page of them gets SQLite's error, and doctor checks them all.
// The log's tables hold no FTS5 index, so the store's own (just opened)
// connections check them.
func (s *Store) checkLog(ctx context.Context) error {
	for _, t := range logTables {
		if err := s.check(ctx, s.db, "PRAGMA quick_check("+t+")"); err != nil {
			return err
		}
	}
	return nil
}

// check runs pragma on db and sets the store damaged when it finds problems.
// A check that ctx stopped (a browser tab closed, a deadline) found nothing
// either way: it is ErrCheckStopped with ctx's cause, never ErrCorrupt
// (issue 31: a closed tab was reported as damage to every page).
func (s *Store) check(ctx context.Context, db *sql.DB, pragma string) error {
	failed := func(err error) error {
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w (%w)", s.path, ErrCheckStopped, context.Cause(ctx))
		}
		return fmt.Errorf("%s: %w (%w)", s.path, ErrCorrupt, err)
	}
	rows, err := db.QueryContext(ctx, pragma)
	if diskFull(err) {
		// The check could not run (no room for the WAL index): that says
		// nothing of the file's pages.
		return fmt.Errorf("%s: %w", s.path, noSpace(err))
	}
	if err != nil {
		return failed(err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return failed(err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return failed(err)
	}
	if len(problems) == 0 && ctx.Err() != nil {
		// Stopped between rows: no finding, and no whole answer either.
		return failed(ctx.Err())
	}
	if len(problems) > 0 {
		err := fmt.Errorf("%s: %w: %s", s.path, ErrCorrupt, strings.Join(problems, "; "))
		s.damaged.Store(&err)
		return err
	}
	return nil
}
