package memory

import (
	"context"
	"database/sql"
	"fmt"

	"quire/internal/sqlschema"
)

// migrations[i] brings the memory tables from version i to i+1. The tables
// are an index over the log: dropping them loses nothing (Open rebuilds).
var migrations = []string{
	`CREATE TABLE memory_items (
		rowid      INTEGER PRIMARY KEY,
		id         TEXT NOT NULL UNIQUE,
		session    TEXT NOT NULL,
		kind       TEXT NOT NULL,
		note       TEXT NOT NULL DEFAULT '',
		text       TEXT NOT NULL,
		status     TEXT NOT NULL,
		origin     TEXT NOT NULL,
		seq        INTEGER NOT NULL,
		events     TEXT NOT NULL,
		sources    TEXT NOT NULL,
		created_ns INTEGER NOT NULL,
		updated_ns INTEGER NOT NULL
	);
	CREATE INDEX memory_items_session ON memory_items(session, kind);
	CREATE INDEX memory_items_kind ON memory_items(kind, status, updated_ns);
	CREATE VIRTUAL TABLE memory_fts USING fts5(text, content='memory_items', content_rowid='rowid',
		tokenize='porter unicode61 remove_diacritics 2');
	CREATE TRIGGER memory_items_ai AFTER INSERT ON memory_items BEGIN
		INSERT INTO memory_fts(rowid, text) VALUES (new.rowid, new.text);
	END;
	CREATE TRIGGER memory_items_ad AFTER DELETE ON memory_items BEGIN
		INSERT INTO memory_fts(memory_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
	END;
	CREATE TRIGGER memory_items_au AFTER UPDATE OF text ON memory_items BEGIN
		INSERT INTO memory_fts(memory_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
		INSERT INTO memory_fts(rowid, text) VALUES (new.rowid, new.text);
	END;
	CREATE TABLE memory_vectors (
		item     INTEGER NOT NULL,
		embedder TEXT NOT NULL,
		vec      BLOB NOT NULL,
		PRIMARY KEY (item, embedder)
	) WITHOUT ROWID;
	CREATE TABLE memory_applied (
		session TEXT PRIMARY KEY,
		seq     INTEGER NOT NULL
	) WITHOUT ROWID;`,
	// Version 2 records how the user let each item in (asked, panel, user,
	// unasked). The index is emptied so the next catch-up folds the log
	// again and fills the column from the events.
	`ALTER TABLE memory_items ADD COLUMN approved TEXT NOT NULL DEFAULT '';
	DELETE FROM memory_vectors;
	DELETE FROM memory_items;
	DELETE FROM memory_applied;`,
}

// migrate creates or upgrades the memory tables. The tables are an index:
// if some of them are gone (someone dropped them), the rest are dropped too
// and the schema starts again from version 0, so Open rebuilds from the log.
func migrate(ctx context.Context, db *sql.DB) error {
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name IN ('memory_items', 'memory_fts', 'memory_vectors', 'memory_applied')`).Scan(&n); err != nil {
		return fmt.Errorf("memory schema: %w", err)
	}
	if n < 4 {
		for _, q := range []string{`CREATE TABLE IF NOT EXISTS memory_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID`, `DROP TABLE IF EXISTS memory_fts`, `DROP TABLE IF EXISTS memory_items`,
			`DROP TABLE IF EXISTS memory_vectors`, `DROP TABLE IF EXISTS memory_applied`, `DELETE FROM memory_meta WHERE key = 'schema'`} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("memory schema: %w", err)
			}
		}
	}
	return sqlschema.Migrate(ctx, db, "memory", migrations, ErrNewerSchema)
}
