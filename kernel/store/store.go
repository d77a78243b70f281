package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// schemaVersion is the PRAGMA user_version this code writes and understands.
const schemaVersion = 1

// migrations[i] brings a database from version i to i+1.
var migrations = []string{
	`CREATE TABLE sessions (
		id         TEXT PRIMARY KEY,
		title      TEXT NOT NULL,
		created_ns INTEGER NOT NULL,
		updated_ns INTEGER NOT NULL,
		last_seq   INTEGER NOT NULL,
		replaces   INTEGER NOT NULL DEFAULT 0,
		parent     TEXT,
		parent_seq INTEGER
	);
	CREATE TABLE events (
		session    TEXT NOT NULL,
		seq        INTEGER NOT NULL,
		type       TEXT NOT NULL,
		time_ns    INTEGER NOT NULL,
		run_id     TEXT NOT NULL DEFAULT '',
		ignorable  INTEGER NOT NULL,
		visibility TEXT NOT NULL,
		sources    TEXT NOT NULL DEFAULT '',
		payload    BLOB NOT NULL,
		PRIMARY KEY (session, seq)
	) WITHOUT ROWID;
	CREATE TABLE commands (
		key         TEXT PRIMARY KEY,
		fingerprint TEXT NOT NULL,
		result      BLOB NOT NULL,
		created_ns  INTEGER NOT NULL
	) WITHOUT ROWID;`,
}

// Store is a Quire database. It is safe for concurrent use.
type Store struct {
	db       *sql.DB
	path     string
	readOnly bool
	pages    pageLimit // a test's cap on the file's size (limit.go)
}

// Open opens (creating if needed) the database at path. Before anything is
// written it checks the file: a damaged file or one from a newer Quire is
// refused with an error that says so, and a file that needs a migration is
// first copied to path + ".backup-v<N>".
func Open(ctx context.Context, path string) (*Store, error) {
	existed := fileHasContent(path)
	// WAL so readers never block the writer; immediate transactions so a
	// read-then-write never fails with SQLITE_BUSY on the lock upgrade
	// (STACK.md §4); busy_timeout so concurrent writers queue instead of failing.
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() +
		"?_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	s := &Store{db: db, path: path}
	if err := s.check(ctx, existed); err != nil {
		db.Close()
		return nil, err
	}
	if _, err := db.ExecContext(ctx, "PRAGMA journal_mode=WAL"); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w: %v", path, ErrCorrupt, err)
	}
	if err := s.migrate(ctx, existed); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// OpenReadOnly opens an existing database for reading only: the file is
// opened read-only and every connection refuses writes (query_only), so
// nothing — no migration, no backup, no journal mode change, no append —
// can change it. A file that does not exist is ErrNoDatabase; one that
// needs a migration is ErrOlderDatabase (open it once with Open first).
// What the owner has committed, even in its WAL, is visible.
func OpenReadOnly(ctx context.Context, path string) (*Store, error) {
	if !fileHasContent(path) {
		return nil, fmt.Errorf("%s: %w", path, ErrNoDatabase)
	}
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() +
		"?mode=ro&_pragma=busy_timeout(5000)&_pragma=query_only(1)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	s := &Store{db: db, path: path, readOnly: true}
	if err := s.check(ctx, true); err != nil {
		db.Close()
		return nil, err
	}
	var version int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: read schema version: %w", path, err)
	}
	if version < schemaVersion {
		db.Close()
		return nil, fmt.Errorf("%s: %w (schema %d, this Quire writes %d); start Quire once to upgrade it", path, ErrOlderDatabase, version, schemaVersion)
	}
	return s, nil
}

// ReadOnly reports whether the store was opened with OpenReadOnly.
func (s *Store) ReadOnly() bool { return s.readOnly }

func fileHasContent(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Size() > 0
}

func (s *Store) check(ctx context.Context, existed bool) error {
	if !existed {
		return nil
	}
	var version int
	if err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("%s: %w (%v); move it aside and Quire will start a new one", s.path, ErrCorrupt, err)
	}
	if version > schemaVersion {
		return fmt.Errorf("%s: %w (schema %d, this Quire knows %d); update Quire, the file was not changed", s.path, ErrNewerDatabase, version, schemaVersion)
	}
	rows, err := s.db.QueryContext(ctx, "PRAGMA quick_check")
	if err != nil {
		return fmt.Errorf("%s: %w (%v); move it aside and Quire will start a new one", s.path, ErrCorrupt, err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return fmt.Errorf("%s: %w (%v)", s.path, ErrCorrupt, err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: %w (%v); move it aside and Quire will start a new one", s.path, ErrCorrupt, err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s: %w: %s; move it aside and Quire will start a new one", s.path, ErrCorrupt, strings.Join(problems, "; "))
	}
	return nil
}

func (s *Store) migrate(ctx context.Context, existed bool) error {
	var version int
	if err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("%s: read schema version: %w", s.path, err)
	}
	if version == schemaVersion {
		return nil
	}
	if existed {
		if err := s.backup(ctx, version); err != nil {
			return err
		}
	}
	for v := version; v < schemaVersion; v++ {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("migrate to %d: %w", v+1, err)
		}
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrate to %d: %w", v+1, err)
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrate to %d: %w", v+1, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migrate to %d: %w", v+1, err)
		}
	}
	return nil
}

// backup copies the whole database (WAL included, via VACUUM INTO) beside it.
func (s *Store) backup(ctx context.Context, version int) error {
	dst := fmt.Sprintf("%s.backup-v%d", s.path, version)
	if err := os.Remove(dst); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("backup before migration: %w", err)
	}
	if _, err := s.db.ExecContext(ctx, "VACUUM INTO ?", dst); err != nil {
		return fmt.Errorf("backup before migration to %s: %w", dst, err)
	}
	return nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Path is the database file.
func (s *Store) Path() string { return s.path }

// DB is the handle memory/ and rag/ share (ARCHITECTURE.md: Data).
func (s *Store) DB() *sql.DB { return s.db }

// Diagnosis is what `quire doctor` reports about SQLite.
type Diagnosis struct {
	SQLiteVersion string
	FTS5          bool
}

// Diagnose reports the SQLite version and whether FTS5 works, by creating a
// temporary FTS5 table (the compile option alone does not prove it loads).
func Diagnose(ctx context.Context) (Diagnosis, error) {
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		return Diagnosis{}, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var d Diagnosis
	if err := db.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&d.SQLiteVersion); err != nil {
		return d, err
	}
	if _, err := db.ExecContext(ctx, "CREATE VIRTUAL TABLE t USING fts5(x)"); err == nil {
		d.FTS5 = true
	}
	return d, nil
}
