package httpapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
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
	status, body := srv.do(t, "GET", "/api/documents", "")
	var st protocol.DocumentsState
	if status != 200 || json.Unmarshal([]byte(body), &st) != nil {
		t.Fatalf("GET /api/documents: %d %s", status, body)
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

	body, _ := json.Marshal(map[string]any{"paths": []string{dir}})
	if status, b := srv.do(t, "POST", "/api/documents", string(body)); status != http.StatusAccepted {
		t.Fatalf("POST /api/documents: %d %s", status, b)
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

	q := func(path string, page string) string {
		v := url.Values{"path": {path}}
		if page != "" {
			v.Set("page", page)
		}
		return "/api/documents/source?" + v.Encode()
	}
	status, b := srv.do(t, "GET", q(filepath.Join(dir, "garden.md"), ""), "")
	var src protocol.DocumentSource
	if status != 200 || json.Unmarshal([]byte(b), &src) != nil || src.Text != "# Garden\n\nTomatoes need sun.\n" {
		t.Fatalf("source of garden.md: %d %s", status, b)
	}

	bad := []struct {
		name, method, url, body string
		status                  int
		says                    string
	}{
		{"a path outside the indexed folders", "GET", q(outside, ""), "", 404, "not in the document index"},
		{"a system file", "GET", q("/etc/passwd", ""), "", 404, "not in the document index"},
		{"a relative path", "GET", q("papers/garden.md", ""), "", 400, "full path"},
		{"no path", "GET", "/api/documents/source", "", 400, "full path"},
		{"a bad page", "GET", q(filepath.Join(dir, "garden.md"), "x"), "", 400, "page"},
		{"a document that failed", "GET", q(filepath.Join(dir, "blob.txt"), ""), "", 409, "could not read"},
		{"add nothing", "POST", "/api/documents", `{"paths":[]}`, 400, "nothing to index"},
		{"an embedding model where none can be chosen", "POST", "/api/documents/embedder", `{"model":"nomic-embed-text"}`, 409, "cannot be changed here"},
		{"add a relative path", "POST", "/api/documents", `{"paths":["papers"]}`, 400, "full path"},
		{"add a missing path", "POST", "/api/documents", `{"paths":["/no/such/folder"]}`, 400, "no such file"},
		{"add with bad JSON", "POST", "/api/documents", `{"paths":`, 400, "not the JSON"},
		{"retry an unknown document", "POST", "/api/documents/retry", `{"path":"/etc/passwd"}`, 404, "not in the document index"},
		{"remove an unknown document", "POST", "/api/documents/remove", `{"path":"` + outside + `"}`, 404, "not in the document index"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			status, b := srv.do(t, c.method, c.url, c.body)
			var e struct{ Error string }
			json.Unmarshal([]byte(b), &e)
			if status != c.status || !strings.Contains(e.Error, c.says) {
				t.Fatalf("%s %s: %d %s; want %d saying %q", c.method, c.url, status, b, c.status, c.says)
			}
		})
	}
	if got := documentsState(t, srv.client); len(got.Documents) != 2 {
		t.Fatalf("refused requests changed the index: %+v", got.Documents)
	}

	if status, b := srv.do(t, "POST", "/api/documents/remove", `{"path":"`+filepath.Join(dir, "garden.md")+`"}`); status != http.StatusAccepted {
		t.Fatalf("remove: %d %s", status, b)
	}
	waitIndexed(t, srv, 1)
	if status, _ := srv.do(t, "GET", q(filepath.Join(dir, "garden.md"), ""), ""); status != 404 {
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
	body, _ := json.Marshal(map[string]any{"paths": []string{dir}})
	if status, b := srv.do(t, "POST", "/api/documents", string(body)); status != http.StatusAccepted {
		t.Fatalf("POST /api/documents: %d %s", status, b)
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
	status, b := e.srv.do(t, "GET", "/api/documents", "")
	if status != http.StatusServiceUnavailable || !strings.Contains(b, "not available") {
		t.Fatalf("GET /api/documents without an index: %d %s", status, b)
	}
}
