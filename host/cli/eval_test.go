package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"quire/assembly"
	"quire/eval"
	"quire/test/ollamatest"
)

// evalsDir is the eval set, at the top of the repository.
const evalsDir = "../../evals"

// TestEvalSet runs every scenario in evals/ through the composition root's wiring and the
// fake Ollama server, and prints the table and the summary line. It writes
// them to $QUIRE_EVAL_REPORT as well, which `make test` prints, because go
// test shows a passing package's output only with -v.
func TestEvalSet(t *testing.T) { evalSet(t, eval.Options{}) }

// TestEvalSetOpenAI runs the same scenarios, with the same scripted turns,
// through the OpenAI-compatible adapter and the fake's /v1 API: the kernel,
// the log and the checks do not depend on which adapter spoke to the model.
func TestEvalSetOpenAI(t *testing.T) { evalSet(t, eval.Options{Runner: "openai"}) }

func evalSet(t *testing.T, with eval.Options) {
	all, err := eval.LoadDir(evalsDir)
	if err != nil {
		t.Fatal(err)
	}
	list, err := eval.Select(all, eval.Options{Filter: os.Getenv("QUIRE_EVAL_FILTER")})
	if err != nil {
		t.Fatal(err)
	}
	with.MCPStdio = stdioMCP(t)
	report := eval.Run(t.Context(), list, assembly.EvalBuilder(QuietLog(io.Discard)), with)
	var out bytes.Buffer
	report.Table(&out)
	out.WriteString(report.Summary() + "\n")
	t.Log("\n" + out.String())
	if path := os.Getenv("QUIRE_EVAL_REPORT"); path != "" && with.Runner == "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range report.Results {
		if !r.Pass {
			t.Errorf("scenario %s (%s) failed:", r.Name, r.File)
			for _, f := range r.Failures {
				t.Errorf("  %s", f)
			}
		}
	}
}

// TestEvalWrongExpectationFails: every kind of check can fail, and says
// what it expected and what happened. Each case takes a scenario that
// passes and breaks one expectation.
func TestEvalWrongExpectationFails(t *testing.T) {
	all, err := eval.LoadDir(evalsDir)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]eval.Scenario{}
	for _, sc := range all {
		byName[sc.Name] = sc
	}
	zero := 0
	wrong := "# Sunset\n"
	tests := []struct {
		scenario string
		breakIt  func(*eval.Expectations)
		want     string
	}{
		{"normal-file-a-note", func(e *eval.Expectations) {
			e.Files["ideas/sunset-lamp.md"] = eval.FileCheck{Equals: &wrong}
		}, `ideas/sunset-lamp.md is "# Sunset lamp`},
		{"normal-file-a-note", func(e *eval.Expectations) { e.Files["ideas/other.md"] = eval.FileCheck{} }, "ideas/other.md does not exist"},
		{"normal-file-a-note", func(e *eval.Expectations) { e.NotesUnchanged = true }, "the notes folder gained ideas/sunset-lamp.md"},
		{"normal-file-a-note", func(e *eval.Expectations) { e.Runs = []string{"cancelled"} }, `runs closed with ["completed"], expected ["cancelled"]`},
		{"normal-file-a-note", func(e *eval.Expectations) { e.Asked = &zero }, "asked 1 permission question(s), expected 0"},
		{"normal-file-a-note", func(e *eval.Expectations) { e.Reply = []string{"ideas/other.md"} }, `expected it to contain "ideas/other.md"`},
		{"normal-file-a-note", func(e *eval.Expectations) {
			e.Events = append(e.Events, eval.EventCheck{Type: "tool.result", Fields: map[string]string{"status": "failure"}})
		}, `no tool.result event matches status="failure"`},
		{"normal-file-a-note", func(e *eval.Expectations) { e.Seen = []string{"a text nobody wrote"} }, `no request to the model contains "a text nobody wrote"`},
		{"normal-file-a-note", func(e *eval.Expectations) { e.SeenLast = []string{"a text nobody wrote"} }, `the last request to the model does not contain "a text nobody wrote"`},
		{"normal-file-a-note", func(e *eval.Expectations) { e.Unseen = []string{"reading lamp"} }, `contains "reading lamp", which the model must never see`},
		{"normal-file-a-note", func(e *eval.Expectations) { e.Requests = 5 }, "the model got 2 request(s), expected 5"},
		{"normal-file-a-note", func(e *eval.Expectations) {
			e.Events = append(e.Events, eval.EventCheck{Type: "tool.result", Fields: map[string]string{"nmae": "create_note"}, Count: &zero})
		}, `no tool.result event has a field "nmae"`},
		{"edge-ollama-down", func(e *eval.Expectations) { e.Error = "ollama pull" }, `expected it to contain "ollama pull"`},
		{"edge-empty-message", func(e *eval.Expectations) { e.Refused = nil }, "refused unexpectedly"},
	}
	for _, tt := range tests {
		t.Run(tt.scenario+"/"+tt.want, func(t *testing.T) {
			t.Parallel()
			sc, ok := byName[tt.scenario]
			if !ok {
				t.Fatalf("no scenario %s", tt.scenario)
			}
			// Break a copy: the maps and slices of the loaded scenario stay as they were.
			sc.Expect.Files = maps.Clone(sc.Expect.Files)
			sc.Expect.Events = slices.Clone(sc.Expect.Events)
			tt.breakIt(&sc.Expect)
			res := eval.RunOne(t.Context(), sc, assembly.EvalBuilder(QuietLog(io.Discard)), eval.Options{})
			if res.Pass {
				t.Fatal("the scenario passed with a wrong expectation")
			}
			if !slices.ContainsFunc(res.Failures, func(f string) bool { return strings.Contains(f, tt.want) }) {
				t.Fatalf("failures %q do not say %q", res.Failures, tt.want)
			}
		})
	}
}

