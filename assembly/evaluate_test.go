package assembly_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"quire/assembly"
	"quire/config"
	"quire/eval"
	"quire/evolve"
	"quire/kernel/protocol"
	"quire/kernel/runtime"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

// evalsDir is the eval set, at the top of the repository.
const evalsDir = "../evals"

// receiptsRule is a candidate fragment of the kind issue 20 names: a short
// rule the user restated.
const receiptsRule = "Receipts are filed under finance/receipts/YYYY; never move notes out of projects/ without asking."

// longRules is a candidate as long as a fragment may be
// (protocol.MaxFragment).
var longRules = strings.Repeat("Always file a note under the folder named after its first tag. ", 20)[:protocol.MaxFragment]

// tightYAML is a scenario file: a first message to a small model whose
// context is ctx tokens.
func tightYAML(ctx int) []byte {
	return fmt.Appendf(nil, `name: tight-context-first-answer
class: edge
description: A first message to a small model whose context holds today's request with little room to spare.
setup:
  model: {name: "small:1b", capabilities: [completion, tools], context_length: %d}
  num_ctx: %d
  notes:
    - {path: plan.md, text: "# Plan\n"}
user:
  - say: "Hello! Can you help me with my notes?"
model:
  - say: "Of course."
expect:
  runs: [completed]
  reply: ["Of course."]
`, ctx, ctx)
}

// tightContext is tightYAML with room for today's request but less room
// than longRules takes: the room is measured, so the scenario stays tight
// as Quire's own system text and tools change. The tools a run offers
// depend on the context (a small one gets those the request needs), so
// the measure is taken again at each smaller context until it holds.
func tightContext(t *testing.T, build eval.Builder) []byte {
	t.Helper()
	ctx := 8192
	for range 10 {
		measured := eval.RunOne(t.Context(), loadOne(t, tightYAML(ctx)), build, eval.Options{})
		if !measured.Pass {
			t.Fatalf("the scenario fails at a context of %d: %q", ctx, measured.Failures)
		}
		// longRules is some 250 tokens; 100 of room is enough without it.
		next := measured.Tokens + 100
		if next >= ctx {
			break
		}
		ctx = next
	}
	return tightYAML(ctx)
}

func loadOne(t *testing.T, yaml []byte) eval.Scenario {
	t.Helper()
	list, err := eval.LoadFS(fstest.MapFS{"tight.yaml": {Data: yaml}}, "test")
	if err != nil {
		t.Fatal(err)
	}
	return list[0]
}

// TestCompareListsTheScenariosACandidateBreaks runs a few scenarios of the
// eval set and a tight one without and with a candidate fragment through
// the root's own wiring: a rule that fits breaks nothing, one that
// overflows a small model's context breaks the scenario that passed
// without it, and the report names it.
func TestCompareListsTheScenariosACandidateBreaks(t *testing.T) {
	t.Parallel()
	all, err := eval.LoadDir(evalsDir)
	if err != nil {
		t.Fatal(err)
	}
	few := slices.DeleteFunc(all, func(sc eval.Scenario) bool { return sc.Name != "normal-file-a-note" })
	if len(few) != 1 {
		t.Fatal("the eval set lacks normal-file-a-note")
	}
	build := assembly.EvalBuilder(slog.New(slog.NewTextHandler(io.Discard, nil)))
	few = append(few, loadOne(t, tightContext(t, build)))
	for _, tc := range []struct {
		name      string
		candidate string
		broken    []string
	}{
		{"a rule that fits", receiptsRule, []string{}},
		{"rules too long for a small context", longRules, []string{"tight-context-first-answer"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var progress []eval.CompareProgress
			c := eval.Compare(t.Context(), few, build, eval.CompareOptions{Candidate: tc.candidate, Options: eval.Options{Parallel: 1},
				Progress: func(p eval.CompareProgress) { progress = append(progress, p) }})
			if !c.Complete() {
				t.Fatalf("stopped: %s", c.Stopped)
			}
			if !slices.Equal(c.Regressions, tc.broken) {
				t.Errorf("regressions = %q, want %q; report: %+v", c.Regressions, tc.broken, c.Pairs)
			}
			for _, p := range c.Pairs {
				if p.Regression() && !strings.Contains(strings.Join(p.With.Failures, " "), "context") {
					t.Errorf("%s broke for another reason than the context: %q", p.Name, p.With.Failures)
				}
				if !p.Without.Pass {
					t.Errorf("%s fails without the candidate: %q", p.Name, p.Without.Failures)
				}
				if p.With.Tokens <= p.Without.Tokens && p.With.Pass {
					t.Errorf("%s: %d tokens with the candidate, %d without: the fragment did not reach the model", p.Name, p.With.Tokens, p.Without.Tokens)
				}
			}
			if len(progress) != 2 || progress[1].Done != 2 || progress[1].Total != 2 {
				t.Errorf("progress = %+v, want two calls ending at 2 of 2", progress)
			}
		})
	}
}

