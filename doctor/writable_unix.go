//go:build unix

package doctor

import "golang.org/x/sys/unix"

// writable reports whether this process may create files in the existing
// folder dir, asking the kernel (access(2)) rather than trying: a check
// must leave nothing behind.
func writable(dir string) error { return unix.Access(dir, unix.W_OK|unix.X_OK) }
