package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"quire/config"
	"quire/kernel/protocol"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

var taskRe = regexp.MustCompile(`Organise the note (\S+)\. `)

// filingModel is a worker that files every note under projects/.
func filingModel(req api.ChatRequest) (ollamatest.Turn, bool) {
	last := req.Messages[len(req.Messages)-1]
	if last.Role == "tool" {
		return ollamatest.Turn{Content: []string{"Done."}}, true
	}
	m := taskRe.FindStringSubmatch(last.Content)
	if m == nil {
		return ollamatest.Turn{}, false
	}
	args, _ := json.Marshal(map[string]any{"path": "projects/" + filepath.Base(m[1]), "tags": []string{"project"}, "reason": "it names a project"})
	return ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{Name: "propose", Arguments: args}}}, true
}

func notesOn(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(out)
	return out
}

// quire organise prints the whole list and asks once; the answer decides
// what happens to every note, and -undo puts an applied batch back.
func TestOrganiseAsksOnce(t *testing.T) {
	inbox := []string{"inbox/a.md", "inbox/b.md", "inbox/c.md"}
	filed := []string{"projects/a.md", "projects/b.md", "projects/c.md"}
	cases := []struct {
		name  string
		flags []string
		stdin string
		code  int
		asks  int
		want  []string
		says  string
	}{
		{"yes", nil, "y\n", 0, 1, filed, "Applied: 3 notes changed"},
		{"no", nil, "n\n", 0, 1, inbox, "Nothing was changed."},
		{"no answer", nil, "", 0, 1, inbox, "Nothing was changed."},
		{"approve all", []string{"-approve", "all"}, "", 0, 0, filed, "Applied: 3 notes changed"},
		{"approve none", []string{"-approve", "none"}, "y\n", 0, 0, inbox, "Nothing was changed."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fake := ollamatest.New(t, ollamatest.WithResponder(filingModel))
			fake.AddModel(ollamatest.DefaultModel())
			notes := t.TempDir()
			for _, n := range inbox {
				testkit.WriteOld(t, filepath.Join(notes, n), "# "+n+"\n")
			}
			os.MkdirAll(filepath.Join(notes, "projects"), 0o755)
			base := []string{"-data-dir", t.TempDir(), "-ollama-host", fake.URL(), "-notes-dir", notes}
			var out, errb bytes.Buffer
			args := append(append(append([]string{"organise"}, base...), c.flags...), "inbox")
			if code := runIn(args, strings.NewReader(c.stdin), &out, &errb); code != c.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, c.code, errb.String())
			}
			if n := strings.Count(out.String(), "Apply these 3 changes?"); n != c.asks {
				t.Fatalf("asked %d times:\n%s", n, out.String())
			}
			if !strings.Contains(out.String(), "inbox/a.md → projects/a.md  tags: project") || !strings.Contains(out.String(), c.says) {
				t.Fatalf("stdout:\n%s", out.String())
			}
			if strings.Count(errb.String(), "[") < 3 {
				t.Fatalf("no progress on stderr: %s", errb.String())
			}
			if got := notesOn(t, notes); !slices.Equal(got, c.want) {
				t.Fatalf("notes %v, want %v", got, c.want)
			}
			if c.code != 0 || !slices.Equal(c.want, filed) {
				return
			}
			id := regexp.MustCompile(`-undo (batch_\w+)`).FindStringSubmatch(out.String())
			if id == nil {
				t.Fatalf("no undo line: %s", out.String())
			}
			out.Reset()
			if code := run(append(append([]string{"organise"}, base...), "-undo", id[1]), &out, &errb); code != 0 {
				t.Fatalf("undo: exit %d: %s", code, errb.String())
			}
			if got := notesOn(t, notes); !slices.Equal(got, inbox) {
				t.Fatalf("after undo: %v", got)
			}
		})
	}
}

// A folder that cannot be organised is said, with exit 1; bad usage is 2.
func TestOrganiseRefusals(t *testing.T) {
	fake := ollamatest.New(t, ollamatest.WithResponder(filingModel))
	fake.AddModel(ollamatest.DefaultModel())
	notes := t.TempDir()
	base := []string{"-data-dir", t.TempDir(), "-ollama-host", fake.URL(), "-notes-dir", notes}
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"missing"}, 1, "does not exist"},
		{[]string{}, 2, "usage"},
		{[]string{"-approve", "maybe", "inbox"}, 2, "usage"},
	} {
		var out, errb bytes.Buffer
		if code := run(append(append([]string{"organise"}, base...), c.args...), &out, &errb); code != c.code || !strings.Contains(errb.String(), c.says) {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, errb.String())
		}
	}
}

// While `quire serve` (or the window) owns the data folder, `quire organise`
// goes through its task queue over the local channel: the owner's workers
// read the notes, the list and its one question are here, the yes applies
// there, and -undo puts the batch back the same way. Another kind of
// holder is refused, naming it, without opening the database.
func TestOrganiseGoesThroughTheRunningOwner(t *testing.T) {
	fake := ollamatest.New(t, ollamatest.WithResponder(filingModel))
	fake.AddModel(ollamatest.DefaultModel())
	dir, notes := t.TempDir(), t.TempDir()
	inbox, filed := []string{"inbox/a.md", "inbox/b.md"}, []string{"projects/a.md", "projects/b.md"}
	for _, n := range inbox {
		testkit.WriteOld(t, filepath.Join(notes, n), "# "+n+"\n")
	}
	os.MkdirAll(filepath.Join(notes, "projects"), 0o755)
	settings := config.NewStore(config.Config{DataDir: dir, OllamaHost: fake.URL(), Model: "qwen3:4b", NumCtx: 8192, NotesDir: notes,
		Batch: config.BatchSettings{Workers: 2}})
	p := servingOwner(t, settings)

	var out, errb bytes.Buffer
	if code := runIn([]string{"organise", "-data-dir", dir, "inbox"}, strings.NewReader("y\n"), &out, &errb); code != 0 {
		t.Fatalf("organise through the owner: exit %d\nstdout: %s\nstderr: %s", code, out.String(), errb.String())
	}
	if !strings.Contains(errb.String(), "This data folder is owned by `quire serve` (process") || strings.Count(errb.String(), "[") < 2 ||
		strings.Count(out.String(), "Apply these 2 changes?") != 1 || !strings.Contains(out.String(), "Applied: 2 notes changed") {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	}
	if got := notesOn(t, notes); !slices.Equal(got, filed) {
		t.Fatalf("notes %v, want %v", got, filed)
	}
	list, err := p.Batches().List(t.Context())
	if err != nil || len(list) != 1 || list[0].State != protocol.BatchDone {
		t.Fatalf("the owner's batches: %+v %v", list, err)
	}
	out.Reset()
	if code := run([]string{"organise", "-data-dir", dir, "-undo", list[0].ID}, &out, &errb); code != 0 || !strings.Contains(out.String(), "Undone: ") {
		t.Fatalf("undo through the owner: exit %d, %s / %s", code, out.String(), errb.String())
	}
	if got := notesOn(t, notes); !slices.Equal(got, inbox) {
		t.Fatalf("after undo: %v", got)
	}

	refusedWhileIndexing(t, "organise", "inbox")
}
