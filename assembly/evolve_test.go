package assembly

import (
	"path/filepath"
	"strings"
	"testing"

	"quire/evolve"
	"quire/kernel/protocol"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

// TestEvolutionIsWiredIntoTheRuns: through the composition root, an
// activated fragment reaches the next run's request, byte for byte what
// `quire replay -request` prints of it; its log is a session of kind
// evolution, which no chat list shows; and a reopened owner folds the
// same state from the log.
func TestEvolutionIsWiredIntoTheRuns(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.Script(ollamatest.Turn{Content: []string{"ok"}})
	dataDir, notesDir := t.TempDir(), t.TempDir()
	p := ownerSayingYes(t, fake, dataDir, notesDir)
	e := p.evo
	if e == nil {
		t.Fatal("an owner has no evolution")
	}
	ctx := t.Context()
	const rule = "Tag every receipt #receipt."
	activateFragment(t, e, rule)
	k := p.Kernel()
	sess, _ := protocol.Run[protocol.Session](ctx, k, "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "r"})
	if _, err := protocol.Run[protocol.SendResult](ctx, k, "", protocol.SendMessage, protocol.SendMessagePayload{Session: sess.ID, Text: "file it"}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitRuns(t, k, sess.ID, 1)
	body := string(fake.Requests()[0].Body)
	if !strings.Contains(body, rule) {
		t.Fatalf("the request did not carry the active fragment:\n%s", body)
	}
	replayed, err := p.Calls().Request(ctx, sess.ID, 1)
	if err != nil || !strings.Contains(string(replayed), rule) {
		t.Fatalf("replay -request: %s, %v", replayed, err)
	}
	sessions, err := k.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, s := range sessions {
		kinds = append(kinds, s.Kind)
	}
	if len(sessions) != 2 || !strings.Contains(strings.Join(kinds, ","), protocol.SessionEvolution) {
		t.Fatalf("sessions of kinds %q, want the chat and the evolution log", kinds)
	}
	p.Close()

	again := ownerSayingYes(t, fake, dataDir, notesDir)
	st, err := again.Evolution().List(ctx)
	if err != nil || len(st.Candidates) != 1 || st.Candidates[0].State != protocol.CandidateActive {
		t.Fatalf("after a restart: %+v, %v", st, err)
	}
}

// activateFragment proposes rule as a prompt fragment, records a passing
// evaluation, approves and activates it for the notes folder.
func activateFragment(t *testing.T, e *evolve.Store, rule string) protocol.Candidate {
	t.Helper()
	ctx := t.Context()
	c, err := e.Propose(ctx, protocol.CandidateDraft{Name: "receipt tags", Kind: protocol.CandidatePrompt,
		Artifact: protocol.Artifact{Prompt: &protocol.PromptFragment{Text: rule}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.RecordEvaluation(ctx, protocol.EvaluationReport{Candidate: c.ID, Scenarios: []protocol.ScenarioResult{
		{Name: "tags", With: protocol.ScenarioRun{Passed: true}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Approve(ctx, c.ID, protocol.Approval{}); err != nil {
		t.Fatal(err)
	}
	c, err = e.Activate(ctx, c.ID, protocol.Activation{Scope: protocol.ScopeFolder})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestActiveFragmentsReachTheBatchWorkers: a fragment the user activated
// is in every worker's request (an organise task must file by the user's
// rules), and a worker's run observes nothing: the evolution log holds no
// signal of it.
func TestActiveFragmentsReachTheBatchWorkers(t *testing.T) {
	fake := ollamatest.New(t, ollamatest.WithResponder(isolationModel))
	fake.AddModel(ollamatest.DefaultModel())
	notesDir := t.TempDir()
	testkit.WriteOld(t, filepath.Join(notesDir, "inbox", "r.md"), "# a receipt\n")
	p := batchOwner(t, fake, notesDir)
	const rule = "Receipts go under finance/receipts/YYYY."
	activateFragment(t, p.evo, rule)
	b, err := p.Batches().Start(t.Context(), "inbox")
	if err != nil {
		t.Fatal(err)
	}
	waitReviewing(t, p.Batches(), b.ID)
	workers := 0
	for _, r := range fake.Requests() {
		if organiseRe.Match(r.Body) {
			workers++
			if !strings.Contains(string(r.Body), rule) {
				t.Errorf("a worker's request lacks the active fragment:\n%s", r.Body)
			}
		}
	}
	if workers == 0 {
		t.Fatal("no worker's request was sent")
	}
	sig, err := p.Evolution().Signals(t.Context(), 0)
	if err != nil || len(sig) != 0 {
		t.Fatalf("a worker's run was observed: %+v, %v", sig, err)
	}
}

// TestAnActivatedSkillCandidateReachesTheModel: a skill candidate, once
// evaluated, approved and activated, is a skill of the catalog — the next
// run's system text lists it by name and description only, load_skill
// returns its instructions, and replay rebuilds both requests; after the
// rollback the next run is not offered it, while the old run still
// replays with it.
func TestAnActivatedSkillCandidateReachesTheModel(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	p := ownerSayingYes(t, fake, t.TempDir(), t.TempDir())
	e, k, ctx := p.evo, p.Kernel(), t.Context()
	const (
		description  = "File receipts under finance/receipts by their year."
		instructions = "Read the receipt's date, then move it to finance/receipts/YYYY with move_note."
	)
	md := "---\nname: receipt-filing\ndescription: " + description + "\n---\n\n" + instructions + "\n"
	c, err := e.Propose(ctx, protocol.CandidateDraft{Name: "receipt-filing", Kind: protocol.CandidateSkill,
		Artifact: protocol.Artifact{Skill: &protocol.SkillArtifact{SkillMD: md}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.RecordEvaluation(ctx, protocol.EvaluationReport{Candidate: c.ID, Scenarios: []protocol.ScenarioResult{
		{Name: "receipts", With: protocol.ScenarioRun{Passed: true}, Without: protocol.ScenarioRun{Passed: true}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Approve(ctx, c.ID, protocol.Approval{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Activate(ctx, c.ID, protocol.Activation{Scope: protocol.ScopeAll}); err != nil {
		t.Fatal(err)
	}

	send := func(text string) string {
		t.Helper()
		s, err := protocol.Run[protocol.Session](ctx, k, "", protocol.CreateSession, protocol.CreateSessionPayload{Title: text})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := protocol.Run[protocol.SendResult](ctx, k, "", protocol.SendMessage, protocol.SendMessagePayload{Session: s.ID, Text: text}); err != nil {
			t.Fatal(err)
		}
		testkit.WaitRuns(t, k, s.ID, 1)
		return s.ID
	}
	fake.Script(
		ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "l1", Name: "load_skill", Arguments: []byte(`{"name":"receipt-filing"}`)}}},
		ollamatest.Turn{Content: []string{"Loaded."}})
	with := send("file my receipts")
	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want the load and the answer", len(reqs))
	}
	first, second := string(reqs[0].Body), string(reqs[1].Body)
	if !strings.Contains(first, "receipt-filing") || !strings.Contains(first, description) || strings.Contains(first, instructions) {
		t.Fatalf("the first request should list the skill by name and description only:\n%s", first)
	}
	if !strings.Contains(second, instructions) {
		t.Fatalf("load_skill's result did not carry the instructions:\n%s", second)
	}
	same := func(n int) bool {
		t.Helper()
		rebuilt, err := p.Request(ctx, with, n)
		sent, _ := CanonicalJSON(reqs[n-1].Body)
		return err == nil && string(rebuilt) == string(sent)
	}
	if !same(1) || !same(2) {
		t.Fatal("replay -request does not rebuild what was sent with the skill")
	}

	if _, err := e.Rollback(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	fake.Script(ollamatest.Turn{Content: []string{"ok"}})
	send("file my receipts again")
	if body := string(fake.Requests()[2].Body); strings.Contains(body, "receipt-filing") {
		t.Fatalf("after the rollback the skill is still offered:\n%s", body)
	}
	if !same(1) || !same(2) {
		t.Fatal("after the rollback the old run no longer replays as sent")
	}
}
