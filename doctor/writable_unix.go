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