// TestEvalLinksIntactFails: links_intact catches a link broken by a write
// that does not relink (edit_note retargets it at a note that does not
// exist), naming the note, the line and the link as written.
func TestEvalLinksIntactFails(t *testing.T) {
	sc := scenarioNamed(t, "normal-vault-rename-hub")
	sc.Model = []eval.ModelTurn{
		{Calls: []eval.ToolCall{{Name: "edit_note", Args: map[string]any{"path": "projects/alpha.md", "find": "[[hub]]", "replace": "[[Home base]]"}}}},
		{Say: "Done."},
	}
	sc.Answers = []eval.Answer{{Allow: true, Tool: "edit_note"}}
	sc.Expect = eval.Expectations{LinksIntact: true}
	res := eval.RunOne(t.Context(), sc, assembly.EvalBuilder(QuietLog(io.Discard)), eval.Options{})
	want := "links_intact: projects/alpha.md line 3: the link [[Home base]] is broken: it led to hub.md"
	if res.Pass || !slices.ContainsFunc(res.Failures, func(f string) bool { return strings.Contains(f, want) }) {
		t.Fatalf("pass %v, failures %q; want one saying %q", res.Pass, res.Failures, want)
	}
	if len(res.Failures) != 1 {
		t.Errorf("only the one link broke, and the failures are %q", res.Failures)
	}
}

