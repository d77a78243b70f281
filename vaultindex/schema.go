package vaultindex

import (
	"context"
	"database/sql"

	"quire/internal/sqlschema"
)

// migrations[i] brings the vault tables from version i to i+1. A link
// keeps its note's root so counting a note's backlinks reads the index
// alone. Lists
// (aliases, tags, headings, blocks) are stored one a line: none of them
// can hold a line break, and the FTS5 columns take the same text.
var migrations = []string{
	`CREATE TABLE vault_notes (
		id       INTEGER PRIMARY KEY,
		root     TEXT NOT NULL,
		path     TEXT NOT NULL,
		kind     TEXT NOT NULL,
		size     INTEGER NOT NULL DEFAULT 0,
		mtime_ns INTEGER NOT NULL DEFAULT 0,
		hash     TEXT NOT NULL DEFAULT '',
		title    TEXT NOT NULL DEFAULT '',
		aliases  TEXT NOT NULL DEFAULT '',
		tags     TEXT NOT NULL DEFAULT '',
		headings TEXT NOT NULL DEFAULT '',
		blocks   TEXT NOT NULL DEFAULT '',
		problem  TEXT NOT NULL DEFAULT '',
		links    BLOB,
		UNIQUE (root, path)
	);
	CREATE TABLE vault_links (
		note_id  INTEGER NOT NULL REFERENCES vault_notes(id) ON DELETE CASCADE,
		ord      INTEGER NOT NULL,
		root     TEXT NOT NULL,
		wiki     INTEGER NOT NULL,
		embed    INTEGER NOT NULL,
		target   TEXT NOT NULL,
		sub      TEXT NOT NULL,
		text     TEXT NOT NULL,
		start    INTEGER NOT NULL,
		end_     INTEGER NOT NULL,
		line     INTEGER NOT NULL,
		property TEXT NOT NULL,
		resolved TEXT NOT NULL,
		PRIMARY KEY (note_id, ord)
	) WITHOUT ROWID;
	CREATE INDEX vault_links_resolved ON vault_links(root, resolved);
	CREATE VIRTUAL TABLE vault_fts USING fts5(title, aliases, headings, body,
		tokenize='porter unicode61 remove_diacritics 2');`,
	// The notes' vectors (meaning.go): one row a chunk, a rowid table as
	// the documents' (rag schema 5: a WITHOUT ROWID one spills each vector
	// to an overflow page); vec_hash is the embedder's name and the hash
	// of the text the note's vectors were made from.
	`ALTER TABLE vault_notes ADD COLUMN vec_hash TEXT NOT NULL DEFAULT '';
	CREATE TABLE vault_vectors (
		id       INTEGER PRIMARY KEY,
		note_id  INTEGER NOT NULL REFERENCES vault_notes(id) ON DELETE CASCADE,
		embedder TEXT NOT NULL,
		hash     TEXT NOT NULL,
		line     INTEGER NOT NULL,
		vec      BLOB NOT NULL
	);
	CREATE INDEX vault_vectors_note ON vault_vectors(note_id, embedder);`,
}

// Kinds of file, as stored in vault_notes.kind.
const (
	kindNote    = "note"    // parsed, in the graph and searchable
	kindFile    = "file"    // an attachment: in the graph so links to it resolve
	kindSkipped = "skipped" // a note that could not be read; problem says why
)

func migrate(ctx context.Context, db *sql.DB) error {
	return sqlschema.Migrate(ctx, db, "vault", migrations, ErrNewerSchema)
}
