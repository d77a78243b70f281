package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"

	"modernc.org/sqlite" // registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"
)

// schemaVersion is the PRAGMA user_version this code writes and understands.
const schemaVersion = 3

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
	// Version 2: the search over what was said (said.go) and where a
	// session's title came from, both backfilled from the log, which stays
	// the truth. Every rename before this version was the user's.
	`ALTER TABLE sessions ADD COLUMN title_source TEXT NOT NULL DEFAULT 'created';
	UPDATE sessions SET title_source = 'user'
		WHERE id IN (SELECT DISTINCT session FROM events WHERE type = 'session.renamed');` + saidSchema + saidBackfill,
	// Version 3: an index of the events by type, for the per-step lookups
	// of a run's last event of a type (LastSeqOf) and a session's events
	// of a type, which otherwise scan the session's whole log on every
	// step, and for a start's look for open runs and unknown types
	// (SessionsToRecover), which otherwise scans the whole log; and the
	// store's own state, where Close records that the last run ended
	// cleanly (cleanEnd).
	`CREATE INDEX events_by_type ON events (type, session, run_id, seq);
	CREATE TABLE store_state (
		name  TEXT PRIMARY KEY,
		value INTEGER NOT NULL
	) WITHOUT ROWID;`,
}

// Store is a Quire database. It is safe for concurrent use.
type Store struct {
	db       *sql.DB
	path     string
	readOnly bool
	pages    pageLimit // a test's cap on the file's size (limit.go)
	// checkDSN opens the connection each Check runs on (check.go): the
	// file read-only, as this store reads it.
	checkDSN string
	// damaged is set when a check run after Open (doctor's full check)
	// fails: from then on the log takes no write, since nothing may write
	// into a file that failed its check.
	damaged atomic.Pointer[error]
	// checks counts the whole-file checks this store ran: at Open and by
	// Check (Checks).
	checks atomic.Int64
	// stmts are the statements of every step, prepared once (stmts.go).
	stmts statements
}

// Open opens (creating if needed) the database at path for writing. Before
// anything is written it checks the file: one that Quire may not write (a
// read-only file or folder) is ErrReadOnly, a damaged file or one from a
// newer Quire is refused with an error that says so, and a file that needs
// a migration is first copied to path + ".backup-v<N>" (Backups lists them).
//
// The check is SQLite's full integrity_check (which includes each FTS5
// index's own), made when the last run did not end cleanly: Close records
// a clean end in the file (cleanMark), and Open takes the mark away before
// anything else is written, so a run that was killed, lost power or
// crashed leaves none and the next open checks. After a clean end the
// open skips it: the check is linear in the file's size (29 s at 1.36 GB,
// issue 30) and the user would wait for it at every start. Damage at rest
// (a failing disk: issue 13's flipped pages) is then found by doctor's
// Check — `quire doctor`, and the health report the window and `quire
// serve` make in the background as they start (host.Health) — which sets
// the store damaged: every later write is refused and Close leaves no
// mark, so the next start checks in front again.
// A disk too full to open the file on is event.ErrNoSpace, never
// ErrCorrupt: the file is fine, and the remedy is space, not setting it
// aside.
func Open(ctx context.Context, path string) (*Store, error) {
	existed := fileHasContent(path)
	if err := canWrite(path, existed); err != nil {
		return nil, err
	}
	if err := createPrivate(path); err != nil {
		return nil, err
	}
	clean, checked := false, false
	if existed {
		var err error
		if clean, err = cleanEnd(ctx, path); err != nil {
			return nil, err
		}
		if !clean {
			if err := checkBeforeWriting(ctx, path, true); err != nil {
				return nil, err
			}
			checked = true
		}
	}
	// WAL so readers never block the writer; immediate transactions so a
	// read-then-write never fails with SQLITE_BUSY on the lock upgrade
	// (STACK.md §4); busy_timeout so concurrent writers queue instead of failing.
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() +
		"?_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	s := &Store{db: db, path: path, checkDSN: readOnlyDSN(path)}
	if checked {
		s.checks.Add(1)
	}
	if _, err := db.ExecContext(ctx, "PRAGMA journal_mode=WAL"); err != nil {
		db.Close()
		if diskFull(err) {
			return nil, fmt.Errorf("%s: %w", path, noSpace(err))
		}
		return nil, fmt.Errorf("%s: %w: %v", path, ErrCorrupt, err)
	}
	if err := s.migrate(ctx, existed); err != nil {
		db.Close()
		return nil, err
	}
	if clean {
		// From here this run may write: until its Close marks the end
		// clean again, a next open checks.
		if err := s.mark(ctx, false); err != nil {
			db.Close()
			return nil, fmt.Errorf("%s: %w", path, noSpace(err))
		}
	}
	return s, nil
}

