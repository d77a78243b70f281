package vaultindex

import "errors"

var (
	// ErrNewerSchema: the database was written by a newer Quire.
	ErrNewerSchema = errors.New("the notes index was written by a newer Quire")
	// ErrNotIndexed: the note is not in the index (not there, hidden or skipped).
	ErrNotIndexed = errors.New("not an indexed note")
	// ErrClosed: the index was closed.
	ErrClosed = errors.New("the notes index is closed")
)
