// Package probe lets end-to-end tests see what the frontend rendered: the
// frontend reports a snapshot of its view and, only when a test asked for it
// with QUIRE_TEST_PROBE, the host writes it to that file.
//
// It owns that file's format (the snapshot JSON, written atomically). It must
// never import the kernel, Wails or a database driver.
package probe

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
)

// ErrNotJSON: the frontend sent something that is not a JSON value.
var ErrNotJSON = errors.New("probe snapshot is not JSON")

// Write replaces the file at path with snapshot, atomically so a reader
// never sees half a file. An empty path means no test is watching.
func Write(path string, snapshot json.RawMessage) error {
	if path == "" {
		return nil
	}
	if !json.Valid(snapshot) {
		return ErrNotJSON
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".probe-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(snapshot); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
