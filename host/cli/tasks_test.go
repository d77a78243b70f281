package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"quire/kernel/protocol"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

// TestTasksFromTheTerminal: a standing task is added, listed, run now —
// its batch proposes and waits, the notes stay where they are — and
// `quire organise` takes that batch up and asks the one question; after
// the yes the list says what was kept. Pause, resume and remove act at
// once, and each command has its help.
func TestTasksFromTheTerminal(t *testing.T) {
	fake := ollamatest.New(t, ollamatest.WithResponder(filingModel))
	fake.AddModel(ollamatest.DefaultModel())
	notes := t.TempDir()
	inbox := []string{"inbox/a.md", "inbox/b.md"}
	for _, n := range inbox {
		testkit.WriteOld(t, filepath.Join(notes, n), "# "+n+"\n")
	}
	os.MkdirAll(filepath.Join(notes, "projects"), 0o755)
	base := []string{"-data-dir", t.TempDir(), "-ollama-host", fake.URL(), "-notes-dir", notes}
	tasks := func(args ...string) (string, string, int) {
		t.Helper()
		var out, errb bytes.Buffer
		var flags, rest []string
		for i := 0; i < len(args); i++ {
			if strings.HasPrefix(args[i], "-") {
				flags = append(flags, args[i])
				if args[i] != "-json" {
					flags = append(flags, args[i+1])
					i++
				}
				continue
			}
			rest = append(rest, args[i])
		}
		code := run(append(append(append([]string{"tasks"}, base...), flags...), rest...), &out, &errb)
		return out.String(), errb.String(), code
	}
	list := func() []protocol.StandingSummary {
		t.Helper()
		out, errs, code := tasks("list", "-json")
		var l []protocol.StandingSummary
		if code != 0 || json.Unmarshal([]byte(out), &l) != nil {
			t.Fatalf("list -json: exit %d: %s %s", code, out, errs)
		}
		return l
	}

	if _, errs, code := tasks("add", "-folder", "inbox", "file the inbox", "daily", "25:00"); code != 1 || !strings.Contains(errs, "HH:MM") {
		t.Fatalf("a bad time: exit %d: %s", code, errs)
	}
	out, errs, code := tasks("add", "-folder", "inbox", "-instruction", "projects go under projects/", "file the inbox", "daily", "18:30")
	if code != 0 || !strings.Contains(out, "daily at 18:30") {
		t.Fatalf("add: exit %d: %s %s", code, out, errs)
	}
	l := list()
	if len(l) != 1 || l[0].Task.Folder != "inbox" || l[0].NextMs == 0 || l[0].Last != nil {
		t.Fatalf("listed %+v", l)
	}
	id := l[0].Task.ID
	if out, _, code := tasks("pause", id); code != 0 || !strings.Contains(out, "paused") || !list()[0].Task.Paused {
		t.Fatalf("pause: exit %d: %s", code, out)
	}
	if out, _, code := tasks("resume", id); code != 0 || list()[0].Task.Paused {
		t.Fatalf("resume: exit %d: %s", code, out)
	}
	if out, errs, code := tasks("run-now", id); code != 0 || !strings.Contains(out, "waits for your review") {
		t.Fatalf("run-now: exit %d: %s %s", code, out, errs)
	}
	if got := notesOn(t, notes); !slices.Equal(got, inbox) {
		t.Fatalf("the firing changed the notes before the review: %v", got)
	}
	var o, e bytes.Buffer
	if code := runIn(append(append([]string{"organise"}, base...), "inbox"), strings.NewReader("y\n"), &o, &e); code != 0 ||
		strings.Count(o.String(), "Apply these 2 changes?") != 1 {
		t.Fatalf("organise: exit %d: %s %s", code, o.String(), e.String())
	}
	if got := notesOn(t, notes); !slices.Equal(got, []string{"projects/a.md", "projects/b.md"}) {
		t.Fatalf("after the yes: %v", got)
	}
	if l := list(); l[0].Kept != 2 || l[0].Proposed != 2 || l[0].Waiting || l[0].Last == nil || l[0].Last.Step != "proposed" {
		t.Fatalf("after the yes: %+v", l[0])
	}
	if out, _, code := tasks("list"); code != 0 || !strings.Contains(out, "2 proposed, 2 kept") {
		t.Fatalf("list: %s", out)
	}
	if _, _, code := tasks("remove", id); code != 0 || len(list()) != 0 {
		t.Fatalf("remove: exit %d", code)
	}
	if _, errs, code := tasks("remove", id); code != 1 || !strings.Contains(errs, "no standing task") {
		t.Fatalf("remove again: exit %d: %s", code, errs)
	}
	if out, _, code := tasks("help", "add"); code != 0 || !strings.Contains(out, "daily HH:MM") {
		t.Fatalf("help add: %s", out)
	}
	if _, errs, code := tasks("nonsense"); code != 2 || !strings.Contains(errs, "quire tasks run-now ID") {
		t.Fatalf("usage: exit %d: %s", code, errs)
	}
}
