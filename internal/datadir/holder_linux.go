package datadir

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// errNoLockTable: this system has no table of the locks it holds.
var errNoLockTable = errors.New("this system lists no file locks")

// flockHolder finds who holds f's file: the process with an exclusive
// flock on it in the kernel's table of locks (/proc/locks), which it reads
// without taking any lock itself — so asking never makes an owner that
// starts at that moment see the folder as taken. A lock is f's when its
// inode is f's and either its device is f's or its process is recorded,
// the one the record names (an overlay reports the device of a layer).
func flockHolder(f *os.File, recorded int) (pid int, held bool, err error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return 0, false, err
	}
	table, err := os.ReadFile("/proc/locks")
	if err != nil {
		return 0, false, fmt.Errorf("%w: %w", errNoLockTable, err)
	}
	dev := fmt.Sprintf("%02x:%02x:", unix.Major(st.Dev), unix.Minor(st.Dev))
	for line := range strings.SplitSeq(string(table), "\n") {
		// "3: FLOCK  ADVISORY  WRITE 8633 fe:00:10552285 0 EOF"; a process
		// waiting for a lock has "->" before FLOCK and holds nothing.
		fs := strings.Fields(line)
		if len(fs) < 6 || fs[1] != "FLOCK" || fs[3] != "WRITE" {
			continue
		}
		p, err := strconv.Atoi(fs[4])
		if err != nil {
			continue
		}
		at := strings.Split(fs[5], ":")
		if len(at) != 3 || at[2] != strconv.FormatUint(st.Ino, 10) {
			continue
		}
		if strings.HasPrefix(fs[5], dev) || p == recorded {
			return p, true, nil
		}
	}
	return 0, false, nil
}
