package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"quire/eval"
	"quire/internal/app"
	"quire/internal/ollamatest"
	"quire/internal/testkit"
	"quire/kernel/protocol"
	"quire/kernel/runtime"
)

// evalsDir is the eval set, at the top of the repository.
const evalsDir = "../../evals"

// receiptsRule is a candidate fragment of the kind issue 20 names: a short
// rule the user restated.
const receiptsRule = "Receipts are filed under finance/receipts/YYYY; never move notes out of projects/ without asking."

// longRules is a candidate that grew too long: its 3,000 words no longer
// fit beside the tools in a 4,096-token context, so a small model's first
// message is refused.
var longRules = strings.Repeat("Always file a note under the folder named after its first tag, unless the user said otherwise. ", 200)

// TestCompareListsTheScenariosACandidateBreaks runs a few scenarios of the
// eval set without and with a candidate fragment through the root's own
// wiring: a rule that fits breaks nothing, one that overflows a small
// model's context breaks the scenario that passed without it, and the
// report names it.
func TestCompareListsTheScenariosACandidateBreaks(t *testing.T) {
	t.Parallel()
	all, err := eval.LoadDir(evalsDir)
	if err != nil {
		t.Fatal(err)
	}
	var few []eval.Scenario
	for _, sc := range all {
		if slices.Contains([]string{"edge-small-context-first-answer", "normal-file-a-note"}, sc.Name) {
			few = append(few, sc)
		}
	}
	if len(few) != 2 {
		t.Fatalf("the eval set lacks the scenarios this test runs: found %d of 2", len(few))
	}
	build := app.EvalBuilder(slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, tc := range []struct {
		name      string
		candidate string
		broken    []string
	}{
		{"a rule that fits", receiptsRule, []string{}},
		{"rules too long for a small context", longRules, []string{"edge-small-context-first-answer"}},
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

// TestCompareReplaysTheRunACandidateCameFrom records a run through the
// root's wiring (the user asks for a note to be filed and says yes), makes
// a replay of it and evaluates a candidate on that replay: both arms end
// as the run did, with the candidate's text sent, and the replay works in
// a temporary folder, never the notes folder the run changed.
func TestCompareReplaysTheRunACandidateCameFrom(t *testing.T) {
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
	build := app.EvalBuilder(slog.New(slog.NewTextHandler(io.Discard, nil)))
	inst, err := build(t.Context(), eval.Env{DataDir: t.TempDir(), NotesDir: notes, OllamaHost: fake.URL(), Model: ollamatest.DefaultModel().Name, NumCtx: 8192,
		Ask: func(context.Context, runtime.Question) (runtime.Answer, error) { return runtime.Answer{Allowed: true}, nil }})
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
	replay, err := eval.Replayed("receipts run", evs, runID)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(notes, "finance", "receipts", "2026", "lamp.md")); err != nil {
		t.Fatalf("the recorded run did not file the note: %v", err)
	}

	c := eval.Compare(t.Context(), []eval.Scenario{replay}, build, eval.CompareOptions{Candidate: receiptsRule})
	if !c.Complete() || len(c.Regressions) != 0 {
		t.Fatalf("stopped %q, regressions %q", c.Stopped, c.Regressions)
	}
	p := c.Pairs[0]
	if !p.Without.Pass || !p.With.Pass {
		t.Errorf("the replay fails: without %q, with %q", p.Without.Failures, p.With.Failures)
	}
	if p.Without.ToolCalls != 1 || p.With.ToolCalls != 1 || p.With.Tokens <= p.Without.Tokens {
		t.Errorf("calls %d/%d, tokens %d/%d: want the run's one call in both arms and more tokens with the candidate",
			p.Without.ToolCalls, p.With.ToolCalls, p.Without.Tokens, p.With.Tokens)
	}
	if _, err := os.Stat(filepath.Join(notes, "finance", "receipts", "2026", "lamp.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the replay wrote into the run's notes folder (%v)", err)
	}
}
