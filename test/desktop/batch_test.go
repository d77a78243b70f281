//go:build desktoptest

package desktop

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"quire/queue"
	"quire/test/ollamatest"
)

// batchView is the batch the drawer shows: its state and counts, and the
// review list's rows with where each tick box is.
type batchView struct {
	State string `json:"state"`
	Done  int    `json:"done"`
	Total int    `json:"total"`
	Rows  []struct {
		From     string `json:"from"`
		To       string `json:"to"`
		Selected bool   `json:"selected"`
		Tick     point  `json:"tick"`
	} `json:"rows"`
}

var batchNote = regexp.MustCompile(`^Organise the note (\S+)\. `)

// fileEachNote is the workers' side of the fake model: every note of the
// task's message is proposed for projects/, then the run ends.
func fileEachNote(req api.ChatRequest) (ollamatest.Turn, bool) {
	var note string
	for _, m := range req.Messages {
		if m.Role == "user" {
			if g := batchNote.FindStringSubmatch(m.Content); g != nil {
				note = g[1]
			}
			break
		}
	}
	if note == "" {
		return ollamatest.Turn{}, false
	}
	if req.Messages[len(req.Messages)-1].Role == "tool" {
		return ollamatest.Turn{Content: []string{"Proposed."}}, true
	}
	args, _ := json.Marshal(map[string]any{"path": "projects/" + filepath.Base(note), "tags": []string{}, "links": []string{}, "reason": "a project note"})
	return ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{Name: queue.ProposeName, Arguments: args}}}, true
}

// TestDesktopBatchReview: in the real window, "Organise a folder" over an
// inbox of three notes; the queue's workers (the fake model) propose a
// place for each; the review list shows them all, ticked; one is unticked
// with a click; Apply asks in the page, then in a native dialog, which
// xdotool answers Yes; the two ticked notes moved, the unticked one did not.
func TestDesktopBatchReview(t *testing.T) {
	display := startXvfb(t)
	fake := ollamatest.New(t, ollamatest.WithDelay(10*time.Millisecond), ollamatest.WithResponder(fileEachNote))
	fake.AddModel(ollamatest.DefaultModel())
	notesDir := t.TempDir()
	for _, n := range []string{"a", "b", "c"} {
		if err := os.MkdirAll(filepath.Join(notesDir, "inbox"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(notesDir, "inbox", n+".md"), []byte("# "+n+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	probe := filepath.Join(t.TempDir(), "view.json")
	a := startApp(t, display, t.TempDir(), probe, fake.URL(), "QUIRE_NOTES_DIR="+notesDir)
	failedShot(t, display, probe, "desktop-batch-FAILED.png")
	waitView(t, a, probe, "the frontend to load", func(v view) bool { return v.Messages != nil })
	w := findWindow(t, display, a, probe)

	w.click("batches-open")
	w.click("batch-start") // the folder field says inbox
	v := waitView(t, a, probe, "the review list", func(v view) bool {
		return v.Batch != nil && v.Batch.State == "reviewing" && len(v.Batch.Rows) == 3
	})
	for _, r := range v.Batch.Rows {
		if !r.Selected || r.To != "projects/"+filepath.Base(r.From) {
			t.Fatalf("the review list: %+v", v.Batch.Rows)
		}
	}
	screenshot(t, display, "desktop-batch-review.png")
	// Untick the second note with the pointer.
	tick := v.Batch.Rows[1].Tick
	run(t, display, "xdotool", "mousemove", "--sync", strconv.Itoa(w.x+tick.X), strconv.Itoa(w.y+tick.Y))
	run(t, display, "xdotool", "click", "1")
	v = waitView(t, a, probe, "the second row unticked", func(v view) bool {
		return v.Batch != nil && len(v.Batch.Rows) == 3 && !v.Batch.Rows[1].Selected && v.Batch.Rows[0].Selected && v.Batch.Rows[2].Selected
	})
	kept := v.Batch.Rows[1].From

	w.click("review-apply") // the native dialog is the one question (issue 31): the page does not ask first
	dialog := strings.Fields(run(t, display, "xdotool", "search", "--sync", "--onlyvisible", "--name", "Apply these 2 changes to your notes"))[0]
	screenshot(t, display, "desktop-batch-dialog.png")
	for _, r := range v.Batch.Rows {
		if _, err := os.Stat(filepath.Join(notesDir, r.From)); err != nil {
			t.Fatalf("%s moved before the user said yes in the dialog", r.From)
		}
	}
	run(t, display, "xdotool", "windowfocus", "--sync", dialog)
	run(t, display, "xdotool", "key", "--window", dialog, "alt+y")
	waitView(t, a, probe, "the batch applied", func(v view) bool { return v.Batch != nil && v.Batch.State == "done" })
	screenshot(t, display, "desktop-batch-applied.png")
	for _, r := range v.Batch.Rows {
		_, atFrom := os.Stat(filepath.Join(notesDir, r.From))
		_, atTo := os.Stat(filepath.Join(notesDir, r.To))
		if r.From == kept {
			if atFrom != nil || atTo == nil {
				t.Errorf("the unticked %s moved (at its place: %v, at %s: %v)", r.From, atFrom, r.To, atTo)
			}
			continue
		}
		if atFrom == nil || atTo != nil {
			t.Errorf("%s did not move to %s (at its place: %v, there: %v)", r.From, r.To, atFrom, atTo)
		}
	}
}
