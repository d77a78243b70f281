package queue

import (
	"context"
	"database/sql"

	"quire/internal/sqlschema"
)

// migrations[i] brings the queue tables from version i to i+1. Unlike
// memory's, these tables are the truth, not an index over the log: a batch,
// its tasks and the changes it made exist only here (each worker's session
// is in the log, and the task names it).
var migrations = []string{
	`CREATE TABLE queue_batches (
		id         TEXT PRIMARY KEY,
		folder     TEXT NOT NULL,
		title      TEXT NOT NULL,
		state      TEXT NOT NULL,
		workers    INTEGER NOT NULL,
		applied    INTEGER NOT NULL DEFAULT 0,
		error      TEXT NOT NULL DEFAULT '',
		created_ns INTEGER NOT NULL,
		updated_ns INTEGER NOT NULL
	) WITHOUT ROWID;
	CREATE TABLE queue_tasks (
		rowid      INTEGER PRIMARY KEY,
		id         TEXT NOT NULL UNIQUE,
		batch      TEXT NOT NULL REFERENCES queue_batches(id),
		n          INTEGER NOT NULL,
		kind       TEXT NOT NULL,
		input      TEXT NOT NULL,
		state      TEXT NOT NULL,
		owner      TEXT NOT NULL DEFAULT '',
		lease_ns   INTEGER NOT NULL DEFAULT 0,
		attempts   INTEGER NOT NULL DEFAULT 0,
		session    TEXT NOT NULL DEFAULT '',
		result     TEXT NOT NULL DEFAULT '',
		error      TEXT NOT NULL DEFAULT '',
		done_count INTEGER NOT NULL DEFAULT 0,
		updated_ns INTEGER NOT NULL
	);
	CREATE INDEX queue_tasks_batch ON queue_tasks(batch, state, n);
	CREATE INDEX queue_tasks_state ON queue_tasks(state, lease_ns);
	CREATE TABLE queue_changes (
		batch  TEXT NOT NULL,
		n      INTEGER NOT NULL,
		id     TEXT NOT NULL,
		undo   INTEGER NOT NULL,
		change TEXT NOT NULL,
		PRIMARY KEY (batch, n)
	) WITHOUT ROWID;
	CREATE INDEX queue_changes_id ON queue_changes(id);`,
}

func migrate(ctx context.Context, db *sql.DB) error {
	return sqlschema.Migrate(ctx, db, "queue", migrations, ErrNewerSchema)
}
