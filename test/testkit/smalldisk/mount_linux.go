package smalldisk

import "syscall"

func mount(dir, size string) error { return syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size) }

// unmount detaches lazily, so a file a test left open cannot keep it.
func unmount(dir string) error { return syscall.Unmount(dir, syscall.MNT_DETACH) }
