//go:build !unix

package doctor

import "os"

// writable reports whether this process may create files in the existing
// folder dir. With no access(2) to ask, it creates and removes a file.
func writable(dir string) error {
	f, err := os.CreateTemp(dir, ".doctor-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// writableExisting reports whether this process may write the existing
// file path: opening it for writing changes nothing.
func writableExisting(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	return f.Close()
}

// freeSpace is unknown here: the check says nothing of the room left.
func freeSpace(string) (uint64, bool) { return 0, false }