// TestEvaluatorReplaysTheRunsACandidateCameFrom records a run through the
// root's wiring (the user asks for a receipt to be filed and says yes) and
// evaluates a candidate that names it as its origin, over a scenario of the
// eval set and the replay of that run: both end as they should in both
// arms, the candidate's text is sent, the version it would replace is the
// "without" side, and the replay works in a temporary folder, never the
// notes folder the run changed.
func TestEvaluatorReplaysTheRunsACandidateCameFrom(t *testing.T) {
	t.Parallel()
	fake, err := ollamatest.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	fake.AddModel(ollamatest.DefaultModel())
	fake.Script(
		ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{Name: "create_note", Arguments: json.RawMessage(`{"path":"finance/receipts/2026/lamp.md","content":"# Lamp receipt\n"}`)}}},
		ollamatest.Turn{Content: []string{"Filed it under finance/receipts/2026."}})
	notes := t.TempDir()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	inst, err := assembly.EvalBuilder(logger)(t.Context(), eval.Env{DataDir: t.TempDir(), NotesDir: notes, OllamaHost: fake.URL(), Model: ollamatest.DefaultModel().Name, NumCtx: 8192,
		Ask: func(context.Context, runtime.Question) (runtime.Answer, error) {
			return runtime.Answer{Allowed: true}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	sess, err := protocol.Run[protocol.Session](t.Context(), inst.Kernel, "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "receipts"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := protocol.Run[protocol.SendResult](t.Context(), inst.Kernel, "", protocol.SendMessage,
		protocol.SendMessagePayload{Session: sess.ID, Text: "File the lamp receipt."}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitRuns(t, inst.Kernel, sess.ID, 1)
	evs, err := inst.Kernel.Events(t.Context(), sess.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var runID string
	for _, e := range evs {
		if e.Type == "run.started" {
			runID = e.RunID
		}
	}
	filed := filepath.Join(notes, "finance", "receipts", "2026", "lamp.md")
	if err := os.Remove(filed); err != nil {
		t.Fatalf("the recorded run did not file the note: %v", err)
	}
	set, err := os.ReadFile(filepath.Join(evalsDir, "normal-file-a-note.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ev := assembly.NewEvaluator(logger, fstest.MapFS{"normal-file-a-note.yaml": {Data: set}}, inst.Kernel, eval.CompareOptions{})
	prompt := func(id, text string) protocol.Candidate {
		return protocol.Candidate{ID: id, Kind: protocol.CandidatePrompt, Artifact: protocol.Artifact{Prompt: &protocol.PromptFragment{Text: text}},
			Origin: protocol.CandidateOrigin{Runs: []protocol.RunRef{{Session: sess.ID, Run: runID}}}}
	}

	r, err := ev.Evaluate(t.Context(), prompt("c1", receiptsRule), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Scenarios) != 2 || r.Scenarios[0].Name != "normal-file-a-note" || r.Scenarios[1].Replay == nil || r.Scenarios[1].Replay.Run != runID {
		t.Fatalf("scenarios = %+v, want the eval set's one and the replay of run %s", r.Scenarios, runID)
	}
	if r.Candidate != "c1" || len(r.Regressions()) != 0 {
		t.Errorf("candidate %q, regressions %q", r.Candidate, r.Regressions())
	}
	for _, s := range r.Scenarios {
		if !s.Without.Passed || !s.With.Passed || s.With.Tokens <= s.Without.Tokens {
			t.Errorf("%s: without %+v, with %+v: want both passing and more tokens with the candidate", s.Name, s.Without, s.With)
		}
	}
	if _, err := os.Stat(filed); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the replay wrote into the run's notes folder (%v)", err)
	}

	// Against the active version: a short rule in place of a long one
	// sends fewer tokens than the long one did.
	active := prompt("c0", longRules)
	r, err = ev.Evaluate(t.Context(), prompt("c1", receiptsRule), &active, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range r.Scenarios {
		if s.With.Tokens >= s.Without.Tokens {
			t.Errorf("%s: %d tokens with the shorter version, %d with the active one", s.Name, s.With.Tokens, s.Without.Tokens)
		}
	}

	skill := protocol.Candidate{ID: "c2", Kind: protocol.CandidateSkill, Artifact: protocol.Artifact{Skill: &protocol.SkillArtifact{SkillMD: "---\nname: x\n---\n"}}}
	if _, err := ev.Evaluate(t.Context(), skill, nil, nil); !errors.Is(err, assembly.ErrNotEvaluable) {
		t.Errorf("a skill whose SKILL.md lacks a description: err = %v, want ErrNotEvaluable", err)
	}
	// A skill that parses runs the eval set and the origin replay, with it
	// installed in the temporary skills folder and without.
	skill = protocol.Candidate{ID: "c3", Name: "receipts", Kind: protocol.CandidateSkill,
		Artifact: protocol.Artifact{Skill: &protocol.SkillArtifact{SkillMD: "---\nname: receipts\ndescription: File receipts.\n---\nFile them by year.\n"}},
		Origin:   protocol.CandidateOrigin{Runs: []protocol.RunRef{{Session: sess.ID, Run: runID}}}}
	if r, err := ev.Evaluate(t.Context(), skill, nil, nil); err != nil || len(r.Scenarios) < 2 || r.Scenarios[len(r.Scenarios)-1].Replay == nil {
		t.Errorf("a skill: %+v, %v; want the eval set and the origin replay", r, err)
	}

	// A workflow: its filled task as the user's message (against the
	// active version's shorter task), and the origin run replayed as it
	// was and with the task as its first message; not the eval set, which
	// a workflow does not change.
	workflow := func(id, task string, params ...protocol.WorkflowParam) protocol.Candidate {
		return protocol.Candidate{ID: id, Name: "file receipts", Kind: protocol.CandidateWorkflow,
			Artifact: protocol.Artifact{Workflow: &protocol.WorkflowArtifact{Task: task, Params: params}},
			Origin:   protocol.CandidateOrigin{Runs: []protocol.RunRef{{Session: sess.ID, Run: runID}}}}
	}
	long := workflow("w2", "File every receipt of {folder} under finance/receipts/YYYY by the year printed on it, and tag it #receipt.",
		protocol.WorkflowParam{Name: "folder", Default: "inbox"})
	was := workflow("w1", "File the receipts.")
	var seen []string
	r, err = ev.Evaluate(t.Context(), long, &was, func(done, total int, sc string) { seen = append(seen, fmt.Sprintf("%d/%d %s", done, total, sc)) })
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Scenarios) != 2 || r.Scenarios[0].Name != "workflow: file receipts" || r.Scenarios[1].Replay == nil {
		t.Fatalf("a workflow's scenarios = %+v, want its task and the replay", r.Scenarios)
	}
	for _, s := range r.Scenarios {
		if !s.Without.Passed || !s.With.Passed || s.With.Tokens <= s.Without.Tokens {
			t.Errorf("%s: without %+v, with %+v: want both passing, the longer task sending more", s.Name, s.Without, s.With)
		}
	}
	if len(seen) != 3 || seen[0] != "0/2 " || !strings.HasPrefix(seen[2], "2/2 ") {
		t.Errorf("progress = %q, want 0/2 then one call per scenario", seen)
	}
	if _, err := ev.Evaluate(t.Context(), workflow("w3", "File {folder}.", protocol.WorkflowParam{Name: "folder"}), nil, nil); !errors.Is(err, assembly.ErrNotEvaluable) {
		t.Errorf("a workflow without defaults: err = %v, want ErrNotEvaluable", err)
	}
}

// TestApprovalNeedsTheRegressionsTheEvaluationFound goes through the
// composition root as the panel and `quire evolve` do: the owner's
// evolution runs its evaluation over the eval set it was given, a
// candidate that breaks a scenario is refused approval until the user
// names that scenario, and one that breaks nothing is approved as it is.
func TestApprovalNeedsTheRegressionsTheEvaluationFound(t *testing.T) {
	t.Parallel()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	set, err := os.ReadFile(filepath.Join(evalsDir, "normal-file-a-note.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	scenarios := fstest.MapFS{"normal-file-a-note.yaml": {Data: set}, "tight.yaml": {Data: tightContext(t, assembly.EvalBuilder(logger))}}
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	settings := config.NewStore(config.Config{DataDir: t.TempDir(), NotesDir: t.TempDir(), OllamaHost: fake.URL(), Model: ollamatest.DefaultModel().Name, NumCtx: 8192})
	p, err := assembly.OpenWith(t.Context(), settings, logger, assembly.Owner, assembly.Extras{Scenarios: scenarios})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	e := p.Evolution().(*evolve.Store) // Evaluate is the store's own: no host runs it in the foreground
	ctx := t.Context()
	for _, tc := range []struct {
		name, text string
		broken     []string
	}{
		{"rules too long for a small context", longRules, []string{"tight-context-first-answer"}},
		{"a rule that fits", receiptsRule, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := e.Propose(ctx, protocol.CandidateDraft{Name: tc.name, Kind: protocol.CandidatePrompt, Artifact: protocol.Artifact{Prompt: &protocol.PromptFragment{Text: tc.text}}})
			if err != nil {
				t.Fatal(err)
			}
			r, err := e.Evaluate(ctx, c.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Regressions(); !slices.Equal(got, tc.broken) || len(r.Scenarios) != 2 {
				t.Fatalf("regressions %q of %d scenarios, want %q of 2", got, len(r.Scenarios), tc.broken)
			}
			if len(tc.broken) > 0 {
				if _, err := e.Approve(ctx, c.ID, protocol.Approval{}); err == nil {
					t.Fatal("approved without the user naming the scenario it breaks")
				}
			}
			got, err := e.Approve(ctx, c.ID, protocol.Approval{Accepted: tc.broken})
			if err != nil || got.State != protocol.CandidateApproved {
				t.Fatalf("approving with %q: %+v, %v", tc.broken, got.State, err)
			}
		})
	}
}

// TestTheEvalSetsCandidateScenariosCanFail: the eval set's scenario of a
// candidate that fails its evaluation passes as written (the comparison
// lists the regression), and fails when it expects the candidate to change
// nothing; the one of a candidate that passes fails when it expects a
// regression. Each is judged by the runner, not by its YAML.
func TestTheEvalSetsCandidateScenariosCanFail(t *testing.T) {
	t.Parallel()
	all, err := eval.LoadDir(evalsDir)
	if err != nil {
		t.Fatal(err)
	}
	build := assembly.EvalBuilder(slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, tc := range []struct{ name, wrong string }{
		{"edge-candidate-too-long-for-context", eval.VerdictSame},
		{"normal-candidate-keeps-passing", eval.VerdictRegression},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			i := slices.IndexFunc(all, func(sc eval.Scenario) bool { return sc.Name == tc.name })
			if i < 0 || all[i].Candidate == nil {
				t.Fatalf("the eval set lacks %s with a candidate block", tc.name)
			}
			sc := all[i]
			if r := eval.RunOne(t.Context(), sc, build, eval.Options{}); !r.Pass {
				t.Fatalf("as written it fails: %q", r.Failures)
			}
			wrong := *sc.Candidate
			wrong.Expect = tc.wrong
			sc.Candidate = &wrong
			r := eval.RunOne(t.Context(), sc, build, eval.Options{})
			if r.Pass || !strings.Contains(strings.Join(r.Failures, " "), "want "+tc.wrong) {
				t.Fatalf("expecting %s it passes or fails for another reason: %q", tc.wrong, r.Failures)
			}
		})
	}
}

// TestTheReportListsTheScenariosItSkipped: a scenario this evaluation
// cannot stage (one that needs a stdio MCP server, none given) is listed as
// skipped with the reason, not dropped, so the report never reads as
// complete when it is not; it is never a regression either.
func TestTheReportListsTheScenariosItSkipped(t *testing.T) {
	t.Parallel()
	set := fstest.MapFS{}
	for _, name := range []string{"normal-file-a-note.yaml", "edge-mcp-stdio-server-crashes.yaml"} {
		data, err := os.ReadFile(filepath.Join(evalsDir, name))
		if err != nil {
			t.Fatal(err)
		}
		set[name] = &fstest.MapFile{Data: data}
	}
	ev := assembly.NewEvaluator(slog.New(slog.NewTextHandler(io.Discard, nil)), set, nil, eval.CompareOptions{})
	c := protocol.Candidate{ID: "c1", Kind: protocol.CandidatePrompt, Artifact: protocol.Artifact{Prompt: &protocol.PromptFragment{Text: receiptsRule}}}
	r, err := ev.Evaluate(t.Context(), c, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ran, skipped []string
	for _, s := range r.Scenarios {
		if s.Skipped != "" {
			skipped = append(skipped, s.Name+": "+s.Skipped)
			continue
		}
		ran = append(ran, s.Name)
	}
	if !slices.Equal(ran, []string{"normal-file-a-note"}) || len(skipped) != 1 ||
		!strings.HasPrefix(skipped[0], "edge-mcp-stdio-server-crashes: ") || !strings.Contains(skipped[0], "stdio MCP server") {
		t.Errorf("ran %q, skipped %q; want the stdio scenario listed as skipped with why", ran, skipped)
	}
	if len(r.Regressions()) != 0 {
		t.Errorf("regressions = %q: a skipped scenario is not one", r.Regressions())
	}
}
