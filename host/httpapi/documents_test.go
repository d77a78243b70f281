package httpapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"quire/doctor"
	"quire/host/httpapi"
	"quire/kernel/protocol"
	"quire/library"
	"quire/rag"
	"quire/test/testkit"
)

// serveDocs runs the HTTP host with a real library over a real rag index
// in the kernel's SQLite file.
// docsServer is the HTTP host with a documents library, and the library, whose
// progress a test waits on.
type docsServer struct {
	client
	lib *library.Library
}

func serveDocs(t *testing.T) docsServer {
	t.Helper()
	k := testkit.New(t)
	idx, err := rag.Open(t.Context(), k.Store.DB(), nil)
	if err != nil {
		t.Fatal(err)
	}
	lib := library.New(idx, slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	lib.Start(ctx)
	t.Cleanup(func() { lib.Close(); cancel(); idx.Close() })
	h := httpapi.New(httpapi.Backend{Kernel: k.Runtime, Documents: lib,
		Doctor: func(context.Context) doctor.Report { return doctor.Report{OK: true} }},
		fstest.MapFS{"index.html": {Data: []byte("Quire")}}, slog.New(slog.DiscardHandler))
	return docsServer{start(t, h), lib}
}

func documentsState(t *testing.T, srv client) protocol.DocumentsState {
	t.Helper()
	status, body := srv.do(t, "POST", httpapi.OpPath+"Documents.State", "")
	var st protocol.DocumentsState
	if status != 200 || json.Unmarshal([]byte(body), &st) != nil {
		t.Fatalf("Documents.State: %d %s", status, body)
	}
	return st
}

// waitIndexed waits until the library has indexed n documents, then
// returns the state as the host's route reports it.
func waitIndexed(t *testing.T, srv docsServer, n int) protocol.DocumentsState {
	t.Helper()
	testkit.WaitIndexed(t, srv.lib, n)
	return documentsState(t, srv.client)
}

func TestDocumentsRoutes(t *testing.T) {
	srv := serveDocs(t)
	dir := filepath.Join(t.TempDir(), "papers")
	testkit.WriteOld(t, filepath.Join(dir, "garden.md"), "# Garden\n\nTomatoes need sun.\n")
	testkit.WriteOld(t, filepath.Join(dir, "blob.txt"), "\x00\x01binary\x00")
	outside := filepath.Join(filepath.Dir(dir), "secret.md")
	testkit.WriteOld(t, outside, "# Secret\n")

	body, _ := json.Marshal([]any{[]string{dir}})
	if status, b := srv.do(t, "POST", httpapi.OpPath+"Documents.Add", string(body)); status != http.StatusNoContent {
		t.Fatalf("Documents.Add: %d %s", status, b)
	}
	st := waitIndexed(t, srv, 2)
	if !st.Offline || st.Embedder == "" {
		t.Errorf("the embedder in use is not said: %+v", st)
	}
	for _, d := range st.Documents {
		switch filepath.Base(d.Path) {
		case "garden.md":
			if d.Status != "done" || d.Name != "papers/garden.md" {
				t.Errorf("garden.md: %+v", d)
			}
		case "blob.txt":
			if d.Status != "failed" || !strings.Contains(d.Reason, "binary") {
				t.Errorf("a binary file is listed as failed with its reason: %+v", d)
			}
		}
	}

	q := func(path string, page int) string {
		b, _ := json.Marshal([]any{path, page})
		return string(b)
	}
	source := httpapi.OpPath + "Documents.Source"
	status, b := srv.do(t, "POST", source, q(filepath.Join(dir, "garden.md"), 0))
	var src protocol.DocumentSource
	if status != 200 || json.Unmarshal([]byte(b), &src) != nil || src.Text != "# Garden\n\nTomatoes need sun.\n" {
		t.Fatalf("source of garden.md: %d %s", status, b)
	}

	bad := []struct {
		name, op, body string
		status         int
		says           string
	}{
		{"a path outside the indexed folders", "Documents.Source", q(outside, 0), 404, "not in the document index"},
		{"a system file", "Documents.Source", q("/etc/passwd", 0), 404, "not in the document index"},
		{"a relative path", "Documents.Source", q("papers/garden.md", 0), 400, "full path"},
		{"no path", "Documents.Source", q("", 0), 400, "full path"},
		{"a bad page", "Documents.Source", `["` + filepath.Join(dir, "garden.md") + `","x"]`, 400, "Documents.Source argument 2"},
		{"a document that failed", "Documents.Source", q(filepath.Join(dir, "blob.txt"), 0), 409, "could not read"},
		{"add nothing", "Documents.Add", `[[]]`, 400, "nothing to index"},
		{"an embedding model where none can be chosen", "Documents.SetEmbedModel", `["nomic-embed-text"]`, 409, "cannot be changed here"},
		{"add a relative path", "Documents.Add", `[["papers"]]`, 400, "full path"},
		{"add a missing path", "Documents.Add", `[["/no/such/folder"]]`, 400, "no such file"},
		{"add with bad JSON", "Documents.Add", `[["`, 400, "not the JSON"},
		{"retry an unknown document", "Documents.Retry", `["/etc/passwd"]`, 404, "not in the document index"},
		{"remove an unknown document", "Documents.Remove", `["` + outside + `"]`, 404, "not in the document index"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			status, b := srv.do(t, "POST", httpapi.OpPath+c.op, c.body)
			var e struct{ Error string }
			json.Unmarshal([]byte(b), &e)
			if status != c.status || !strings.Contains(e.Error, c.says) {
				t.Fatalf("%s %s: %d %s; want %d saying %q", c.op, c.body, status, b, c.status, c.says)
			}
		})
	}
	if got := documentsState(t, srv.client); len(got.Documents) != 2 {
		t.Fatalf("refused requests changed the index: %+v", got.Documents)
	}

	if status, b := srv.do(t, "POST", httpapi.OpPath+"Documents.Remove", `["`+filepath.Join(dir, "garden.md")+`"]`); status != http.StatusNoContent {
		t.Fatalf("remove: %d %s", status, b)
	}
	waitIndexed(t, srv, 1)
	if status, _ := srv.do(t, "POST", source, q(filepath.Join(dir, "garden.md"), 0)); status != 404 {
		t.Fatalf("a removed document can still be read: %d", status)
	}
}

