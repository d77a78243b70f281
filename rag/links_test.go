package rag

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// link makes path a symbolic link to target.
func link(t *testing.T, target, path string) {
	t.Helper()
	os.Remove(path)
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// TestALinkOutOfTheFolderIsListedNotIndexed: a dropped notes folder holds a
// link to a private key beside it (the bounds lane's case: ~/.ssh/id_rsa).
// The key is listed with the reason and nothing of it is indexed, so the
// model's search_docs can never find it; a link inside the folder is read
// as before. A link that pointed inside when it was indexed and now leads
// out loses what was indexed of it. Today's scan followed every link to a
// file, and the key's text was searchable.
func TestALinkOutOfTheFolderIsListedNotIndexed(t *testing.T) {
	dir := t.TempDir()
	notes, ssh := filepath.Join(dir, "notes"), filepath.Join(dir, "ssh")
	write(t, filepath.Join(ssh, "id_rsa"), "BEGIN PRIVATE KEY zebrakeymaterial\n")
	write(t, filepath.Join(notes, "garden.md"), "# Garden\n\nTomatoes need sun.\n")
	write(t, filepath.Join(notes, "sub", "beans.md"), "# Beans\n\nBeans climb poles.\n")
	link(t, filepath.Join(ssh, "id_rsa"), filepath.Join(notes, "id_rsa"))
	link(t, filepath.Join(notes, "sub", "beans.md"), filepath.Join(notes, "beans-link.md"))
	link(t, filepath.Join(notes, "garden.md"), filepath.Join(notes, "later.md"))
	db := openDB(t, t.TempDir())
	ix := openIndex(t, db, nil)

	index(t, ix, notes)
	docs := docStatus(t, ix)
	if d := docs["id_rsa"]; d.Status != Failed || d.Reason != outsideLink || d.Chunks != 0 {
		t.Fatalf("the link out of the folder: %+v", d)
	}
	for _, name := range []string{"garden.md", "beans.md", "beans-link.md", "later.md"} {
		if d := docs[name]; d.Status != Done {
			t.Errorf("%s inside the folder: %+v", name, d)
		}
	}
	keyFound(t, ix)
	if n := count(t, db, `SELECT count(*) FROM rag_chunks WHERE text LIKE '%zebrakeymaterial%'`); n != 0 {
		t.Fatalf("%d chunks hold the key's text", n)
	}

	// later.md was a link inside; now it leads to the key.
	link(t, filepath.Join(ssh, "id_rsa"), filepath.Join(notes, "later.md"))
	index(t, ix, notes)
	if d := docStatus(t, ix)["later.md"]; d.Status != Failed || d.Reason != outsideLink || d.Chunks != 0 {
		t.Fatalf("a link retargeted out of the folder: %+v", d)
	}
	keyFound(t, ix)
	// And back inside: it is read again.
	link(t, filepath.Join(notes, "sub", "beans.md"), filepath.Join(notes, "later.md"))
	index(t, ix, notes)
	if d := docStatus(t, ix)["later.md"]; d.Status != Done || d.Chunks == 0 {
		t.Fatalf("a link retargeted back inside: %+v", d)
	}
}

// keyFound fails the test when a search for the key's words finds it
// (the offline embedder's vectors give every search some hits: what
// matters is that none is the key).
func keyFound(t *testing.T, ix *Index) {
	t.Helper()
	for _, h := range search(t, ix, "zebrakeymaterial PRIVATE KEY", 10) {
		if strings.Contains(h.Snippet, "zebrakeymaterial") {
			t.Fatalf("the key's text is searchable: %+v", h)
		}
	}
}

// TestOpenInRootReadsOnlyInsideTheRoot: what the indexer and the viewer
// open goes through the root — a link out, or a folder on the way that is
// a link out, is ErrOutsideRoot (so a link swapped in after the walk is
// refused when read); a link inside is followed.
func TestOpenInRootReadsOnlyInsideTheRoot(t *testing.T) {
	dir := t.TempDir()
	root, outside := filepath.Join(dir, "notes"), filepath.Join(dir, "outside")
	write(t, filepath.Join(outside, "secret.md"), "secret\n")
	write(t, filepath.Join(root, "real.md"), "real\n")
	link(t, filepath.Join(outside, "secret.md"), filepath.Join(root, "out.md"))
	link(t, filepath.Join(root, "real.md"), filepath.Join(root, "in.md"))
	link(t, outside, filepath.Join(root, "folder"))
	for _, c := range []struct {
		path string
		want string // "" for ErrOutsideRoot
	}{
		{filepath.Join(root, "real.md"), "real\n"},
		{filepath.Join(root, "in.md"), "real\n"},
		{filepath.Join(root, "out.md"), ""},
		{filepath.Join(root, "folder", "secret.md"), ""},
		{filepath.Join(outside, "secret.md"), ""},
	} {
		f, err := OpenInRoot(root, c.path)
		if c.want == "" {
			if !errors.Is(err, ErrOutsideRoot) {
				t.Errorf("OpenInRoot(%s): %v, want ErrOutsideRoot", c.path, err)
			}
			if f != nil {
				f.Close()
			}
			continue
		}
		if err != nil {
			t.Errorf("OpenInRoot(%s): %v", c.path, err)
			continue
		}
		b, _ := io.ReadAll(f)
		f.Close()
		if string(b) != c.want {
			t.Errorf("OpenInRoot(%s) read %q", c.path, b)
		}
	}
}
