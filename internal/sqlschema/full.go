package sqlschema

import (
	"errors"
	"fmt"
	"strings"
	"syscall"

	"quire/kernel/event"
)

// SQLite's result codes for a disk with no room: SQLITE_FULL ("database or
// disk is full", a full disk or a file at its page limit) and
// SQLITE_IOERR_SHMSIZE (the WAL index could not be given its pages), as
// kernel/store classifies them for the log.
const (
	sqliteFull         = 13
	sqliteIOErrShmSize = 10 | 19<<8
)

// NoSpace marks a write's error as event.ErrNoSpace when SQLite could not
// grow the file, as kernel/store does for the log, so every part that
// writes the shared database says "the disk is full" the same way. The
// packages that use this may not import the SQL driver, so the driver's
// error is recognised by what database/sql hands back: a Code() method
// that gives one of those codes, ENOSPC itself where the OS error
// surfaces, or the driver's message when the error was flattened to text.
// The driver's message stays in the chain for the log.
func NoSpace(err error) error {
	if err == nil || errors.Is(err, event.ErrNoSpace) {
		return err
	}
	var coded interface{ Code() int }
	if (errors.As(err, &coded) && (coded.Code()&0xff == sqliteFull || coded.Code() == sqliteIOErrShmSize)) || errors.Is(err, syscall.ENOSPC) ||
		strings.Contains(err.Error(), "database or disk is full") {
		return fmt.Errorf("%w: %w", event.ErrNoSpace, err)
	}
	return err
}
