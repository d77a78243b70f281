package evolve_test

import (
	"bytes"
	"fmt"
	"testing"

	"quire/kernel/event"
	"quire/test/testkit"
)

// The proposer's call is in the evolution session's log: the request the
// server received is rebuilt byte for byte from its model.consulted event,
// which holds the reply the candidate was made of.
func TestTheProposersCallIsRebuiltFromTheLog(t *testing.T) {
	files := map[string]string{"receipts/.keep": "", "finance/receipts/2026/.keep": ""}
	for i := 1; i <= 3; i++ {
		files[fmt.Sprintf("inbox/receipt-%d.md", i)] = "# Receipt\n"
	}
	r := newRig(t, files, true)
	const reply = `{"name": "Where receipts go", "text": "Receipts go under finance/receipts/YYYY.", "signals": [1, 2, 3]}`
	for i := 1; i <= 3; i++ {
		s := r.chat(t)
		note := fmt.Sprintf("receipt-%d.md", i)
		r.k.Ollama.Script(
			calling(fmt.Sprintf("m%d-1", i), "move_note", fmt.Sprintf(`{"from":"inbox/%s","to":"receipts/%s"}`, note, note)), saying("Filed."),
			calling(fmt.Sprintf("m%d-2", i), "move_note", fmt.Sprintf(`{"from":"receipts/%s","to":"finance/receipts/2026/%s"}`, note, note)), saying("Moved."))
		r.say(t, s, "file inbox/"+note)
		if i == 3 {
			r.k.Ollama.Script(saying(reply))
		}
		r.say(t, s, "No, receipts go under finance/receipts/2026")
	}
	if r.k.Ollama.Pending() != 0 {
		t.Fatalf("%d scripted turns were never asked for: the model was not asked for a candidate", r.k.Ollama.Pending())
	}
	all, err := r.k.Store.Sessions(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var found []event.Event
	for _, s := range all {
		for _, e := range r.k.Log(t, s.ID) {
			if e.Type == event.ModelConsulted {
				if s.Kind != event.SessionEvolution {
					t.Errorf("a model.consulted event in session %s of kind %q, want only the evolution session's", s.ID, s.Kind)
				}
				found = append(found, e)
			}
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d model.consulted events, want the proposer's one", len(found))
	}
	p, body := testkit.ConsultedBody(t, found[0])
	if p.By != event.ConsultedByProposer || p.Reply != reply || p.Error != "" {
		t.Errorf("payload %+v; want by the proposer, with the reply", p)
	}
	reqs := r.k.Ollama.Requests()
	if sent := reqs[len(reqs)-1].Body; !bytes.Equal(body, sent) {
		t.Errorf("rebuilt from the event:\n%s\nsent:\n%s", body, sent)
	}
}
