package httpapi_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"quire/doctor"
	"quire/host/httpapi"
	"quire/kernel/protocol"
	"quire/library"
	"quire/test/testkit"
)

// localOwner is a real library over a real rag index (serveDocs') served
// on a Unix socket, as an owner serves its local channel.
type localOwner struct {
	lib   *library.Library
	local *httpapi.Local
	shown *atomic.Int32
	sock  string
}

func serveLocal(t *testing.T, show bool) localOwner {
	t.Helper()
	lib := serveDocs(t).lib
	sock := filepath.Join(t.TempDir(), "quire.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	o := localOwner{lib: lib, local: httpapi.DialLocal(sock), shown: &atomic.Int32{}, sock: sock}
	b := httpapi.Backend{Documents: lib, Doctor: func(context.Context) doctor.Report { return doctor.Report{OK: true} }}
	if show {
		b.Show = func(context.Context) error { o.shown.Add(1); return nil }
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- httpapi.ServeSocket(ctx, ln, b, slog.New(slog.DiscardHandler)) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeSocket: %v", err)
		}
	})
	return o
}

// TestTheLocalChannelServesTheAPIAndShow: the socket answers the same
// routes as `quire serve` (the handshake still required), and Show reaches
// the window's hook — or, with none (`quire serve`), a sentence.
func TestTheLocalChannelServesTheAPIAndShow(t *testing.T) {
	o := serveLocal(t, true)
	var d net.Dialer
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return d.DialContext(ctx, "unix", o.sock)
	}}}
	req, _ := http.NewRequestWithContext(t.Context(), "POST", "http://quire"+httpapi.OpPath+"Documents.State", nil)
	if resp, err := client.Do(req); err != nil || resp.StatusCode != http.StatusUpgradeRequired {
		t.Fatalf("a request with no handshake: %v %v", resp, err)
	}
	req.Header.Set(httpapi.ProtocolHeader, protocol.Version)
	if resp, err := client.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("Documents.State over the socket: %v %v", resp, err)
	}
	if err := o.local.Show(t.Context()); err != nil || o.shown.Load() != 1 {
		t.Fatalf("Show: %v, the hook ran %d times", err, o.shown.Load())
	}
	served := serveLocal(t, false)
	var owner *httpapi.OwnerError
	if err := served.local.Show(t.Context()); !errors.As(err, &owner) || owner.Status != http.StatusConflict || !strings.Contains(owner.Msg, "no window") {
		t.Fatalf("Show of an owner with no window: %v", err)
	}
}

// TestIndexingThroughTheLocalChannel: an index through the owner returns
// when the pass that indexes its paths has ended — a second one, after a
// file was added, has it indexed when it returns, not at the first pass's
// end — a missing path is the owner's sentence, and a command that stops
// following leaves the owner indexing.
func TestIndexingThroughTheLocalChannel(t *testing.T) {
	o := serveLocal(t, false)
	dir := filepath.Join(t.TempDir(), "papers")
	testkit.WriteOld(t, filepath.Join(dir, "garden.md"), "# Garden\n\nTomatoes need sun.\n")
	idx, err := o.local.Index(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if idx.Embedder() == "" {
		t.Error("the owner's embedder is not named")
	}
	var seen []protocol.IndexProgress
	if err := idx.Index(t.Context(), []string{dir}, func(p protocol.IndexProgress) { seen = append(seen, p) }); err != nil {
		t.Fatal(err)
	}
	if len(seen) == 0 || seen[len(seen)-1].Phase != protocol.PhaseDone || seen[len(seen)-1].Total != 1 {
		t.Fatalf("the progress of the pass: %+v", seen)
	}
	testkit.WriteOld(t, filepath.Join(dir, "beans.md"), "# Beans\n\nBeans climb.\n")
	if err := idx.Index(t.Context(), []string{dir}, nil); err != nil {
		t.Fatal(err)
	}
	docs, err := idx.Documents(t.Context())
	if err != nil || len(docs) != 2 {
		t.Fatalf("after the second pass: %+v %v", docs, err)
	}
	for _, d := range docs {
		if d.Status != "done" {
			t.Errorf("%s is %s when the index returned", d.Path, d.Status)
		}
	}

	var owner *httpapi.OwnerError
	err = idx.Index(t.Context(), []string{filepath.Join(dir, "missing")}, nil)
	if !errors.As(err, &owner) || owner.Status != http.StatusBadRequest || !strings.Contains(owner.Msg, "no such file or folder") {
		t.Fatalf("a missing path: %v", err)
	}

	// Stop following at the first progress of a pass: the owner goes on.
	testkit.WriteOld(t, filepath.Join(dir, "peas.md"), "# Peas\n\nPeas in spring.\n")
	ctx, cancel := context.WithCancel(t.Context())
	err = idx.Index(ctx, []string{dir}, func(protocol.IndexProgress) { cancel() })
	if !errors.Is(err, httpapi.ErrDetached) {
		t.Fatalf("a command that stopped following: %v", err)
	}
	wctx, wcancel := context.WithTimeout(t.Context(), testkit.Patience)
	defer wcancel()
	for p := range o.lib.Watch(wctx) {
		if !p.Running && p.Phase == protocol.PhaseDone && len(p.Paths) == 1 && p.Paths[0] == dir {
			docs, _ := idx.Documents(t.Context())
			if len(docs) == 3 {
				return
			}
		}
	}
	t.Fatal("the owner did not finish the pass the command stopped following")
}
