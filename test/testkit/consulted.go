package testkit

import (
	"testing"

	"quire/kernel/event"
	"quire/kernel/provider"
	"quire/kernel/provider/ollama"
)

// ConsultedBody is the /api/chat body a model.consulted event's request
// encodes to, rebuilt from the event alone, to compare with what the fake
// server received.
func ConsultedBody(t testing.TB, e event.Event) (event.ModelConsultedPayload, []byte) {
	t.Helper()
	p, err := event.As[event.ModelConsultedPayload](e)
	if err != nil {
		t.Fatal(err)
	}
	req := provider.Request{Model: p.Model, ContextLen: p.NumCtx}
	for _, m := range p.Messages {
		req.Messages = append(req.Messages, provider.Message{Role: provider.Role(m.Role), Content: m.Content})
	}
	body, err := ollama.RequestJSON(req)
	if err != nil {
		t.Fatal(err)
	}
	return p, body
}