func TestDocumentsStreamSendsProgress(t *testing.T) {
	srv := serveDocs(t)
	dir := t.TempDir()
	testkit.WriteOld(t, filepath.Join(dir, "a.md"), "# A\n\nalpha\n")
	req := srv.request(t, "GET", "/api/documents/stream?protocol="+protocol.Version, "")
	req.Header.Del(httpapi.ProtocolHeader)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	lines := bufio.NewScanner(resp.Body)
	lines.Scan() // ": connected"
	body, _ := json.Marshal([]any{[]string{dir}})
	if status, b := srv.do(t, "POST", httpapi.OpPath+"Documents.Add", string(body)); status != http.StatusNoContent {
		t.Fatalf("Documents.Add: %d %s", status, b)
	}
	sawRunning := false
	for lines.Scan() {
		data, ok := strings.CutPrefix(lines.Text(), "data: ")
		if !ok {
			continue
		}
		var p protocol.IndexProgress
		if err := json.Unmarshal([]byte(data), &p); err != nil {
			t.Fatalf("bad progress %q: %v", data, err)
		}
		if p.Running {
			sawRunning = true
		} else if sawRunning {
			if p.Phase != protocol.PhaseDone || p.Done != 1 || p.Total != 1 {
				t.Fatalf("final progress %+v", p)
			}
			return
		}
	}
	t.Fatalf("the stream ended before the pass did: %v", lines.Err())
}

func TestDocumentsWithoutAnIndex(t *testing.T) {
	e := serve(t, "")
	status, b := e.srv.do(t, "GET", "/api/documents/stream", "")
	if status != http.StatusServiceUnavailable || !strings.Contains(b, "not available") {
		t.Fatalf("the documents' stream without an index: %d %s", status, b)
	}
}
