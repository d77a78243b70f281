package eval

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const goodScenario = `
class: normal
user:
  - say: "hi"
model:
  - say: "hello"
expect:
  runs: [completed]
`

// parseCase is a scenario text Parse must refuse, with a text its error
// must contain.
type parseCase struct{ name, yaml, want string }

func parseRefuses(t *testing.T, tests []parseCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tt.yaml))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Parse error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestParseRefusesWhatItDoesNotKnow: a misspelt field or value must be an
// error that names it, never a check that silently checks nothing.
func TestParseRefusesWhatItDoesNotKnow(t *testing.T) {
	t.Parallel()
	tests := []parseCase{
		{"unknown top-level field", goodScenario + "expected: {}\n", "field expected is not a field of scenario"},
		{"misspelt check", strings.Replace(goodScenario, "runs:", "run:", 1), "field run is not a field of expectations"},
		{"unknown file check", goodScenario + "  files:\n    a.md: {contain: [x]}\n", "field contain is not a field of filecheck"},
		{"unknown class", strings.Replace(goodScenario, "normal", "usual", 1), `class "usual"`},
		{"no user action", "class: edge\nexpect: {runs: [completed]}\n", "at least one action"},
		{"two actions in one", strings.Replace(goodScenario, `say: "hi"`, "say: hi\n    cancel: true", 1), "exactly one of say, cancel, restart"},
		{"unknown intent", strings.Replace(goodScenario, `say: "hi"`, "say: hi\n    intent: nudge", 1), `intent "nudge"`},
		{"bad delay", strings.Replace(goodScenario, `say: "hello"`, "say: hello\n    delay: soon", 1), `"soon" is not a duration`},
		{"unknown failure", strings.Replace(goodScenario, `say: "hello"`, "fail: {kind: explode}", 1), `fail.kind "explode"`},
		{"unknown fixture", goodScenario + "setup: {tools: [teleport]}\n", `no fixture tool "teleport"`},
		{"unknown reason", strings.Replace(goodScenario, "[completed]", "[finished]", 1), `"finished" is not a close reason`},
		{"escaping setup path", goodScenario + "setup: {notes: [{path: ../x.md, text: x}]}\n", "must be relative and stay in its folder"},
		{"unknown event type", goodScenario + "  events: [{type: tool.finished}]\n", `"tool.finished" is not an event type`},
		{"misspelt event field", goodScenario + "  events: [{type: tool.refused, fields: {stauts: denied}, count: 0}]\n", `tool.refused has no field "stauts"`},
		{"misspelt contains field", goodScenario + "  events: [{type: run.finished, contains: {errors: x}}]\n", `run.finished has no field "errors" (it has reason, error)`},
		{"unknown wait", strings.Replace(goodScenario, `say: "hi"`, "say: hi\n    when: soonish", 1), `when "soonish"`},
		{"nothing checked", "class: normal\nuser: [{say: hi}]\n", "must check something"},
		{"two documents", goodScenario + "---\n" + goodScenario, "one YAML document"},
		{"empty file", "", "empty"},
	}
	parseRefuses(t, tests)
	if _, err := Parse([]byte(goodScenario)); err != nil {
		t.Fatalf("the good scenario is refused: %v", err)
	}
}

// TestLoadDirNamesTheFile: one bad file fails the load and the error says
// which file, so a broken scenario cannot drop out of the set unnoticed.
func TestLoadDirNamesTheFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a-good.yaml", goodScenario)
	write("b-bad.yaml", strings.Replace(goodScenario, "runs:", "rusn:", 1))
	_, err := LoadDir(dir)
	if !errors.Is(err, ErrScenario) || !strings.Contains(err.Error(), "b-bad.yaml") || !strings.Contains(err.Error(), "rusn") {
		t.Fatalf("LoadDir error = %v, want ErrScenario naming b-bad.yaml and rusn", err)
	}

	write("b-bad.yaml", "name: a-good\n"+goodScenario)
	_, err = LoadDir(dir)
	if err == nil || !strings.Contains(err.Error(), `the name "a-good" is already used`) {
		t.Fatalf("LoadDir error = %v, want a duplicate name", err)
	}

	os.Remove(filepath.Join(dir, "b-bad.yaml"))
	list, err := LoadDir(dir)
	if err != nil || len(list) != 1 || list[0].Name != "a-good" || list[0].File != filepath.Join(dir, "a-good.yaml") {
		t.Fatalf("LoadDir = %+v, %v; want the one scenario named after its file", list, err)
	}

	if _, err := LoadDir(t.TempDir()); !errors.Is(err, ErrNoScenarios) {
		t.Fatalf("an empty folder: %v, want ErrNoScenarios", err)
	}
}

func TestSelect(t *testing.T) {
	t.Parallel()
	all := []Scenario{{Name: "file-a-note", Class: Normal}, {Name: "ollama-down", Class: Edge}, {Name: "loop", Class: Adversarial}}
	tests := []struct {
		filter string
		want   []string
	}{
		{"", []string{"file-a-note", "ollama-down", "loop"}},
		{"edge", []string{"ollama-down"}},
		{"note", []string{"file-a-note"}},
		{"o", []string{"file-a-note", "ollama-down", "loop"}},
	}
	for _, tt := range tests {
		got, err := Select(all, Options{Filter: tt.filter})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, sc := range got {
			names = append(names, sc.Name)
		}
		if strings.Join(names, ",") != strings.Join(tt.want, ",") {
			t.Errorf("Select(%q) = %v, want %v", tt.filter, names, tt.want)
		}
	}
	if _, err := Select(all, Options{Filter: "nothing-like-it"}); !errors.Is(err, ErrNoScenarios) {
		t.Errorf("a filter that selects nothing: %v, want ErrNoScenarios", err)
	}
}

func TestReportRatesAndSummary(t *testing.T) {
	t.Parallel()
	r := Report{Real: true, Model: "m", Results: []Result{
		{Name: "a", Class: Normal, Pass: true},
		{Name: "b", Class: Normal, Failures: []string{"x"}},
		{Name: "c", Class: Edge, Skipped: true},
		{Name: "d", Class: Adversarial, Pass: true},
	}}
	if r.Passed() {
		t.Error("a report with a failure passed")
	}
	sum := r.Summary()
	for _, want := range []string{"2/3 scenarios passed against the model m", "normal 1/2 (50%)", "edge 0/0,", "adversarial 1/1 (100%)", "1 skipped"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary %q lacks %q", sum, want)
		}
	}
	var b strings.Builder
	r.Table(&b)
	for _, want := range []string{"SCENARIO", "FAIL", "skip", "  b: x"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}
