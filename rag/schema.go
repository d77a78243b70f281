package rag

import (
	"context"
	"database/sql"
	"errors"
	"strconv"

	"quire/internal/sqlschema"
)

// migrations[i] brings the rag tables from version i to i+1.
var migrations = []string{
	`CREATE TABLE rag_roots (
		path        TEXT PRIMARY KEY,
		excluded    INTEGER NOT NULL DEFAULT 0,
		fingerprint TEXT NOT NULL DEFAULT ''
	) WITHOUT ROWID;
	CREATE TABLE rag_files (
		id         INTEGER PRIMARY KEY,
		path       TEXT NOT NULL UNIQUE,
		root       TEXT NOT NULL,
		format     TEXT NOT NULL DEFAULT '',
		size       INTEGER NOT NULL DEFAULT 0,
		mtime_ns   INTEGER NOT NULL DEFAULT 0,
		hash       TEXT NOT NULL DEFAULT '',
		status     TEXT NOT NULL,
		reason     TEXT NOT NULL DEFAULT '',
		chunks     INTEGER NOT NULL DEFAULT 0,
		updated_ns INTEGER NOT NULL DEFAULT 0
	);
	CREATE INDEX rag_files_root ON rag_files(root, status);
	CREATE TABLE rag_chunks (
		id         INTEGER PRIMARY KEY,
		file_id    INTEGER NOT NULL REFERENCES rag_files(id),
		ord        INTEGER NOT NULL,
		heading    TEXT NOT NULL,
		start_line INTEGER NOT NULL,
		end_line   INTEGER NOT NULL,
		text       TEXT NOT NULL,
		UNIQUE (file_id, ord)
	);
	CREATE VIRTUAL TABLE rag_fts USING fts5(heading, text, content='rag_chunks', content_rowid='id',
		tokenize='porter unicode61 remove_diacritics 2');
	CREATE TRIGGER rag_chunks_ai AFTER INSERT ON rag_chunks BEGIN
		INSERT INTO rag_fts(rowid, heading, text) VALUES (new.id, new.heading, new.text);
	END;
	CREATE TRIGGER rag_chunks_ad AFTER DELETE ON rag_chunks BEGIN
		INSERT INTO rag_fts(rag_fts, rowid, heading, text) VALUES ('delete', old.id, old.heading, old.text);
	END;
	CREATE TABLE rag_vectors (
		chunk_id INTEGER NOT NULL REFERENCES rag_chunks(id) ON DELETE CASCADE,
		embedder TEXT NOT NULL,
		vec      BLOB NOT NULL,
		PRIMARY KEY (chunk_id, embedder)
	) WITHOUT ROWID;
	CREATE TABLE rag_stats (
		name    TEXT PRIMARY KEY,
		version INTEGER NOT NULL,
		data    BLOB NOT NULL
	) WITHOUT ROWID;`,
	// 2: which embedder made the vectors stored under each name, and their
	// length, and which one searches use: a switch of embedder keeps the
	// old one active until the new one's vectors are complete (Reembed).
	`CREATE TABLE rag_embedders (
		name   TEXT PRIMARY KEY,
		dims   INTEGER NOT NULL DEFAULT 0,
		active INTEGER NOT NULL DEFAULT 0
	) WITHOUT ROWID;
	INSERT INTO rag_embedders(name, dims) SELECT embedder, max(length(vec)) / 4 FROM rag_vectors GROUP BY embedder;`,
	// 3: the files by status, so an Open's fix-ups (files left embedded,
	// skipped or refused) read the few in that state, not every file
	// (issue 30: a start's cost grew with the index).
	`CREATE INDEX rag_files_status ON rag_files(status);`,
	// 4: the text index takes a transaction's new passages in one
	// statement (writer.flushText) instead of a trigger a row: FTS5 wrote
	// a segment, and merged, at every statement that followed (issue 30:
	// 30 % of an index pass). Deletes still go through rag_chunks_ad.
	`DROP TRIGGER rag_chunks_ai;`,
	// 5: the vectors in a rowid table. In the WITHOUT ROWID one each 1 KiB
	// vector spilled to an overflow page of its own (a page and a half a
	// vector: 29.7 of a 53 MB database, issue 30); a rowid table keeps it
	// in its leaf. One transaction: a start that dies during it starts
	// again from the old table.
	`CREATE TABLE rag_vectors_new (
		chunk_id INTEGER NOT NULL REFERENCES rag_chunks(id) ON DELETE CASCADE,
		embedder TEXT NOT NULL,
		vec      BLOB NOT NULL,
		PRIMARY KEY (chunk_id, embedder)
	);
	INSERT INTO rag_vectors_new(chunk_id, embedder, vec) SELECT chunk_id, embedder, vec FROM rag_vectors ORDER BY chunk_id, embedder;
	DROP TABLE rag_vectors;
	ALTER TABLE rag_vectors_new RENAME TO rag_vectors;`,
	// 6: the vectors a block of 32 chunk ids a row (vecblocks.go): in a
	// row a vector, three filled a 4 KiB page and the rest of it was
	// lost (1.38× the raw bytes, issue 30). The key leads with the
	// block, so a file's delete finds every embedder's row of a block
	// in one look. In place and in the one transaction of the upgrade:
	// a start killed during it finds the old table whole and moves it
	// again. group_concat keeps a blob's bytes; its ORDER BY puts the
	// vectors in the mask's order.
	`CREATE TABLE rag_vector_blocks (
		block    INTEGER NOT NULL,
		embedder TEXT NOT NULL,
		mask     INTEGER NOT NULL,
		vecs     BLOB NOT NULL,
		PRIMARY KEY (block, embedder)
	) WITHOUT ROWID;
	INSERT INTO rag_vector_blocks(block, embedder, mask, vecs)
		SELECT chunk_id >> 5, embedder, sum(1 << (chunk_id & 31)), CAST(group_concat(vec, x'' ORDER BY chunk_id) AS BLOB)
		FROM rag_vectors GROUP BY chunk_id >> 5, embedder;
	DROP TABLE rag_vectors;`,
}

// migrate creates or upgrades the rag tables in one transaction. A newer
// version is refused and nothing is written.
// checkSchema is a reader's migrate: the tables must be there at this
// code's version, and nothing is written.
func checkSchema(ctx context.Context, db *sql.DB) error {
	return sqlschema.Check(ctx, db, "rag", migrations, ErrNewerSchema, ErrNoIndex)
}

func migrate(ctx context.Context, db *sql.DB) error {
	return sqlschema.Migrate(ctx, db, "rag", migrations, ErrNewerSchema)
}

// Job states, as stored in rag_files.status.
const (
	Queued   = "queued"   // found new or changed; waiting to be parsed
	Parsed   = "parsed"   // chunks stored and searchable by text; vectors pending
	Embedded = "embedded" // vectors stored; not yet in the in-memory vector index
	Done     = "done"     // fully searchable
	Failed   = "failed"   // see the reason; Retry or a change to the file tries again
	// Skipped: a file Quire does not read (its name says so: .yml, .json,
	// .docx), listed with the reason and never counted as failed; neither
	// Retry nor a change of its content reads it, only a new name.
	Skipped = "skipped"
)

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// bumpCorpus marks a change of the chunks or vectors: statistics saved
// under an older corpus version are stale.
func bumpCorpus(ctx context.Context, tx execer) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO rag_meta(key, value) VALUES ('corpus', '1')
		ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`)
	return err
}

func corpusVersion(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int64, error) {
	var v sql.NullString
	err := q.QueryRowContext(ctx, `SELECT value FROM rag_meta WHERE key = 'corpus'`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(v.String, 10, 64)
}
