//go:build unix

package datadir

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// noFollow makes an open refuse a symbolic link (ELOOP) rather than
// follow it.
const noFollow = unix.O_NOFOLLOW

// tryLock takes an exclusive flock(2) on f without waiting; held is false
// when another open file holds it. The lock belongs to the open file, so
// it goes when the file is closed or the process dies.
func tryLock(f *os.File) (held bool, err error) {
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EWOULDBLOCK):
			return false, nil
		}
		return false, err
	}
}

// ownedByMe says whether the file st describes belongs to this process's
// user.
func ownedByMe(st os.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(sys.Uid) == os.Getuid()
}
