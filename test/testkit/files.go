package testkit

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// WriteOld writes a file (making its folders) dated an hour ago: a document
// that was on disk well before it is indexed, so a later write within the
// same second still changes its modification time.
func WriteOld(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
}
