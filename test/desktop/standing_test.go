//go:build desktoptest

package desktop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"quire/test/ollamatest"
)

// standingView is the Standing tasks panel as the probe sees it
// (snapshot.ts readStanding): the dot on its button and each task's row.
type standingView struct {
	Badge bool `json:"badge"`
	Tasks []struct {
		Name    string `json:"name"`
		Paused  bool   `json:"paused"`
		Waiting bool   `json:"waiting"`
		Last    string `json:"last"`
	} `json:"tasks"`
}

// waitStanding waits until the Standing tasks part of the view is shown and ok.
func waitStanding(t testing.TB, a *app, probe, what string, ok func(standingView) bool) standingView {
	t.Helper()
	return *waitView(t, a, probe, what, func(v view) bool { return v.Standing != nil && ok(*v.Standing) }).Standing
}

// TestDesktopStandingTask: in the real window, a standing task is added in
// the Standing tasks panel and "Run now" pressed; its firing's batch (the
// fake model proposes a place for each note) waits for the review, and the
// panel's button shows the dot; nothing moved. The batch is applied in
// "Organise a folder" only after the user's yes in the native dialog; then
// the notes moved and the panel says what the user kept.
func TestDesktopStandingTask(t *testing.T) {
	display := startXvfb(t)
	fake := ollamatest.New(t, ollamatest.WithDelay(10*time.Millisecond), ollamatest.WithResponder(fileEachNote))
	fake.AddModel(ollamatest.DefaultModel())
	notesDir := t.TempDir()
	notes := []string{"inbox/a.md", "inbox/b.md"}
	if err := os.MkdirAll(filepath.Join(notesDir, "inbox"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range notes {
		if err := os.WriteFile(filepath.Join(notesDir, n), []byte("# "+n+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	probe := filepath.Join(t.TempDir(), "view.json")
	a := startApp(t, display, t.TempDir(), probe, fake.URL(), "QUIRE_NOTES_DIR="+notesDir)
	failedShot(t, display, probe, "desktop-standing-FAILED.png")
	waitView(t, a, probe, "the frontend to load", func(v view) bool { return v.Messages != nil })
	w := findWindow(t, display, a, probe)

	// Add the task: its name typed, the folder field's inbox kept.
	w.click("standing-open")
	w.click("standing-name")
	w.typeText("File the inbox")
	waitStanding(t, a, probe, "the panel open", func(s standingView) bool { return len(s.Tasks) == 0 })
	w.click("standing-save")
	waitStanding(t, a, probe, "the task listed", func(s standingView) bool {
		return len(s.Tasks) == 1 && s.Tasks[0].Name == "File the inbox" && s.Tasks[0].Last == "Not fired yet."
	})

	w.click("standing-run")
	w.click("standing-close")
	w.click("batches-open")
	v := waitView(t, a, probe, "the firing's review list", func(v view) bool {
		return v.Batch != nil && v.Batch.State == "reviewing" && len(v.Batch.Rows) == len(notes)
	})
	for _, r := range v.Batch.Rows {
		if !r.Selected || r.To != "projects/"+filepath.Base(r.From) {
			t.Fatalf("the review list: %+v", v.Batch.Rows)
		}
	}
	w.click("batches-close")
	w.click("standing-open") // read afresh: the batch waits
	s := waitStanding(t, a, probe, "the task's batch waiting, the dot on its button", func(s standingView) bool {
		return s.Badge && len(s.Tasks) == 1 && s.Tasks[0].Waiting
	})
	if !strings.Contains(s.Tasks[0].Last, "2 proposals wait for your review") {
		t.Errorf("the task's last line: %q", s.Tasks[0].Last)
	}
	screenshot(t, display, "desktop-standing-waiting.png")
	for _, n := range notes {
		if _, err := os.Stat(filepath.Join(notesDir, n)); err != nil {
			t.Fatalf("%s moved before any review: %v", n, err)
		}
	}

	w.click("standing-close")
	w.click("batches-open")
	w.click("review-apply") // the native dialog is the one question (issue 31): the page does not ask first
	dialog := strings.Fields(run(t, display, "xdotool", "search", "--sync", "--onlyvisible", "--name", "Apply these 2 changes to your notes"))[0]
	screenshot(t, display, "desktop-standing-dialog.png")
	for _, n := range notes {
		if _, err := os.Stat(filepath.Join(notesDir, n)); err != nil {
			t.Fatalf("%s moved before the user said yes in the dialog", n)
		}
	}
	run(t, display, "xdotool", "windowfocus", "--sync", dialog)
	run(t, display, "xdotool", "key", "--window", dialog, "alt+y")
	waitView(t, a, probe, "the batch applied", func(v view) bool { return v.Batch != nil && v.Batch.State == "done" })
	for _, n := range notes {
		_, atFrom := os.Stat(filepath.Join(notesDir, n))
		_, atTo := os.Stat(filepath.Join(notesDir, "projects", filepath.Base(n)))
		if atFrom == nil || atTo != nil {
			t.Errorf("%s did not move to projects/ (at its place: %v, there: %v)", n, atFrom, atTo)
		}
	}

	w.click("batches-close")
	w.click("standing-open")
	waitStanding(t, a, probe, "the task's batch kept", func(s standingView) bool {
		return !s.Badge && len(s.Tasks) == 1 && !s.Tasks[0].Waiting && strings.Contains(s.Tasks[0].Last, "2 proposed, you kept 2.")
	})
	screenshot(t, display, "desktop-standing-kept.png")
}
