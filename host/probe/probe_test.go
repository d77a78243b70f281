package probe

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "view.json")
	if err := Write(path, []byte(`{"messages":[]}`)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != `{"messages":[]}` {
		t.Fatalf("file %q, %v", b, err)
	}
	if err := Write(path, []byte(`{oops`)); !errors.Is(err, ErrNotJSON) {
		t.Fatalf("bad JSON: %v", err)
	}
	if err := Write("", []byte(`{}`)); err != nil {
		t.Fatalf("no path must be a no-op: %v", err)
	}
}
