package window

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"quire/kernel/protocol"
	"quire/library"
	"quire/test/testkit"
)

// newDocsApp is the test App with a real documents library (rag over a
// real SQLite file) and the window's drop registration captured, so the
// test can drop paths the way Wails' OnFileDrop callback does.
func newDocsApp(t *testing.T) (*Host, func(paths ...string), *window) {
	t.Helper()
	a, _, got := newTestApp(t, "")
	// The composition root's own documents panel (no Ollama: the offline embedder).
	p := openOwner(t, t.TempDir(), "http://127.0.0.1:1")
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { p.Close(); cancel() })
	lib := p.Documents(ctx)
	if lib == nil {
		t.Fatal("the documents panel did not open")
	}
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
func lastIndexing(t *testing.T, got *window, ok func(protocol.IndexProgress) bool) protocol.IndexProgress {
	t.Helper()
	var p protocol.IndexProgress
	got.wait(t, "an indexing event accepted", func(evs []emitted) bool {
		for i := len(evs) - 1; i >= 0; i-- {
			if evs[i].name == eventIndexing {
				p = evs[i].data[0].(protocol.IndexProgress)
				return ok(p)
			}
		}
		return false
	})
	return p
}

func TestDroppedFolderIsIndexedWithProgressInTheWindow(t *testing.T) {
	a, drop, got := newDocsApp(t)
	if _, err := opAs[protocol.DocumentsState](a, "Documents.State"); !errors.Is(err, errNoHandshake) {
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
	for _, e := range got.all() {
		if e.name == eventIndexing && e.data[0].(protocol.IndexProgress).Running {
			sawRunning = true
		}
	}
	if !sawRunning {
		t.Error("no progress was sent while indexing")
	}
	st, err := opAs[protocol.DocumentsState](a, "Documents.State")
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
	src, err := opAs[protocol.DocumentSource](a, "Documents.Source", filepath.Join(dir, "garden.md"), 0)
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
		{"source of a file never indexed", func() error { _, err := opAs[protocol.DocumentSource](a, "Documents.Source", secret, 0); return err }, library.ErrUnknownDocument},
		{"source of a system file", func() error {
			_, err := opAs[protocol.DocumentSource](a, "Documents.Source", "/etc/passwd", 0)
			return err
		}, library.ErrUnknownDocument},
		{"source by a relative path", func() error {
			_, err := opAs[protocol.DocumentSource](a, "Documents.Source", "secret.md", 0)
			return err
		}, library.ErrRelativePath},
		{"retry of an unknown document", func() error { return opErr(a, "Documents.Retry", secret) }, library.ErrUnknownDocument},
		{"remove of an unknown document", func() error { return opErr(a, "Documents.Remove", secret) }, library.ErrUnknownDocument},
		{"index a missing path", func() error { return opErr(a, "Documents.Add", []string{secret + ".gone"}) }, library.ErrMissing},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := c.call(); !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
		})
	}
	drop(filepath.Join(t.TempDir(), "vanished"))
	got.wait(t, "the page told a drop that cannot be indexed", func(es []emitted) bool {
		var said string
		for _, e := range es {
			if e.name == eventDropFail {
				said = e.data[0].(string)
			}
		}
		return strings.Contains(said, "no such file or folder")
	})
}
