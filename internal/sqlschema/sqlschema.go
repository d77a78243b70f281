// Package sqlschema versions the tables a domain package keeps in the shared
// database (rag, memory): each owns a <name>_meta table whose 'schema' row is
// its version, and a list of migrations applied in one transaction.
//
// It also classifies a write the disk had no room for (NoSpace) as the
// log's event.ErrNoSpace. It uses only database/sql and kernel/event's
// sentinels; it never imports the SQL driver.
package sqlschema

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Migrate brings the tables of name up to len(migrations): migrations[i]
// goes from version i to i+1, all in one transaction. A version newer than
// this code knows is refused with newer (wrapped) and nothing is written.
func Migrate(ctx context.Context, db *sql.DB, name string, migrations []string, newer error) (err error) {
	defer func() { err = NoSpace(err) }() // a full disk says so, here as on every write
	want := len(migrations)
	meta := name + "_meta"
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s schema: %w", name, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+meta+` (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID`); err != nil {
		return fmt.Errorf("%s schema: %w", name, err)
	}
	version := 0
	var v string
	switch err := tx.QueryRowContext(ctx, `SELECT value FROM `+meta+` WHERE key = 'schema'`).Scan(&v); {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return fmt.Errorf("%s schema: %w", name, err)
	default:
		if version, err = strconv.Atoi(v); err != nil {
			return fmt.Errorf("%s schema: unreadable version %q in %s", name, v, meta)
		}
	}
	if version > want {
		return fmt.Errorf("%w (%s schema %d, this Quire knows %d); update Quire, nothing was changed", newer, name, version, want)
	}
	if version == want {
		return nil
	}
	for ; version < want; version++ {
		if _, err := tx.ExecContext(ctx, migrations[version]); err != nil {
			return fmt.Errorf("%s schema: migrate to %d: %w", name, version+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+meta+`(key, value) VALUES ('schema', ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, strconv.Itoa(want)); err != nil {
		return fmt.Errorf("%s schema: %w", name, err)
	}
	return tx.Commit()
}

// ErrOlder: Check found tables older than this code, which a reader may
// not migrate.
var ErrOlder = errors.New("the tables need an upgrade; start Quire once to make it")

// Check is Migrate for a reader: it writes nothing, and reports tables of
// name at a version other than len(migrations) — missing (none wrapped),
// newer (newer wrapped) or older (ErrOlder wrapped).
func Check(ctx context.Context, db *sql.DB, name string, migrations []string, newer, none error) error {
	want := len(migrations)
	var v string
	err := db.QueryRowContext(ctx, `SELECT value FROM `+name+`_meta WHERE key = 'schema'`).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("%s schema: %w", name, none)
	case err != nil && strings.Contains(err.Error(), "no such table"):
		return fmt.Errorf("%s schema: %w", name, none)
	case err != nil:
		return fmt.Errorf("%s schema: %w", name, err)
	}
	version, err := strconv.Atoi(v)
	if err != nil {
		return fmt.Errorf("%s schema: unreadable version %q in %s_meta", name, v, name)
	}
	switch {
	case version > want:
		return fmt.Errorf("%w (%s schema %d, this Quire knows %d); update Quire", newer, name, version, want)
	case version < want:
		return fmt.Errorf("%s schema %d, this Quire writes %d: %w", name, version, want, ErrOlder)
	}
	return nil
}