// cleanMark is the store_state row Close sets to 1 and Open to 0.
const cleanMark = "clean"

// cleanEnd reports whether the last owner of the file at path closed it
// (cleanMark), read through a read-only connection like the check, so a
// file refused later is not touched. A file with no mark (written before
// schema 3, or by a run that did not end) did not end cleanly; one that
// cannot be read is left to the check to judge.
func cleanEnd(ctx context.Context, path string) (bool, error) {
	db, err := sql.Open("sqlite", readOnlyDSN(path))
	if err != nil {
		return false, fmt.Errorf("open %s: %w", path, err)
	}
	defer db.Close()
	s := &Store{db: db, path: path, readOnly: true}
	if err := s.checkVersion(ctx); err != nil {
		return false, err
	}
	var v int64
	err = db.QueryRowContext(ctx, "SELECT value FROM store_state WHERE name = ?", cleanMark).Scan(&v)
	return err == nil && v == 1, nil
}

// mark records whether the run that owns the file ended cleanly.
func (s *Store) mark(ctx context.Context, clean bool) error {
	v := 0
	if clean {
		v = 1
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO store_state (name, value) VALUES (?, ?)
		ON CONFLICT (name) DO UPDATE SET value = excluded.value`, cleanMark, v)
	return err
}

// Checks is how many whole-file checks this store ran: 1 when Open checked
// (the last run did not end cleanly), plus one per Check. Tests count them.
func (s *Store) Checks() int64 { return s.checks.Load() }

// readOnlyDSN opens the file read-only with every connection refusing writes.
func readOnlyDSN(path string) string {
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?mode=ro&_pragma=busy_timeout(5000)&_pragma=query_only(1)"
}

// checkBeforeWriting checks the file through a read-only connection, so
// that a refused file is left exactly as it was: a writable connection
// closing last would checkpoint a crash's WAL into the file it refuses.
func checkBeforeWriting(ctx context.Context, path string, full bool) error {
	db, err := sql.Open("sqlite", readOnlyDSN(path))
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer db.Close()
	s := &Store{db: db, path: path, readOnly: true}
	if err := s.checkVersion(ctx); err != nil {
		return err
	}
	// db was opened for this check alone: no earlier statement cached an
	// FTS5 index's structure on it (check.go).
	return s.check(ctx, db, checkPragma(full))
}

// uncleanlyClosed reports whether the last writer of the database at path
// did not close it: SQLite deletes the write-ahead log when the last
// connection to a WAL database closes (after checkpointing it into the
// file), so a WAL with content means the last owner was killed, lost power
// or crashed, and the file's latest commits are in the WAL. A reader on a
// folder that takes no WAL index cannot read them, so OpenReadOnly refuses
// that case rather than show an older log.
func uncleanlyClosed(path string) bool { return fileHasContent(path + "-wal") }

// canWrite reports ErrReadOnly when Quire could not write the database at
// path: the file (when it exists) cannot be opened for writing, or its
// folder (where SQLite keeps the WAL and its index) takes no new file.
// Finding out costs an open of the file, which changes nothing, and a probe
// file created and removed at once; only an owner, which is about to write
// anyway, asks.
func canWrite(path string, existed bool) error {
	if existed {
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			if readOnlyErr(err) {
				return fmt.Errorf("%s: %w", path, ErrReadOnly)
			}
			return fmt.Errorf("open %s: %w", path, err)
		}
		f.Close()
	}
	probe, err := os.CreateTemp(filepath.Dir(path), ".quire-write-probe-*")
	if err != nil {
		if readOnlyErr(err) {
			return fmt.Errorf("%s: %w", filepath.Dir(path), ErrReadOnly)
		}
		return fmt.Errorf("write in %s: %w", filepath.Dir(path), err)
	}
	probe.Close()
	return os.Remove(probe.Name())
}

// createPrivate makes sure SQLite opens a file of the user's only, and
// never through a link. SQLite creates a database with the umask's mode
// (0644: anyone on the machine could read every conversation) and gives
// its WAL and index the database's mode, so the file is made here first,
// empty and 0600; an open with O_EXCL never follows a link. SQLite would
// follow a link to the database, its WAL or its index (the driver opens
// with no SQLITE_OPEN_NOFOLLOW): each is refused with ErrLink instead.
// The owner holds the folder's lock, and the folder is the user's own
// (0700), so nothing swaps a file in between this and SQLite's open.
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	switch {
	case err == nil:
		f.Close()
	case !errors.Is(err, fs.ErrExist):
		return fmt.Errorf("create %s: %w", path, err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if st, err := os.Lstat(p); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s: %w: Quire never writes through one in its data folder; remove the link", p, ErrLink)
		}
	}
	return nil
}

// readOnlyErr: the file system refused a write (a read-only mount, or
// permissions).
func readOnlyErr(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)
}

// OpenReadOnly opens an existing database for reading only: the file is
// opened read-only and every connection refuses writes (query_only), so
// nothing — no migration, no backup, no journal mode change, no append —
// can change it. A file that does not exist is ErrNoDatabase; one that
// needs a migration is ErrOlderDatabase (open it once with Open first).
// What the owner has committed, even in its WAL, is visible.
//
// A database in a read-only folder can still be read: SQLite's read-only
// mode needs the WAL index (the -shm file) and cannot create it there, so
// when that open fails and no WAL is left, the file is opened as immutable
// (no locks, no WAL index). That is safe because nothing can write in a
// folder that takes no new file; with a WAL left (a crash copy) immutable
// would hide its commits, so that case is refused with ErrReadOnly. A
// full disk that has no room for the WAL index is the same case: its
// owner holds the folder's lock, so nothing writes there meanwhile.
func OpenReadOnly(ctx context.Context, path string) (*Store, error) {
	if !fileHasContent(path) {
		return nil, fmt.Errorf("%s: %w", path, ErrNoDatabase)
	}
	dsn := readOnlyDSN(path) + readerMmap
	s, err := openReader(ctx, path, dsn)
	if err != nil && (cannotOpen(err) || diskFull(err)) {
		if uncleanlyClosed(path) {
			return nil, fmt.Errorf("%s: %w (a write-ahead log is left beside it and its folder takes no index file)", path, ErrReadOnly)
		}
		s, err = openReader(ctx, path, dsn+"&immutable=1")
	}
	return s, err
}

// readerMmap has a reader's connections read the file through a memory
// map instead of a pread(2) per page: a document index's vectors (1 KiB
// each, every one past a page of its own) took 310–340 ms to read at 53k
// chunks that way and 125–210 ms mapped (docs/BENCHMARKS-NOTEBOOK.md, "CLI time to
// first result"). A map is unsafe only over a file that shrinks while
// mapped; Quire's never does (no VACUUM, no auto_vacuum: a backup is a
// VACUUM INTO another file), and a reader never writes. 1 GiB of address
// space, not of memory: pages are read as they are touched.
const readerMmap = "&_pragma=mmap_size(1073741824)"

func openReader(ctx context.Context, path, dsn string) (*Store, error) {
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	s := &Store{db: db, path: path, readOnly: true, checkDSN: dsn}
	if err := s.checkVersion(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if err := s.checkLog(ctx); err != nil {
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

// cannotOpen: SQLite could not open the file or its WAL index (SQLITE_CANTOPEN).
func cannotOpen(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_CANTOPEN
}

// ReadOnly reports whether the store was opened with OpenReadOnly.
func (s *Store) ReadOnly() bool { return s.readOnly }

func fileHasContent(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Size() > 0
}

// checkVersion refuses a file a newer Quire wrote, and one SQLite cannot read.
func (s *Store) checkVersion(ctx context.Context) error {
	var version int
	if err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		if cannotOpen(err) || diskFull(err) {
			return fmt.Errorf("%s: %w", s.path, noSpace(err))
		}
		return fmt.Errorf("%s: %w (%w)", s.path, ErrCorrupt, err)
	}
	if version > schemaVersion {
		return fmt.Errorf("%s: %w (schema %d, this Quire knows %d)", s.path, ErrNewerDatabase, version, schemaVersion)
	}
	return nil
}

// refusesWrites is why the log takes no more writes (nil while it does): a
// check after Open found the file damaged.
func (s *Store) refusesWrites() error {
	if err := s.damaged.Load(); err != nil {
		return fmt.Errorf("no write to a damaged database: %w", *err)
	}
	return nil
}

// Backups lists the copies Open made before migrating the database at path
// (path + ".backup-v<N>"): what a user can restore when the file is damaged.
func Backups(path string) []string {
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		return nil
	}
	prefix := filepath.Base(path) + ".backup-v"
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) && e.Type().IsRegular() {
			out = append(out, filepath.Join(filepath.Dir(path), e.Name()))
		}
	}
	return out
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
	// VACUUM INTO takes an empty file: made here, private and never a link.
	f, err := os.OpenFile(dst, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("backup before migration: %w", err)
	}
	f.Close()
	if _, err := s.db.ExecContext(ctx, "VACUUM INTO ?", dst); err != nil {
		return fmt.Errorf("backup before migration to %s: %w", dst, err)
	}
	return nil
}

// Close records that this run ended cleanly (so the next Open skips the
// whole-file check) and closes the database. A store found damaged is not
// marked: the next start checks it again, in front of any write.
func (s *Store) Close() error {
	s.stmts.close()
	if !s.readOnly && s.damaged.Load() == nil {
		// A mark that cannot be written (a full disk) leaves the next
		// start to check: nothing is lost but time.
		_ = s.mark(context.Background(), true)
	}
	return s.db.Close()
}

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
