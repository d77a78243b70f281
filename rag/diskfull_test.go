package rag

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"quire/kernel/event"
	"quire/test/testkit/smalldisk"
)

// TestAFullDiskIsNoSpace: the database is on a small filesystem a ballast
// has filled, and a pass has documents to store. The pass fails as
// event.ErrNoSpace — what every host turns into "the disk is full" and what
// to do — not as the driver's "database or disk is full (13)" alone; and
// with the room back, the next pass indexes them.
func TestAFullDiskIsNoSpace(t *testing.T) {
	disk := smalldisk.Mount(t, "4m")
	ix := openIndex(t, openDB(t, disk), nil)
	docs := filepath.Join(t.TempDir(), "docs")
	for i := range 20 {
		write(t, filepath.Join(docs, fmt.Sprintf("d%d.md", i)), fmt.Sprintf("# doc %d\n\n%s\n", i, strings.Repeat(fmt.Sprintf("walrus%d kelp tide reef ", i), 200)))
	}
	free := smalldisk.Fill(t, filepath.Join(disk, "ballast"))

	err := ix.Index(t.Context(), []string{docs}, nil)
	if !errors.Is(err, event.ErrNoSpace) {
		t.Fatalf("a pass on a full disk: %v, want event.ErrNoSpace", err)
	}

	free()
	index(t, ix, docs)
	if n := count(t, ix.db, `SELECT COUNT(*) FROM rag_files WHERE status = 'done'`); n != 20 {
		t.Fatalf("%d documents indexed once the room was back, want 20", n)
	}
}
