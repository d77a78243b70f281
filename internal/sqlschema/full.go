package sqlschema

import (
	"errors"
	"fmt"
	"strings"
	"syscall"

	"quire/kernel/event"
)

// sqliteFull is SQLite's primary result code SQLITE_FULL: "database or disk
// is full", what SQLite reports both for a full disk (ENOSPC from the OS)
// and for a file at its page limit.
const sqliteFull = 13

// NoSpace marks a write's error as event.ErrNoSpace when SQLite could not
// grow the file, as kernel/store does for the log, so every part that
// writes the shared database says "the disk is full" the same way. The
// packages that use this may not import the SQL driver, so the driver's
// error is recognised by what database/sql hands back: a Code() method
// whose primary code is SQLITE_FULL, ENOSPC itself where the OS error
// surfaces, or the driver's message when the error was flattened to text.
// The driver's message stays in the chain for the log.
func NoSpace(err error) error {
	if err == nil || errors.Is(err, event.ErrNoSpace) {
		return err
	}
	var coded interface{ Code() int }
	if (errors.As(err, &coded) && coded.Code()&0xff == sqliteFull) || errors.Is(err, syscall.ENOSPC) ||
		strings.Contains(err.Error(), "database or disk is full") {
		return fmt.Errorf("%w: %w", event.ErrNoSpace, err)
	}
	return err
}
