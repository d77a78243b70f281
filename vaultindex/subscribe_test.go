package vaultindex_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"quire/vaultindex"
	"quire/watch"
)

// updateNaming reads updates until one names rel, and returns it; the
// test's deadline bounds it.
func updateNaming(t testing.TB, updates <-chan vaultindex.Update, rel string) vaultindex.Update {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case u := <-updates:
			if u.Err != nil {
				t.Fatal(u.Err)
			}
			if slices.Contains(u.Paths, rel) {
				return u
			}
		case <-deadline:
			t.Fatalf("%s was never indexed", rel)
		}
	}
}

// TestEverySubscriberIsToldWhatLanded: two WithOnUpdate and one Subscribe
// are each told every write the real watch commits, with the files new to
// the index (made, or moved in) as Added and a note saved again not among
// them; a stopped subscription is told nothing more.
func TestEverySubscriberIsToldWhatLanded(t *testing.T) {
	t.Parallel()
	dir := vaultDir(t, map[string]string{"old.md": "# Old\n", "elsewhere/moved.md": "# Moved\n", "inbox/first.md": "# First\n"})
	first, second, sub := make(chan vaultindex.Update, 16), make(chan vaultindex.Update, 16), make(chan vaultindex.Update, 16)
	x := open(t, openDB(t), dir,
		vaultindex.WithOnUpdate(func(u vaultindex.Update) { first <- u }),
		vaultindex.WithOnUpdate(func(u vaultindex.Update) { second <- u }),
		vaultindex.WithWatch(watch.WithDebounce(10*time.Millisecond)))
	stop := x.Subscribe(func(u vaultindex.Update) { sub <- u })
	if watchErr, syncErr := x.Run(); watchErr != nil || syncErr != nil {
		t.Fatal(watchErr, syncErr)
	}
	for _, c := range []chan vaultindex.Update{first, second, sub} {
		if u := <-c; !u.Rescan || !slices.Equal(slices.Sorted(slices.Values(u.Added)), []string{"elsewhere/moved.md", "inbox/first.md", "old.md"}) {
			t.Fatalf("the first scan: %+v", u)
		}
	}

	steps := []struct {
		name  string
		do    func()
		named string
		added []string
	}{
		{"a note made", func() { write(t, dir, "inbox/new.md", "# New\n") }, "inbox/new.md", []string{"inbox/new.md"}},
		{"a note saved again", func() { write(t, dir, "old.md", "# Old\n\nmore\n") }, "old.md", nil},
		{"a note moved in", func() {
			if err := os.Rename(filepath.Join(dir, "elsewhere", "moved.md"), filepath.Join(dir, "inbox", "moved.md")); err != nil {
				t.Fatal(err)
			}
		}, "inbox/moved.md", []string{"inbox/moved.md"}},
	}
	for _, s := range steps {
		s.do()
		for i, c := range []chan vaultindex.Update{first, second, sub} {
			if u := updateNaming(t, c, s.named); !slices.Equal(u.Added, s.added) {
				t.Errorf("%s: subscriber %d was told %v as added, want %v", s.name, i, u.Added, s.added)
			}
		}
	}

	stop()
	write(t, dir, "inbox/after.md", "# After\n")
	updateNaming(t, second, "inbox/after.md")
	// Writes are told one at a time: once the next is told, the last has
	// been told to everyone it was going to be.
	write(t, dir, "inbox/later.md", "# Later\n")
	updateNaming(t, second, "inbox/later.md")
	for len(sub) > 0 {
		if u := <-sub; slices.Contains(u.Paths, "inbox/after.md") || slices.Contains(u.Paths, "inbox/later.md") {
			t.Fatalf("a stopped subscription was told %+v", u)
		}
	}
}