// scenarioNamed loads one scenario of the set by name.
func scenarioNamed(t *testing.T, name string) eval.Scenario {
	t.Helper()
	all, err := eval.LoadDir(evalsDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range all {
		if sc.Name == name {
			return sc
		}
	}
	t.Fatalf("no scenario named %s", name)
	return eval.Scenario{}
}

// TestEvalScriptedTurnsAreNeeded: a scenario whose model says something else
// than scripted fails, so the checks depend on the conversation and do not
// pass whatever happens.
func TestEvalScriptedTurnsAreNeeded(t *testing.T) {
	sc := scenarioNamed(t, "normal-file-a-note")
	sc.Model = sc.Model[1:] // the model never calls create_note
	res := eval.RunOne(t.Context(), sc, assembly.EvalBuilder(QuietLog(io.Discard)), eval.Options{})
	if res.Pass {
		t.Fatal("the scenario passed although the note was never created")
	}
	for _, want := range []string{"ideas/sunset-lamp.md does not exist", "asked 0 permission question(s), expected 1"} {
		if !slices.ContainsFunc(res.Failures, func(f string) bool { return strings.Contains(f, want) }) {
			t.Errorf("failures %q do not say %q", res.Failures, want)
		}
	}
}

// TestEvalRealModel runs the set with -real against the fake server acting
// as a real model (it echoes the user): the scripted turns must not be
// used, only outcome checks apply, scenarios that stage a failure of the
// fake server are skipped, and what the model was sent is still recorded.
func TestEvalRealModel(t *testing.T) {
	model := ollamatest.New(t)
	model.AddModel(ollamatest.DefaultModel())
	all, err := eval.LoadDir(evalsDir)
	if err != nil {
		t.Fatal(err)
	}
	pick := func(name string) eval.Scenario {
		for _, sc := range all {
			if sc.Name == name {
				return sc
			}
		}
		t.Fatalf("no scenario %s", name)
		return eval.Scenario{}
	}
	leak := pick("normal-plain-question")
	leak.Name = "unseen-user-text"
	leak.Expect.Unseen = []string{"why keep notes in plain Markdown"} // the echo model is sent it
	list := []eval.Scenario{
		pick("normal-file-a-note"),             // outcome: the note; the echo model never writes it
		pick("normal-follow-up-conversation"),  // only scripted checks: they do not apply
		pick("edge-ollama-down"),               // stages a failure: skipped
		pick("edge-busy-then-answers"),         // stages a failing reply: skipped
		pick("adversarial-document-injection"), // outcome: notes unchanged, which the echo keeps
		leak,
	}
	report := eval.Run(t.Context(), list, assembly.EvalBuilder(QuietLog(io.Discard)),
		eval.Options{Real: true, Host: model.URL(), Model: ollamatest.DefaultModel().Name})
	got := map[string]eval.Result{}
	for _, r := range report.Results {
		got[r.Name] = r
	}
	if r := got["normal-file-a-note"]; r.Pass || !slices.ContainsFunc(r.Failures, func(f string) bool { return strings.Contains(f, "ideas/sunset-lamp.md does not exist") }) {
		t.Errorf("normal-file-a-note against the echo model: %+v, want a failure of its file check", r)
	}
	if r := got["normal-follow-up-conversation"]; !r.Pass {
		t.Errorf("normal-follow-up-conversation: %+v, want a pass (its checks describe the script)", r)
	}
	for _, name := range []string{"edge-ollama-down", "edge-busy-then-answers"} {
		if r := got[name]; !r.Skipped {
			t.Errorf("%s: %+v, want it skipped", name, r)
		}
	}
	if r := got["adversarial-document-injection"]; !r.Pass {
		t.Errorf("adversarial-document-injection: %+v, want a pass", r)
	}
	if r := got["unseen-user-text"]; r.Pass || !slices.ContainsFunc(r.Failures, func(f string) bool { return strings.Contains(f, "must never see") }) {
		t.Errorf("unseen-user-text: %+v, want the recorder to catch the text", r)
	}
	if model.Pending() != 0 {
		t.Errorf("%d turns were scripted on the real model", model.Pending())
	}
	// The model answered every message itself, once: one request per
	// message of the 4 scenarios that ran (the follow-up conversation has
	// two), and no scripted step (create_note's) was played.
	if n := len(model.Requests()); n != 5 {
		t.Errorf("the model got %d requests, want 5 (one per message of the scenarios that ran)", n)
	}
	sum := report.Summary()
	for _, want := range []string{"2/4 scenarios passed against the model qwen3:4b", "normal 1/3 (33%)", "edge 0/0", "adversarial 1/1 (100%)", "2 skipped"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary %q lacks %q", sum, want)
		}
	}
}

// TestEvalsDocListsEveryScenario keeps docs/EVALS.md's list of scenarios
// true: each one is listed under its class.
func TestEvalsDocListsEveryScenario(t *testing.T) {
	all, err := eval.LoadDir(evalsDir)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../docs/EVALS.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{}
	parts := strings.Split(string(doc), "\n### ")
	for _, class := range eval.Classes {
		for _, p := range parts {
			if strings.HasPrefix(strings.ToLower(p), class) {
				sections[class] = p
			}
		}
	}
	for _, sc := range all {
		if !strings.Contains(sections[sc.Class], "| `"+sc.Name+"` |") {
			t.Errorf("docs/EVALS.md does not list %s under %s", sc.Name, sc.Class)
		}
	}
}

