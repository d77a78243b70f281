package cli

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"quire/test/ollamatest"
)

// quire evolve: a candidate the user writes is added and listed; it
// cannot be approved before its evaluation, nor carry a permission; each
// refusal says what to do, with exit 1, and bad usage is 2.
func TestEvolveFromTheTerminal(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	base := []string{"-data-dir", t.TempDir(), "-ollama-host", fake.URL(), "-notes-dir", t.TempDir()}
	quire := func(stdin string, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := runIn(append(append([]string{"evolve"}, base...), args...), strings.NewReader(stdin), &out, &errb)
		return code, out.String(), errb.String()
	}
	code, out, errs := quire(`{"name":"receipts","kind":"prompt","artifact":{"prompt":{"text":"File receipts under finance/receipts/YYYY."}}}`, "add", "-")
	id := regexp.MustCompile(`Added (c-[0-9a-f]+)`).FindStringSubmatch(out)
	if code != 0 || id == nil {
		t.Fatalf("add: exit %d\n%s%s", code, out, errs)
	}
	if code, out, _ = quire("", "list"); code != 0 || !strings.Contains(out, id[1]+"  receipts v1  prompt  proposed") {
		t.Fatalf("list: exit %d\n%s", code, out)
	}
	if code, out, _ = quire("", "show", id[1]); code != 0 || !strings.Contains(out, "File receipts under finance/receipts/YYYY.") ||
		!strings.Contains(out, "quire evolve eval "+id[1]) {
		t.Fatalf("show: exit %d\n%s", code, out)
	}
	for _, c := range []struct {
		name, stdin string
		args        []string
		code        int
		says        string
	}{
		{"approve before an evaluation", "", []string{"approve", id[1]}, 1, "evaluate it first"},
		{"a candidate with grants", `{"name":"r","kind":"prompt","artifact":{"prompt":{"text":"hi"}},"grants":["write_fs"]}`, []string{"add", "-"}, 1, "cannot carry permissions"},
		{"a skill that declares tools", `{"name":"s","kind":"skill","artifact":{"skill":{"skillMd":"---\nname: s\ndescription: d\nallowed-tools: move_note\n---\n"}}}`, []string{"add", "-"}, 1, `unknown field "allowed-tools"`},
		{"an unknown id", "", []string{"show", "c-nothing"}, 1, "quire evolve list"},
		{"a rollback with nothing active", "", []string{"rollback"}, 1, "nothing to roll back"},
		{"no subcommand", "", nil, 2, "usage: quire evolve"},
		{"an unknown subcommand", "", []string{"activate", id[1]}, 2, "usage: quire evolve"},
		{"show with no id", "", []string{"show"}, 2, "usage: quire evolve"},
		{"the task of a fragment", "", []string{"task", id[1]}, 1, "not a workflow"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := quire(c.stdin, c.args...)
			if code != c.code || !strings.Contains(errs, c.says) {
				t.Fatalf("exit %d, want %d saying %q\nstdout: %s\nstderr: %s", code, c.code, c.says, out, errs)
			}
		})
	}
	if _, out, _ = quire("", "list"); strings.Count(out, "  prompt  ") != 1 {
		t.Fatalf("a refused candidate was added:\n%s", out)
	}
	// A workflow gives its task only once approved and activated.
	code, out, errs = quire(`{"name":"file inbox","kind":"workflow","artifact":{"workflow":{"task":"File the notes of {folder} by my rules.","params":[{"name":"folder","default":"inbox"}]}}}`, "add", "-")
	wf := regexp.MustCompile(`Added (c-[0-9a-f]+)`).FindStringSubmatch(out)
	if code != 0 || wf == nil {
		t.Fatalf("add a workflow: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs = quire("", "-set", "folder=later", "task", wf[1]); code != 1 || !strings.Contains(errs, "approved and activated") {
		t.Fatalf("the task of a proposed workflow: exit %d: %s", code, errs)
	}
}
