// Package rofs gives tests read-only folders and files that hold for root:
// permission bits do not stop root, so a read-only mount is the only honest
// read-only place. A test that cannot mount (not root, no CAP_SYS_ADMIN,
// not Linux) is skipped with the reason, never passed.
//
// It imports only the standard library, so any package's tests may use it
// (kernel/store's internal tests too, which test/testkit cannot serve).
package rofs

import "testing"

// Folder mounts a small tmpfs on a new temporary folder for the test and
// returns it, with a function that remounts it read-only; the mount is
// undone when the test ends.
func Folder(t testing.TB) (dir string, readOnly func()) {
	t.Helper()
	dir = t.TempDir()
	if err := mountTmpfs(dir); err != nil {
		t.Skipf("cannot mount a tmpfs to make a read-only folder (%v); run as root or with CAP_SYS_ADMIN", err)
	}
	t.Cleanup(func() { unmount(dir) })
	return dir, func() {
		t.Helper()
		if err := remountReadOnly(dir, false); err != nil {
			t.Fatalf("remount %s read-only: %v", dir, err)
		}
	}
}

// File makes the existing file at path read-only in place (a read-only
// bind mount of it over itself) while its folder stays writable, until the
// test ends.
func File(t testing.TB, path string) {
	t.Helper()
	if err := bind(path); err != nil {
		t.Skipf("cannot bind-mount %s to make it read-only (%v); run as root or with CAP_SYS_ADMIN", path, err)
	}
	t.Cleanup(func() { unmount(path) })
	if err := remountReadOnly(path, true); err != nil {
		t.Fatalf("remount %s read-only: %v", path, err)
	}
}
