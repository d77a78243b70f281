//go:build unix

package doctor

import "golang.org/x/sys/unix"

// writable reports whether this process may create files in the existing
// folder dir, asking the kernel (access(2)) rather than trying: a check
// must leave nothing behind.
func writable(dir string) error { return unix.Access(dir, unix.W_OK|unix.X_OK) }

// writableExisting reports whether this process may write the existing
// file path (access(2): a read-only mount answers EROFS even to root).
func writableExisting(path string) error { return unix.Access(path, unix.W_OK) }

// freeSpace is the room an ordinary user may still fill on the disk that
// holds dir (statfs(2), the blocks available to non-root: root's reserve
// is no room for a user's Quire); false when the kernel does not say.
func freeSpace(dir string) (uint64, bool) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return st.Bavail * uint64(st.Bsize), true
}
