package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"

	"quire/internal/sqlschema"
	"quire/kernel/event"
)

// pageLimit is a cap on the database file's size in pages, for tests that
// need the disk to fill at an exact append: 0 = never capped (no pragma is
// run), n > 0 = at most n pages, -1 = the cap was lifted.
type pageLimit struct{ n atomic.Int64 }

// sqliteMaxPages is SQLite's own largest max_page_count: what a lifted cap
// goes back to.
const sqliteMaxPages = 4294967294

// LimitPages caps the database file at n pages for the log's later writes,
// so that an append which needs more fails with SQLite's SQLITE_FULL, as it
// does when the disk fills; n <= 0 lifts the cap. It is a test's knob:
// max_page_count belongs to a connection, so each write transaction sets it
// on its own connection (and only once a test has used this).
func (s *Store) LimitPages(n int64) {
	if n <= 0 {
		n = -1
	}
	s.pages.n.Store(n)
}

// apply sets the cap (or lifts it) on the connection of tx.
func (p *pageLimit) apply(ctx context.Context, tx *sql.Tx) error {
	n := p.n.Load()
	switch {
	case n == 0:
		return nil
	case n < 0:
		n = sqliteMaxPages
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA max_page_count = %d", n)); err != nil {
		return fmt.Errorf("cap the file at %d pages: %w", n, err)
	}
	return nil
}

// noSpace marks a write's error as event.ErrNoSpace when SQLite could not
// grow the file: SQLITE_FULL, which SQLite reports both for a full disk
// (ENOSPC from the OS) and for a file at its page limit; the WAL index
// (-shm) that could not be given its pages (SQLITE_IOERR_SHMSIZE, what an
// open of a database on a full disk fails with when the index must be
// made); or ENOSPC itself. The rule is sqlschema's, which every part that
// writes the shared database uses (rag and memory may not import the
// driver), so the log and the indexes say "the disk is full" alike; this
// package's tests hold it to the driver's real errors.
func noSpace(err error) error { return sqlschema.NoSpace(err) }

// diskFull: err says the disk (or the file's cap) is full.
func diskFull(err error) bool { return errors.Is(noSpace(err), event.ErrNoSpace) }
