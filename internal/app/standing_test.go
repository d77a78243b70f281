package app

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"quire/host/httpapi"
	"quire/internal/ollamatest"
	"quire/internal/testkit"
	"quire/kernel/protocol"
)

// TestStandingTasksOverHTTP: the browser's routes reach the real standing
// tasks: a task is added (one with a key a task lacks, like autoApply, is
// refused), paused and resumed at once, run now — its batch waits in the
// batch routes for the review and applies only on the yes — and removed.
func TestStandingTasksOverHTTP(t *testing.T) {
	fake := ollamatest.New(t, ollamatest.WithResponder(isolationModel))
	fake.AddModel(ollamatest.DefaultModel())
	notesDir := t.TempDir()
	for i := range 2 {
		testkit.WriteOld(t, filepath.Join(notesDir, "inbox", fmt.Sprintf("i%d.md", i)), "# inbox note\n")
	}
	p := batchOwner(t, fake, notesDir)
	h := httpapi.New(p.ServeBackend(t.Context(), ""), fstest.MapFS{"index.html": {Data: []byte("Quire")}}, slog.New(slog.DiscardHandler))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	link, _ := url.Parse(h.Link("http://127.0.0.1"))
	do := func(method, path, body string, into any) int {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), method, srv.URL+path, strings.NewReader(body))
		req.Header.Set(httpapi.ProtocolHeader, protocol.Version)
		req.Header.Set("Authorization", "Bearer "+link.Query().Get(httpapi.TokenQuery))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if into != nil && resp.StatusCode < 300 {
			if err := json.Unmarshal(b, into); err != nil {
				t.Fatalf("%s %s: %s: %v", method, path, b, err)
			}
		}
		return resp.StatusCode
	}
	task := `{"name":"file the inbox","folder":"inbox","schedule":{"kind":"daily","at":"07:00"}`
	if status := do("POST", "/api/standing", task+`,"autoApply":true}`, nil); status != http.StatusBadRequest {
		t.Fatalf("a task with autoApply: %d", status)
	}
	if status := do("POST", "/api/standing", `{"name":"x","folder":"inbox","schedule":{"kind":"hourly"}}`, nil); status != http.StatusBadRequest {
		t.Fatalf("a schedule that is none: %d", status)
	}
	var sum protocol.StandingSummary
	if status := do("POST", "/api/standing", task+`}`, &sum); status != http.StatusCreated || sum.Task.ID == "" || sum.NextMs == 0 {
		t.Fatalf("add: %d %+v", status, sum)
	}
	id := sum.Task.ID
	if do("POST", "/api/standing/"+id+"/pause", "", &sum); !sum.Task.Paused {
		t.Fatalf("pause: %+v", sum)
	}
	sum = protocol.StandingSummary{}
	if do("POST", "/api/standing/"+id+"/resume", "", &sum); sum.Task.Paused || sum.Task.ID != id {
		t.Fatalf("resume: %+v", sum)
	}
	var f protocol.StandingFiring
	if status := do("POST", "/api/standing/"+id+"/run", "", &f); status != http.StatusOK || f.Step != "proposed" {
		t.Fatalf("run now: %d %+v", status, f)
	}
	waitReviewing(t, p.Batches(), f.Batch)
	if status := do("POST", "/api/standing/"+id+"/run", "", nil); status != http.StatusConflict {
		t.Fatalf("a second run while the batch waits: %d", status)
	}
	var list []protocol.StandingSummary
	if do("GET", "/api/standing", "", &list); len(list) != 1 || !list[0].Waiting || list[0].Proposed != 2 {
		t.Fatalf("list while waiting: %+v", list)
	}
	if notes := filesUnder(t, notesDir); strings.Join(notes, ",") != "inbox/i0.md,inbox/i1.md" {
		t.Fatalf("the notes changed before the review: %v", notes)
	}
	var review protocol.BatchReview
	do("GET", "/api/batches/"+f.Batch, "", &review)
	body, _ := json.Marshal(protocol.BatchDecision{Items: review.Items})
	var applied protocol.Batch
	if status := do("POST", "/api/batches/"+f.Batch+"/apply", string(body), &applied); status != http.StatusOK || applied.State != protocol.BatchDone {
		t.Fatalf("apply: %d %+v", status, applied)
	}
	if notes := filesUnder(t, notesDir); strings.Join(notes, ",") != "projects/i0.md,projects/i1.md" {
		t.Fatalf("after the yes: %v", notes)
	}
	if status := do("DELETE", "/api/standing/"+id, "", nil); status != http.StatusNoContent {
		t.Fatalf("remove: %d", status)
	}
	if status := do("POST", "/api/standing/"+id+"/pause", "", nil); status != http.StatusNotFound {
		t.Fatalf("pause a removed task: %d", status)
	}
}

// filesUnder lists the files under dir, relative, sorted.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}
