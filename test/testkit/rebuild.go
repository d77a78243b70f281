package testkit

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"quire/kernel/provider"
	"quire/kernel/provider/ollama"
	"quire/test/ollamatest"
)

// Rebuilder rebuilds a session's nth model request from its log: the
// runtime that sent it, or a Reader of the same file.
type Rebuilder interface {
	Request(ctx context.Context, session string, n int) (provider.Request, error)
}

// RebuiltAsSent checks that each request in sent, in order, is byte for
// byte (canonical JSON) what r rebuilds from the session's log as request
// 1, 2, …: seed 000 §1, every request can be rebuilt from the log.
func RebuiltAsSent(t testing.TB, r Rebuilder, session string, sent []ollamatest.Request) {
	t.Helper()
	for n, s := range sent {
		req, err := r.Request(t.Context(), session, n+1)
		if err != nil {
			t.Fatalf("request %d of %s: %v", n+1, session, err)
		}
		body, err := ollama.RequestJSON(req)
		if err != nil {
			t.Fatal(err)
		}
		if rebuilt, was := canonical(t, body), canonical(t, s.Body); rebuilt != was {
			t.Fatalf("request %d of %s rebuilt from the log:\n%s\nsent:\n%s", n+1, session, rebuilt, was)
		}
	}
}

// canonical is JSON with its keys sorted and numbers kept exactly.
func canonical(t testing.TB, b []byte) string {
	t.Helper()
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}
