package memory_test

import (
	"bytes"
	"testing"

	"quire/kernel/event"
	"quire/kernel/runtime"
	"quire/memory"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

// The learner's call is in the log: the request the server received is
// rebuilt byte for byte from its model.consulted event, which names the run
// it learned from and holds the reply, and is never part of the chat.
func TestTheLearnersCallIsRebuiltFromTheLog(t *testing.T) {
	r := newRig(t, rigOptions{learn: true, mem: []memory.Option{memory.WithApproval(true)}})
	r.k.Runtime.SetSettings(runtime.Settings{Model: ollamatest.DefaultModel().Name, NumCtx: 4096})
	s := r.chat(t)
	const reply = `{"facts": ["The user's allotment is plot 14."], "preferences": []}`
	learned := saying(reply)
	learned.PromptEvalCount, learned.EvalCount = 321, 12
	r.k.Ollama.Script(saying("Noted."), learned)
	run := r.say(t, s, "My allotment is plot 14.")
	if items := r.items(t); len(items) != 1 {
		t.Fatalf("%d items, want the one proposal: %+v", len(items), items)
	}
	var found []event.Event
	for _, e := range r.log(t, s) {
		if e.Type == event.ModelConsulted {
			found = append(found, e)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d model.consulted events in the chat, want the learner's one", len(found))
	}
	e := found[0]
	p, body := testkit.ConsultedBody(t, e)
	if e.RunID != run || !e.Ignorable || p.By != event.ConsultedByLearner || p.Reply != reply || p.Error != "" ||
		p.Usage.PromptTokens != 321 || p.Usage.OutputTokens != 12 {
		t.Errorf("event run %q ignorable %v payload %+v; want run %q, ignorable, by the learner, the reply and the usage the server gave", e.RunID, e.Ignorable, p, run)
	}
	reqs := r.k.Ollama.Requests()
	if sent := reqs[len(reqs)-1].Body; !bytes.Equal(body, sent) {
		t.Errorf("rebuilt from the event:\n%s\nsent:\n%s", body, sent)
	}
}
