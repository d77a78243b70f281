//go:build windows

package datadir

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// noFollow is nothing on Windows, where making a symbolic link takes an
// administrator (or developer mode).
const noFollow = 0

// tryLock takes an exclusive lock on one byte far past the record, so
// that the record stays readable (Windows locks are mandatory), without
// waiting; held is false when another process holds it.
func tryLock(f *os.File) (held bool, err error) {
	ol := &windows.Overlapped{OffsetHigh: 1}
	err = windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, windows.ERROR_LOCK_VIOLATION):
		return false, nil
	}
	return false, err
}

// ownedByMe: Windows keeps no Unix owner; the folder's ACL is the user
// profile's.
func ownedByMe(os.FileInfo) bool { return true }
