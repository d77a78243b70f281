package app

import (
	"strings"
	"testing"

	"quire/internal/ollamatest"
	"quire/internal/testkit"
	"quire/kernel/protocol"
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
	e := p.Evolution()
	if e == nil {
		t.Fatal("an owner has no evolution")
	}
	ctx := t.Context()
	const rule = "Tag every receipt #receipt."
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
	if _, err := e.Activate(ctx, c.ID, protocol.Activation{Scope: protocol.ScopeFolder}); err != nil {
		t.Fatal(err)
	}
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
