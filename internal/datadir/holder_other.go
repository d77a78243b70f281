//go:build !linux

package datadir

import (
	"errors"
	"os"
)

// errNoLockTable: this system has no table of the locks it holds.
var errNoLockTable = errors.New("this system lists no file locks")

// flockHolder has no table of locks to read here; Held asks the lock.
func flockHolder(*os.File, int) (int, bool, error) { return 0, false, errNoLockTable }
