package assembly

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"quire/config"
	"quire/host/httpapi"
	"quire/internal/datadir"
	"quire/kernel/protocol"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

// TestStandingTasksOverHTTP: the browser's routes reach the real standing
// tasks: a task is added (one with a key a task lacks, like autoApply, is
// refused), paused and resumed at once, run now — its batch waits in the
// batch operations for the review and applies only on the yes — and removed.
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
	// do calls operation name with its arguments (a JSON array).
	do := func(name, args string, into any) int {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), "POST", srv.URL+httpapi.OpPath+name, strings.NewReader(args))
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
				t.Fatalf("%s %s: %s: %v", name, args, b, err)
			}
		}
		return resp.StatusCode
	}
	task := `{"name":"file the inbox","folder":"inbox","schedule":{"kind":"daily","at":"07:00"}`
	if status := do("Standing.Add", "["+task+`,"autoApply":true}]`, nil); status != http.StatusBadRequest {
		t.Fatalf("a task with autoApply: %d", status)
	}
	if status := do("Standing.Add", `[{"name":"x","folder":"inbox","schedule":{"kind":"hourly"}}]`, nil); status != http.StatusBadRequest {
		t.Fatalf("a schedule that is none: %d", status)
	}
	var sum protocol.StandingSummary
	if status := do("Standing.Add", "["+task+`}]`, &sum); status != http.StatusOK || sum.Task.ID == "" || sum.NextMs == 0 {
		t.Fatalf("add: %d %+v", status, sum)
	}
	id := sum.Task.ID
	if do("Standing.SetPaused", `["`+id+`",true]`, &sum); !sum.Task.Paused {
		t.Fatalf("pause: %+v", sum)
	}
	sum = protocol.StandingSummary{}
	if do("Standing.SetPaused", `["`+id+`",false]`, &sum); sum.Task.Paused || sum.Task.ID != id {
		t.Fatalf("resume: %+v", sum)
	}
	var f protocol.StandingFiring
	if status := do("Standing.RunNow", `["`+id+`"]`, &f); status != http.StatusOK || f.Step != "proposed" {
		t.Fatalf("run now: %d %+v", status, f)
	}
	waitReviewing(t, p.Batches(), f.Batch)
	if status := do("Standing.RunNow", `["`+id+`"]`, nil); status != http.StatusConflict {
		t.Fatalf("a second run while the batch waits: %d", status)
	}
	var list []protocol.StandingSummary
	if do("Standing.List", "", &list); len(list) != 1 || !list[0].Waiting || list[0].Proposed != 2 {
		t.Fatalf("list while waiting: %+v", list)
	}
	if notes := filesUnder(t, notesDir); strings.Join(notes, ",") != "inbox/i0.md,inbox/i1.md" {
		t.Fatalf("the notes changed before the review: %v", notes)
	}
	var review protocol.BatchReview
	do("Batches.Get", `["`+f.Batch+`"]`, &review)
	body, _ := json.Marshal([]any{f.Batch, protocol.BatchDecision{Items: review.Items}})
	var applied protocol.Batch
	if status := do("Batches.Apply", string(body), &applied); status != http.StatusOK || applied.State != protocol.BatchDone {
		t.Fatalf("apply: %d %+v", status, applied)
	}
	if notes := filesUnder(t, notesDir); strings.Join(notes, ",") != "projects/i0.md,projects/i1.md" {
		t.Fatalf("after the yes: %v", notes)
	}
	if status := do("Standing.Remove", `["`+id+`"]`, nil); status != http.StatusNoContent {
		t.Fatalf("remove: %d", status)
	}
	if status := do("Standing.SetPaused", `["`+id+`",true]`, nil); status != http.StatusNotFound {
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

// TestNotifySendRunsTheProgram: the notifier runs the notify-send found on
// the PATH (here a fake one that writes down its arguments), with the body
// escaped as markup; with none installed there is no notifier.
func TestNotifySendRunsTheProgram(t *testing.T) {
	dir := t.TempDir()
	said := filepath.Join(dir, "said")
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > " + said + "\n"
	if err := os.WriteFile(filepath.Join(dir, "notify-send"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	notify := NotifySend(exec.LookPath)
	if notify == nil {
		t.Fatal("no notifier with notify-send on the PATH")
	}
	if err := notify(t.Context(), "Quire: a batch waits", "file <the> inbox & more"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(said)
	if err != nil {
		t.Fatal(err)
	}
	want := "--app-name=Quire\n--icon=quire\nQuire: a batch waits\nfile &lt;the&gt; inbox &amp; more\n"
	if string(b) != want {
		t.Fatalf("notify-send was given %q, want %q", b, want)
	}
	t.Setenv("PATH", t.TempDir())
	if NotifySend(exec.LookPath) != nil {
		t.Fatal("a notifier without notify-send")
	}
}

// TestWaitingBatchIsNotifiedOnce: when a standing task's batch reaches
// its review the desktop is told once, naming the task; a batch the user
// started is not told.
func TestWaitingBatchIsNotifiedOnce(t *testing.T) {
	fake := ollamatest.New(t, ollamatest.WithResponder(isolationModel))
	fake.AddModel(ollamatest.DefaultModel())
	notesDir := t.TempDir()
	for i := range 2 {
		testkit.WriteOld(t, filepath.Join(notesDir, "inbox", fmt.Sprintf("i%d.md", i)), "# inbox note\n")
		testkit.WriteOld(t, filepath.Join(notesDir, "later", fmt.Sprintf("l%d.md", i)), "# later note\n")
	}
	told := make(chan string, 10)
	settings := config.NewStore(config.Config{DataDir: t.TempDir(), OllamaHost: fake.URL(), Model: "qwen3:4b", NumCtx: 8192,
		NotesDir: notesDir, Profile: "ask", Batch: config.BatchSettings{Workers: 2}})
	p, err := OpenWith(t.Context(), settings, slog.New(slog.DiscardHandler), Owner, Extras{Kind: datadir.Serve,
		Notify: func(_ context.Context, title, body string) error { told <- body; return nil }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	p.RunStanding(t.Context())
	mine, err := p.Batches().Start(t.Context(), "later")
	if err != nil {
		t.Fatal(err)
	}
	waitReviewing(t, p.Batches(), mine.ID)
	sum, err := p.Standing().Add(t.Context(), protocol.StandingTask{Name: "file the inbox", Folder: "inbox", Schedule: protocol.StandingSchedule{Kind: protocol.StandingLands}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := p.Standing().RunNow(t.Context(), sum.Task.ID)
	if err != nil {
		t.Fatal(err)
	}
	waitReviewing(t, p.Batches(), f.Batch)
	select {
	case body := <-told:
		if !strings.Contains(body, "file the inbox proposes changes to 2 notes of inbox") {
			t.Fatalf("told %q", body)
		}
	case <-time.After(testkit.Patience):
		t.Fatal("the waiting batch was never told")
	}
	p.Close() // the notifier's loop ends with the parts: nothing more was told
	if len(told) != 0 {
		t.Fatalf("told again: %q", <-told)
	}
}
