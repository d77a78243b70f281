package watch_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"quire/watch"
)

// collector gathers batches until the test finds what it waits for.
type collector struct {
	t  *testing.T
	ch chan watch.Batch
}

func start(t *testing.T, root string, opts ...watch.Option) (*watch.Watcher, *collector) {
	t.Helper()
	c := &collector{t: t, ch: make(chan watch.Batch, 64)}
	w, err := watch.Start(root, func(b watch.Batch) { c.ch <- b }, append([]watch.Option{watch.WithDebounce(10 * time.Millisecond)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, c
}

// until reads batches until every path in want was delivered, and returns
// every path seen on the way; the test's deadline bounds the wait.
func (c *collector) until(want ...string) (seen []string, rescans []string) {
	c.t.Helper()
	missing := slices.Clone(want)
	deadline := time.After(10 * time.Second)
	for len(missing) > 0 {
		select {
		case b := <-c.ch:
			seen = append(seen, b.Paths...)
			if b.Rescan {
				rescans = append(rescans, b.Reason)
			}
			missing = slices.DeleteFunc(missing, func(p string) bool { return slices.Contains(b.Paths, p) })
		case <-deadline:
			c.t.Fatalf("never delivered: %v (seen %v)", missing, seen)
		}
	}
	return seen, rescans
}

func write(t *testing.T, p, text string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func root(t *testing.T) string {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestWatchReportsWritesInNestedAndNewFolders(t *testing.T) {
	t.Parallel()
	dir := root(t)
	write(t, filepath.Join(dir, "a", "b", "old.md"), "old")
	_, c := start(t, dir)
	cases := []struct{ name, path string }{
		{"top", filepath.Join(dir, "top.md")},
		{"nested existing folder", filepath.Join(dir, "a", "b", "old.md")},
		{"new folder made after the start", filepath.Join(dir, "new", "deeper", "n.md")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			write(t, tc.path, "changed "+tc.name)
			c.until(tc.path)
		})
	}
	// and a file in a folder made under a new folder is watched live
	later := write(t, filepath.Join(dir, "new", "deeper", "later.md"), "x")
	c.until(later)
	if err := os.Remove(later); err != nil {
		t.Fatal(err)
	}
	c.until(later)
}

func TestWatchSkipsHiddenFoldersAndSymlinks(t *testing.T) {
	t.Parallel()
	dir, outside := root(t), root(t)
	write(t, filepath.Join(dir, ".obsidian", "app.json"), "{}")
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	_, c := start(t, dir)
	write(t, filepath.Join(dir, ".obsidian", "workspace.json"), "{}")
	write(t, filepath.Join(dir, ".trash", "gone.md"), "x")
	write(t, filepath.Join(dir, ".git", "objects", "ab"), "x")
	write(t, filepath.Join(dir, ".hidden.md"), "x")
	write(t, filepath.Join(outside, "out.md"), "x")
	marker := write(t, filepath.Join(dir, "marker.md"), "x")
	seen, _ := c.until(marker)
	for _, p := range seen {
		if rel, _ := filepath.Rel(dir, p); watch.Hidden(rel) || strings.HasPrefix(p, outside) || strings.Contains(p, "out.md") {
			t.Errorf("reported %s", p)
		}
	}
}

func TestWatchOverItsFolderBoundAsksForRescans(t *testing.T) {
	t.Parallel()
	dir := root(t)
	for _, f := range []string{"a/x.md", "b/y.md", "c/z.md"} {
		write(t, filepath.Join(dir, f), "x")
	}
	ch := make(chan watch.Batch, 8)
	w, err := watch.Start(dir, func(b watch.Batch) { ch <- b }, watch.WithMaxFolders(2))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	select {
	case b := <-ch:
		if !b.Rescan || !strings.Contains(b.Reason, "more than 2 folders") {
			t.Fatalf("first batch %+v, want a rescan that says the bound", b)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no rescan batch")
	}
}

// TestWatchDebouncesUntilTheTimerFires holds the debounce timer: changes
// wait, merged, until it fires, then come as one batch in order.
func TestWatchDebouncesUntilTheTimerFires(t *testing.T) {
	t.Parallel()
	dir := root(t)
	fire := make(chan time.Time)
	armed := make(chan struct{}, 1024)
	_, c := start(t, dir, watch.WithTimer(func(time.Duration) <-chan time.Time {
		armed <- struct{}{}
		return fire
	}))
	a := write(t, filepath.Join(dir, "a.md"), "a")
	select {
	case <-armed:
	case <-time.After(10 * time.Second):
		t.Fatal("the change was never seen")
	}
	b := write(t, filepath.Join(dir, "b.md"), "b")
	select {
	case got := <-c.ch:
		t.Fatalf("delivered %v before the debounce fired", got)
	default:
	}
	deadline := time.After(10 * time.Second)
	var got watch.Batch
	for {
		select {
		case fire <- time.Time{}:
			continue
		case got = <-c.ch:
		case <-deadline:
			t.Fatal("no batch after the timer fired")
		}
		break
	}
	if len(got.Paths) == 0 || got.Paths[0] != a {
		t.Fatalf("batch %v: want %s first", got.Paths, a)
	}
	if !slices.Contains(got.Paths, b) {
		// b's events may come after the first fire; they come in the next batch
		for !slices.Contains(got.Paths, b) {
			select {
			case fire <- time.Time{}:
			case next := <-c.ch:
				got.Paths = append(got.Paths, next.Paths...)
			case <-deadline:
				t.Fatalf("b never delivered: %v", got.Paths)
			}
		}
	}
}

func TestHidden(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rel  string
		want bool
	}{
		{"a/b.md", false}, {".obsidian/app.json", true}, {"a/.trash/x.md", true}, {".", false}, {"a/.b.md", true}, {"a.b/c.md", false},
	} {
		if got := watch.Hidden(tc.rel); got != tc.want {
			t.Errorf("Hidden(%q) = %v", tc.rel, got)
		}
	}
}
