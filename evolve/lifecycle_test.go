package evolve_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"quire/evolve"
	"quire/kernel/protocol"
)

func fragment(name, text string) protocol.CandidateDraft {
	return protocol.CandidateDraft{Name: name, Kind: protocol.CandidatePrompt, Artifact: protocol.Artifact{Prompt: &protocol.PromptFragment{Text: text}}}
}

// regressing is an evaluator whose report has one scenario that passed
// without the candidate and fails with it; it keeps what it was given.
type regressing struct {
	got    protocol.Candidate
	active *protocol.Candidate
}

func (e *regressing) Evaluate(_ context.Context, c protocol.Candidate, active *protocol.Candidate, _ evolve.Progress) (protocol.EvaluationReport, error) {
	e.got, e.active = c, active
	return protocol.EvaluationReport{Scenarios: []protocol.ScenarioResult{
		{Name: "keeps-projects", Without: protocol.ScenarioRun{Passed: true}, With: protocol.ScenarioRun{Passed: false, Failure: "moved projects/a.md"}},
		{Name: "files-receipts", Without: protocol.ScenarioRun{Passed: false}, With: protocol.ScenarioRun{Passed: true}},
	}}, nil
}

// TestACandidateThatFailsItsEvaluation: it is approved only naming the
// scenario it breaks; the evaluator is given the version it would replace.
func TestACandidateThatFailsItsEvaluation(t *testing.T) {
	r := newRig(t, nil, false)
	if _, err := r.evo.Evaluate(t.Context(), "c-none"); !errors.Is(err, evolve.ErrNoEvaluator) {
		t.Fatalf("evaluate with no evaluator: %v", err)
	}
	v1, _ := r.evo.Propose(t.Context(), fragment("receipts", "File receipts by year."))
	activate(t, r, v1.ID, protocol.ScopeAll)
	v2, err := r.evo.Propose(t.Context(), fragment("receipts", "File receipts and everything else by year."))
	if err != nil || v2.Version != 2 || v2.Replaces != v1.ID {
		t.Fatalf("v2 %+v, %v", v2, err)
	}
	ev := &regressing{}
	r.evo.SetEvaluator(ev)
	if _, err := r.evo.Evaluate(t.Context(), "c-none"); !errors.Is(err, protocol.ErrNotFound) {
		t.Fatalf("evaluate an unknown id: %v", err)
	}
	rep, err := r.evo.Evaluate(t.Context(), v2.ID)
	if err != nil || rep.Candidate != v2.ID || ev.got.ID != v2.ID || ev.active == nil || ev.active.ID != v1.ID {
		t.Fatalf("report %+v, %v; evaluated %s against %+v", rep, err, ev.got.ID, ev.active)
	}
	for _, c := range []struct {
		name     string
		accepted []string
		ok       bool
	}{
		{"naming nothing", nil, false},
		{"naming another scenario", []string{"files-receipts"}, false},
		{"naming the regression", []string{"keeps-projects"}, true},
	} {
		got, err := r.evo.Approve(t.Context(), v2.ID, protocol.Approval{Accepted: c.accepted})
		if c.ok != (err == nil) {
			t.Fatalf("%s: %+v, %v", c.name, got, err)
		}
		if !c.ok && (!errors.Is(err, evolve.ErrRegressions) || !strings.Contains(err.Error(), "keeps-projects")) {
			t.Fatalf("%s: refused without naming the regression: %v", c.name, err)
		}
		if c.ok && (got.State != protocol.CandidateApproved || len(got.Approval.Accepted) != 1) {
			t.Fatalf("%s: %+v", c.name, got)
		}
	}
	// Approved, the report is what the user said yes to: no new one.
	if _, err := r.evo.Evaluate(t.Context(), v2.ID); !errors.Is(err, evolve.ErrState) {
		t.Fatalf("re-evaluated after approval: %v", err)
	}
}

