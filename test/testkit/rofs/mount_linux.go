package rofs

import "syscall"

func mountTmpfs(dir string) error { return syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=16m") }

func bind(path string) error { return syscall.Mount(path, path, "", syscall.MS_BIND, "") }

func remountReadOnly(path string, bound bool) error {
	flags := uintptr(syscall.MS_REMOUNT | syscall.MS_RDONLY)
	if bound {
		flags |= syscall.MS_BIND
	}
	return syscall.Mount("", path, "", flags, "")
}

// unmount detaches lazily, so a file a test left open cannot keep it.
func unmount(path string) { syscall.Unmount(path, syscall.MNT_DETACH) }
