// Package smalldisk gives tests a real filesystem that fills: a small tmpfs
// mounted for the test, and a ballast file that takes every byte left, so
// SQLite meets ENOSPC as it does on a full laptop disk. A test that cannot
// mount (not root, no CAP_SYS_ADMIN, not Linux) is skipped with the reason,
// never passed.
//
// It imports only the standard library, so any package's tests may use it.
package smalldisk

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Mount mounts a tmpfs of size ("4m") on a new folder for the test and
// returns the folder; the mount is undone when the test ends.
func Mount(t testing.TB, size string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "disk")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := mount(dir, size); err != nil {
		t.Skipf("skipped: cannot mount a small tmpfs to fill (%v); this test needs root or CAP_SYS_ADMIN", err)
	}
	t.Cleanup(func() {
		if err := unmount(dir); err != nil {
			t.Errorf("unmount the test's tmpfs: %v", err)
		}
	})
	return dir
}

// Fill writes a ballast file at path until the disk has no room left, and
// returns a function that removes it (room again).
func Fill(t testing.TB, path string) (free func()) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, size := range []int{1 << 20, 4096, 512} {
		buf := make([]byte, size)
		for {
			if _, err := f.Write(buf); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatalf("fill the disk: %v", err)
				}
				break
			}
		}
	}
	return func() {
		t.Helper()
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
	}
}
