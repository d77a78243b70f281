package main

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"quire/internal/testkit"
	"quire/kernel/protocol"
	"quire/kernel/store"
	"quire/library"
	"quire/rag"
)

// newDocsApp is the test App with a real documents library (rag over a
// real SQLite file) and the window's drop registration captured, so the
// test can drop paths the way Wails' OnFileDrop callback does.
func newDocsApp(t *testing.T) (*App, func(paths ...string), func() []emitted) {
	t.Helper()
	a, _, got := newTestApp(t, "")
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "docs.db"))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := rag.Open(t.Context(), st.DB(), nil)
	if err != nil {
		t.Fatal(err)
	}
	lib := library.New(idx, slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	lib.Start(ctx)
	t.Cleanup(func() { lib.Close(); cancel(); idx.Close(); st.Close() })
	a.attachDocuments(lib)
	var dropped func(x, y int, paths []string)
	a.onDrop = func(_ context.Context, cb func(x, y int, paths []string)) { dropped = cb }
	wctx, stop := context.WithCancel(t.Context())
	t.Cleanup(stop)
	a.startup(wctx)
	if dropped == nil {
		t.Fatal("startup did not register a file-drop callback")
	}
	return a, func(paths ...string) { dropped(10, 20, paths) }, got
}

// lastIndexing waits for an emitted quire:indexing event that ok accepts.
func lastIndexing(t *testing.T, got func() []emitted, ok func(protocol.IndexProgress) bool) protocol.IndexProgress {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		evs := got()
		for i := len(evs) - 1; i >= 0; i-- {
			if evs[i].name == eventIndexing {
				if p := evs[i].data[0].(protocol.IndexProgress); ok(p) {
					return p
				}
				break
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no indexing event accepted; emitted %+v", got())
	return protocol.IndexProgress{}
}

func TestDroppedFolderIsIndexedWithProgressInTheWindow(t *testing.T) {
	a, drop, got := newDocsApp(t)
	if _, err := a.Documents(); !errors.Is(err, errNoHandshake) {
		t.Fatalf("Documents before the handshake: %v", err)
	}
	if _, err := a.Handshake(protocol.Version); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "papers")
	testkit.WriteOld(t, filepath.Join(dir, "garden.md"), "# Garden\n\nTomatoes need sun.\n")
	testkit.WriteOld(t, filepath.Join(dir, "photo.txt"), "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00")
	drop(dir)
	final := lastIndexing(t, got, func(p protocol.IndexProgress) bool { return !p.Running && p.Phase == protocol.PhaseDone })
	if final.Total != 2 || final.Done != 2 || final.Failed != 1 {
		t.Fatalf("final progress %+v", final)
	}
	sawRunning := false
	for _, e := range got() {
		if e.name == eventIndexing && e.data[0].(protocol.IndexProgress).Running {
			sawRunning = true
		}
	}
	if !sawRunning {
		t.Error("no progress was sent while indexing")
	}
	st, err := a.Documents()
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for _, d := range st.Documents {
		reasons[filepath.Base(d.Path)] = d.Status + ": " + d.Reason
	}
	if !strings.HasPrefix(reasons["garden.md"], "done") || !strings.HasPrefix(reasons["photo.txt"], "failed") || !strings.Contains(reasons["photo.txt"], "binary") {
		t.Fatalf("documents after the drop: %v", reasons)
	}
	src, err := a.DocumentSource(filepath.Join(dir, "garden.md"), 0)
	if err != nil || !strings.Contains(src.Text, "Tomatoes") {
		t.Fatalf("DocumentSource: %+v %v", src, err)
	}
}

func TestWindowRefusesWhatIsNotAnIndexedDocument(t *testing.T) {
	a, drop, got := newDocsApp(t)
	if _, err := a.Handshake(protocol.Version); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(t.TempDir(), "secret.md")
	testkit.WriteOld(t, secret, "# Secret\n")
	for _, c := range []struct {
		name string
		call func() error
		want error
	}{
		{"source of a file never indexed", func() error { _, err := a.DocumentSource(secret, 0); return err }, library.ErrUnknownDocument},
		{"source of a system file", func() error { _, err := a.DocumentSource("/etc/passwd", 0); return err }, library.ErrUnknownDocument},
		{"source by a relative path", func() error { _, err := a.DocumentSource("secret.md", 0); return err }, library.ErrRelativePath},
		{"retry of an unknown document", func() error { return a.RetryDocument(secret) }, library.ErrUnknownDocument},
		{"remove of an unknown document", func() error { return a.RemoveDocument(secret) }, library.ErrUnknownDocument},
		{"index a missing path", func() error { return a.IndexPaths([]string{secret + ".gone"}) }, library.ErrMissing},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := c.call(); !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
		})
	}
	drop(filepath.Join(t.TempDir(), "vanished"))
	deadline := time.Now().Add(5 * time.Second)
	for {
		var said string
		for _, e := range got() {
			if e.name == eventDropFail {
				said = e.data[0].(string)
			}
		}
		if strings.Contains(said, "no such file or folder") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a drop that cannot be indexed is not said in the page; emitted %+v", got())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