// TestActivationIsNeverSilentAndRollsBack: v2 over v1 names v1; v1 stays
// and comes back with v2's rollback, one event each; what is not approved
// is never activated.
func TestActivationIsNeverSilentAndRollsBack(t *testing.T) {
	r := newRig(t, nil, false)
	ctx := t.Context()
	v1, _ := r.evo.Propose(ctx, fragment("receipts", "File receipts by year."))
	if _, err := r.evo.Activate(ctx, v1.ID, protocol.Activation{Scope: protocol.ScopeAll}); !errors.Is(err, evolve.ErrState) {
		t.Fatalf("activated with no approval: %v", err)
	}
	activate(t, r, v1.ID, protocol.ScopeAll)
	v2, _ := r.evo.Propose(ctx, fragment("receipts", "File receipts by month."))
	if _, err := r.evo.Propose(ctx, protocol.CandidateDraft{Name: "receipts", Kind: protocol.CandidatePrompt, Replaces: "c-other",
		Artifact: protocol.Artifact{Prompt: &protocol.PromptFragment{Text: "x"}}}); !errors.Is(err, evolve.ErrReplaces) {
		t.Fatalf("a draft naming another version than the active one: %v", err)
	}
	if _, err := r.evo.RecordEvaluation(ctx, protocol.EvaluationReport{Candidate: v2.ID, Scenarios: []protocol.ScenarioResult{{Name: "s"}}}); err != nil {
		t.Fatal(err)
	}
	// A yes names the text it was shown by its digest: another one's
	// (v1's, a page left open) is refused, the candidate's is taken.
	if v1.Digest == "" || v1.Digest == v2.Digest || v2.Digest != v2.Artifact.Digest() {
		t.Fatalf("digests v1 %q, v2 %q: want each its artifact's, different", v1.Digest, v2.Digest)
	}
	if _, err := r.evo.Approve(ctx, v2.ID, protocol.Approval{Digest: v1.Digest}); !errors.Is(err, evolve.ErrDigest) || !errors.Is(err, protocol.ErrConflict) {
		t.Fatalf("approved with another text's digest: %v", err)
	}
	if _, err := r.evo.Approve(ctx, v2.ID, protocol.Approval{Digest: v2.Digest}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.evo.Activate(ctx, v2.ID, protocol.Activation{Scope: protocol.ScopeAll, Replaces: v1.ID, Digest: v1.Digest}); !errors.Is(err, evolve.ErrDigest) {
		t.Fatalf("activated with another text's digest: %v", err)
	}
	if _, err := r.evo.Activate(ctx, v2.ID, protocol.Activation{Scope: protocol.ScopeAll}); !errors.Is(err, evolve.ErrReplaces) || !errors.Is(err, protocol.ErrConflict) {
		t.Fatalf("v2 activated over v1 without naming it: %v", err)
	}
	if got, err := r.evo.Activate(ctx, v2.ID, protocol.Activation{Scope: protocol.ScopeAll, Replaces: v1.ID}); err != nil || got.State != protocol.CandidateActive {
		t.Fatalf("activate v2: %+v, %v", got, err)
	}
	states := func() map[string]string {
		st, err := r.evo.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, c := range st.Candidates {
			out[c.ID] = c.State
		}
		return out
	}
	if s := states(); s[v1.ID] != protocol.CandidateApproved || s[v2.ID] != protocol.CandidateActive {
		t.Fatalf("after v2's activation: %v", s)
	}
	if text, _ := r.evo.Contributor().Contribute(ctx, ""); !strings.Contains(text, "by month") || strings.Contains(text, "by year") {
		t.Fatalf("the text with v2 active: %q", text)
	}
	if _, err := r.evo.Rollback(ctx, v2.ID); err != nil {
		t.Fatal(err)
	}
	if s := states(); s[v1.ID] != protocol.CandidateActive || s[v2.ID] != protocol.CandidateRolledBack {
		t.Fatalf("after v2's rollback: %v", s)
	}
	if text, _ := r.evo.Contributor().Contribute(ctx, ""); !strings.Contains(text, "by year") {
		t.Fatalf("the text after the rollback: %q", text)
	}
	if _, err := r.evo.Rollback(ctx, v2.ID); !errors.Is(err, evolve.ErrState) {
		t.Fatalf("rolled back twice: %v", err)
	}
	if _, err := r.evo.Rollback(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := r.evo.Rollback(ctx, ""); !errors.Is(err, evolve.ErrState) {
		t.Fatalf("a rollback with nothing active: %v", err)
	}
	if text, _ := r.evo.Contributor().Contribute(ctx, ""); text != "" {
		t.Fatalf("the text with nothing active: %q", text)
	}
	// The log is the truth: a store over the same log folds the same.
	again := evolve.New(r.k.Store, nil, func() string { return r.notes })
	st1, _ := r.evo.List(ctx)
	st2, err := again.List(ctx)
	if err != nil || len(st2.Candidates) != len(st1.Candidates) {
		t.Fatalf("reread: %+v, %v", st2, err)
	}
	for i := range st1.Candidates {
		if st1.Candidates[i].ID != st2.Candidates[i].ID || st1.Candidates[i].State != st2.Candidates[i].State {
			t.Fatalf("reread candidate %d: %+v, want %+v", i, st2.Candidates[i], st1.Candidates[i])
		}
	}
}

// TestAFolderScopeAppliesOnlyThere: active for one notes folder, a fragment
// is not in the text once another folder is chosen, and comes back with it.
func TestAFolderScopeAppliesOnlyThere(t *testing.T) {
	r := newRig(t, nil, false)
	ctx := t.Context()
	c, _ := r.evo.Propose(ctx, fragment("receipts", "File receipts by year."))
	activate(t, r, c.ID, protocol.ScopeFolder)
	if text, _ := r.evo.Contributor().Contribute(ctx, ""); !strings.Contains(text, "by year") {
		t.Fatalf("not in its folder's text: %q", text)
	}
	other := t.TempDir()
	r.folder.Store(&other)
	if text, _ := r.evo.Contributor().Contribute(ctx, ""); text != "" {
		t.Fatalf("in another folder's text: %q", text)
	}
	r.folder.Store(&r.notes)
	if text, _ := r.evo.Contributor().Contribute(ctx, ""); !strings.Contains(text, "by year") {
		t.Fatalf("not back in its folder's text: %q", text)
	}
	none := ""
	r.folder.Store(&none)
	d, _ := r.evo.Propose(ctx, fragment("titles", "Short titles."))
	if _, err := r.evo.RecordEvaluation(ctx, protocol.EvaluationReport{Candidate: d.ID, Scenarios: []protocol.ScenarioResult{{Name: "s"}}}); err != nil {
		t.Fatal(err)
	}
	r.evo.Approve(ctx, d.ID, protocol.Approval{})
	if _, err := r.evo.Activate(ctx, d.ID, protocol.Activation{Scope: protocol.ScopeFolder}); !errors.Is(err, evolve.ErrNoFolder) {
		t.Fatalf("activated for no folder: %v", err)
	}
	if _, err := r.evo.Activate(ctx, d.ID, protocol.Activation{Scope: "everywhere"}); !errors.Is(err, protocol.ErrBadPayload) {
		t.Fatalf("an unknown scope: %v", err)
	}
}
