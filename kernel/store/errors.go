package store

import (
	"errors"

	"quire/kernel/event"
)

var (
	// ErrNewerDatabase: the file was written by a newer Quire; opening it
	// with this one could lose data, so it is left untouched.
	ErrNewerDatabase = errors.New("the database was written by a newer version of Quire")
	// ErrCorrupt: SQLite's integrity check failed or the file is not a
	// database; it is never written (Open refuses it).
	ErrCorrupt = errors.New("the database file is damaged")
	// ErrReadOnly: the database file or its folder cannot be written (a
	// read-only mount, or permissions), so an owner cannot open it; a
	// reader still can.
	ErrReadOnly = errors.New("the database is read-only")
	// ErrNoDatabase: OpenReadOnly found no database file (nothing was
	// ever written there).
	ErrNoDatabase = errors.New("there is no database yet")
	// ErrOlderDatabase: OpenReadOnly found a database that needs a
	// migration, which a reader may not make.
	ErrOlderDatabase = errors.New("the database was written by an older version of Quire")
	// ErrLink: the database, its WAL or its index is a symbolic link.
	// Quire never writes through one: a link planted in the data folder
	// (a synced or restored folder) would have it overwrite whatever the
	// link names.
	ErrLink = errors.New("the database file is a symbolic link")
	// ErrCheckStopped: a check of the file was stopped before it ended
	// (its context ended): it says nothing of the file.
	ErrCheckStopped = errors.New("the database check was stopped before it finished")
	// ErrEmptyAppend: Append was called with nothing to append.
	ErrEmptyAppend = errors.New("nothing to append")
)

// The errors of the log port, defined with it in kernel/event.
var (
	ErrNoSession     = event.ErrNoSession
	ErrSessionExists = event.ErrSessionExists
	ErrBadBranch     = event.ErrBadBranch
	ErrHasBranches   = event.ErrHasBranches
	ErrKeyReused     = event.ErrKeyReused
)