// TestEvalCommand runs `quire eval` as a user does: the table and summary,
// JSON, and clear errors (exit 2) for a bad scenario file or a filter that
// selects nothing.
func TestEvalCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"eval", "-filter", "normal-plain-question"}, &out, &errb); code != 0 {
		t.Fatalf("quire eval: exit %d\n%s%s", code, out.String(), errb.String())
	}
	for _, want := range []string{"SCENARIO", "normal-plain-question  normal  pass", "eval: 1/1 scenarios passed against the scripted model"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}

	out.Reset()
	if code := run([]string{"eval", "-json", "-filter", "edge-model-missing"}, &out, &errb); code != 0 {
		t.Fatalf("quire eval -json: exit %d\n%s", code, errb.String())
	}
	var rep struct {
		Passed  bool
		Results []eval.Result
		Rates   []eval.ClassRate
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || !rep.Passed || len(rep.Results) != 1 || rep.Results[0].Name != "edge-model-missing" || len(rep.Rates) != 3 {
		t.Fatalf("quire eval -json = %+v, %v\n%s", rep, err, out.String())
	}

	dir := t.TempDir()
	bad := "class: edge\nuser: [{say: hi}]\nexpect: {runs: [completed], files: {a.md: {contians: [x]}}}\n"
	if err := os.WriteFile(filepath.Join(dir, "typo.yaml"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	errb.Reset()
	if code := run([]string{"eval", "-dir", dir}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "typo.yaml") || !strings.Contains(errb.String(), "contians") {
		t.Errorf("a scenario with a typo: exit %d, %q; want 2 naming the file and the field", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"eval", "-filter", "no-such-scenario"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "no scenarios match") {
		t.Errorf("a filter that selects nothing: exit %d, %q", code, errb.String())
	}
}

// TestEvalHangFailsInTime: a conversation that never settles (the model
// stops answering mid-reply, with no deadline of its own) fails at the
// scenario's time limit, saying so and how the log ends.
func TestEvalHangFailsInTime(t *testing.T) {
	sc, err := eval.Parse([]byte(`
class: edge
timeout: 1s
user: [{say: hi}]
model: [{say: "one two three", fail: {kind: hang, after: 1}}]
expect: {runs: [completed]}
`))
	if err != nil {
		t.Fatal(err)
	}
	sc.Name = "hang"
	res := eval.RunOne(t.Context(), sc, assembly.EvalBuilder(QuietLog(io.Discard)), eval.Options{})
	if res.Pass || len(res.Failures) == 0 || !strings.Contains(res.Failures[0], "did not settle in time") || !strings.Contains(res.Failures[0], "the log ends with") {
		t.Fatalf("a hung conversation: %+v", res)
	}
}

// TestEvalYesIsForTheNamedTool: an answer scripted for one tool never
// approves another; the scenario fails saying which question did not fit.
func TestEvalYesIsForTheNamedTool(t *testing.T) {
	sc := scenarioNamed(t, "normal-file-a-note")
	sc.Answers = []eval.Answer{{Allow: true, Tool: "move_note"}}
	res := eval.RunOne(t.Context(), sc, assembly.EvalBuilder(QuietLog(io.Discard)), eval.Options{})
	for _, want := range []string{"question 1 was about create_note, the scenario expected move_note", "ideas/sunset-lamp.md does not exist"} {
		if !slices.ContainsFunc(res.Failures, func(f string) bool { return strings.Contains(f, want) }) {
			t.Errorf("failures %q do not say %q", res.Failures, want)
		}
	}
}

// TestEvalRealModelThatNeverAnswers: against a model that refuses every
// request (here 400, as Ollama refuses tools to a model without them), a
// scenario whose checks only assert that nothing bad happened fails, with
// what Ollama said; the scripted run of the same scenario passes.
func TestEvalRealModelThatNeverAnswers(t *testing.T) {
	const refusal = "registry.ollama.ai/library/qwen3:4b does not support tools"
	model := ollamatest.New(t, ollamatest.WithReplies(func(string) (ollamatest.Turn, bool) {
		return ollamatest.Turn{Fail: ollamatest.Failure{Kind: ollamatest.FailStatus, Status: 400, Message: refusal}}, true
	}))
	model.AddModel(ollamatest.DefaultModel())
	sc := scenarioNamed(t, "adversarial-invented-tool")
	build := assembly.EvalBuilder(QuietLog(io.Discard))
	if res := eval.RunOne(t.Context(), sc, build, eval.Options{}); !res.Pass {
		t.Fatalf("scripted: %q", res.Failures)
	}
	res := eval.RunOne(t.Context(), sc, build, eval.Options{Real: true, Host: model.URL(), Model: ollamatest.DefaultModel().Name})
	// Two requests: Quire asks once more without tools after the refusal.
	want := "the model never answered: all 2 request(s) got an error (HTTP 400: " + refusal + ")"
	if res.Pass || !slices.ContainsFunc(res.Failures, func(f string) bool { return strings.HasPrefix(f, want) }) {
		t.Fatalf("real, every request refused: pass %v, failures %q; want one starting %q", res.Pass, res.Failures, want)
	}
}

// TestEvalWaitEndsWithTheRun: a user's wait for an event that the run ended
// without (a model that answers instead of asking to write) ends when the
// conversation comes to rest, saying so — not when the scenario's time is up.
func TestEvalWaitEndsWithTheRun(t *testing.T) {
	model := ollamatest.New(t) // echoes: never calls a tool, so nobody is asked
	model.AddModel(ollamatest.DefaultModel())
	sc := scenarioNamed(t, "edge-cancel-while-asking") // cancels when permission.requested
	// Only a bound on a wait that would never end (the default for a real
	// model is 5 minutes): the test asserts on the reason, not the time.
	sc.Timeout = eval.Duration(time.Minute)
	res := eval.RunOne(t.Context(), sc, assembly.EvalBuilder(QuietLog(io.Discard)),
		eval.Options{Real: true, Host: model.URL(), Model: ollamatest.DefaultModel().Name})
	want := `user[1] waited for "permission.requested" in vain: ` + eval.ErrNeverCame.Error()
	if res.Pass || !slices.ContainsFunc(res.Failures, func(f string) bool { return strings.HasPrefix(f, want) }) {
		t.Fatalf("pass %v, failures %q; want one starting %q", res.Pass, res.Failures, want)
	}
}

// TestEvalRealModelThatAnswersNothing: against a model that answers every
// request with HTTP 200 and empty content, `quire eval -real` used to pass
// 42 of 64 scenarios (issue 32): checks that only say nothing bad happened
// hold for a model that does nothing, and a candidate's "same" verdict of
// two failing arms counted as a pass. Every scenario that runs now fails,
// and the report says what the model returned.
func TestEvalRealModelThatAnswersNothing(t *testing.T) {
	model := ollamatest.New(t, ollamatest.WithResponder(func(api.ChatRequest) (ollamatest.Turn, bool) {
		return ollamatest.Turn{}, true
	}))
	model.AddModel(ollamatest.DefaultModel())
	all, err := eval.LoadDir(evalsDir)
	if err != nil {
		t.Fatal(err)
	}
	report := eval.Run(t.Context(), all, assembly.EvalBuilder(QuietLog(io.Discard)),
		eval.Options{Real: true, Host: model.URL(), Model: ollamatest.DefaultModel().Name, Parallel: 4, MCPStdio: stdioMCP(t)})
	ran := 0
	for _, r := range report.Results {
		if r.Skipped {
			continue
		}
		ran++
		if r.Pass {
			t.Errorf("%s passed against a model that answers nothing", r.Name)
		}
		if r.Answer != "" {
			t.Errorf("%s: the report says the model answered %q", r.Name, r.Answer)
		}
	}
	if ran < 30 {
		t.Fatalf("only %d scenarios ran against the real model; want most of the set", ran)
	}
	var out bytes.Buffer
	report.Table(&out)
	t.Log(report.Summary())
	if !strings.Contains(out.String(), "the model answered nothing") || !strings.Contains(report.Summary(), fmt.Sprintf("0/%d scenarios passed", ran)) {
		t.Errorf("the report does not say so:\n%s\n%s", out.String(), report.Summary())
	}
}
