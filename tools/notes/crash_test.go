package notes

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"quire/kernel/tool"
	"quire/test/crashtest"
)

const crashChildEnv = "QUIRE_NOTES_CRASH_CHILD" // "notes dir|journal dir|step to stop at"

// TestMain lets the test binary double as the Quire the crash test kills.
func TestMain(m *testing.M) { crashtest.Main(m, crashChildEnv, crashChild) }

// crashChild renames the hub of a many-note folder through move_note,
// saying each step of the apply on stdout, and at the step it was given
// stops there (it waits to be killed).
func crashChild(spec string) {
	parts := strings.Split(spec, "|")
	dir, journals, stop := parts[0], parts[1], parts[2]
	r, err := Open(dir, WithJournal(journals), withApplyHook(func(s applyStep) {
		fmt.Println(s)
		if s == stop {
			fmt.Println("stopped")
			select {}
		}
	}))
	if err != nil {
		fmt.Fprintln(os.Stderr, "child open:", err)
		os.Exit(3)
	}
	mv := findTool(Tools(r, nil), "move_note")
	res, err := mv.Run(context.Background(), tool.Call{ID: "crash", Name: "move_note", Arguments: json.RawMessage(`{"from":"hub.md","to":"topics/hub renamed.md"}`)})
	if err != nil || res.Status != tool.Success {
		fmt.Fprintln(os.Stderr, "child move:", err, res.Content)
		os.Exit(3)
	}
	fmt.Println("finished")
	os.Exit(0)
}

func findTool(ts []tool.Tool, name string) tool.Tool {
	for _, t := range ts {
		if t.Spec().Name == name {
			return t
		}
	}
	return nil
}

// hubVault writes n notes that each link to hub.md, in wiki and markdown
// form, some in folders.
func hubVault(t testing.TB, dir string, n int) {
	t.Helper()
	write := func(rel, text string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("hub.md", "# Hub\n\n## Part\n")
	for i := range n {
		switch i % 3 {
		case 0:
			write(fmt.Sprintf("n%04d.md", i), fmt.Sprintf("# Note %d\n\nSee [[hub]] and [[hub#Part|the part]].\n", i))
		case 1:
			write(fmt.Sprintf("deep/n%04d.md", i), fmt.Sprintf("# Note %d\n\nSee [the hub](../hub.md).\n", i))
		default:
			write(fmt.Sprintf("n%04d.md", i), fmt.Sprintf("# Note %d\n\nNothing to see; ![[hub]]\n", i))
		}
	}
}

// TestKilledRelinkRecoversAllOrNothing kills (SIGKILL) a process renaming a
// note 60 others link to at each step of its apply — after the journal,
// after staging, after the first, the 30th and the last note rewritten, and
// after the rename — then opens the folder again: it is byte for byte the
// whole before (a move whose result never reached a log is not kept, even
// whole), never a mix, and the recovery says so and names the call. A run
// that is not killed leaves the whole after.
func TestKilledRelinkRecoversAllOrNothing(t *testing.T) {
	const notes = 60 // each links to the hub
	stops := []applyStep{"journal", "staged", "edit 1", "edit 30", "edit 60", "renamed", "moved"}
	crash := crashtest.New(t, crashChildEnv, len(stops))

	base := t.TempDir()
	hubVault(t, filepath.Join(base, "before"), notes)
	before := snapshot(t, filepath.Join(base, "before"))
	done := filepath.Join(base, "after")
	hubVault(t, done, notes)
	r, err := Open(done, WithJournal(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	res, _ := findTool(Tools(r, nil), "move_note").Run(t.Context(), tool.Call{ID: "x", Name: "move_note", Arguments: json.RawMessage(`{"from":"hub.md","to":"topics/hub renamed.md"}`)})
	r.Close()
	if c, ok := res.Data.(Change); !ok || len(c.Edits) != notes {
		t.Fatalf("the move in one go: %s", res.Content)
	}
	after := snapshot(t, done)

	for i, stop := range stops {
		dir, journals := filepath.Join(base, fmt.Sprint("run", i)), filepath.Join(base, fmt.Sprint("journal", i))
		hubVault(t, dir, notes)
		child := crash.Start(dir + "|" + journals + "|" + stop)
		for {
			line, ok := child.Line()
			if !ok {
				t.Fatalf("the child ended before %s: %s", stop, child.Stderr())
			}
			if line == "stopped" {
				break
			}
		}
		if !child.Kill() {
			t.Fatalf("the child was not killed at %s", stop)
		}
		again, err := Open(dir, WithJournal(journals))
		if err != nil {
			t.Fatal(err)
		}
		rec := again.Recovered()
		again.Close()
		if len(rec) != 1 || len(rec[0].Problems) > 0 || rec[0].Call != "crash" {
			t.Fatalf("killed at %s, recovered %+v", stop, rec)
		}
		if got := snapshot(t, dir); got != before {
			t.Fatalf("killed at %s, the folder is not the whole before:\n%s", stop, got)
		}
		contains(t, rec[0].Sentence(), "rolled back", "hub.md", "60 notes")
	}
	if after == before {
		t.Fatal("the move in one go changed nothing")
	}
}
