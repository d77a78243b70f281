package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"quire/kernel/provider/ollama"
)

// Request is the request of a session's nth model call (1 = the first),
// rebuilt from the log alone, as the JSON body sent to Ollama (canonical:
// keys sorted), so it can be compared with what the server received.
func (p *Parts) Request(ctx context.Context, session string, n int) (json.RawMessage, error) {
	if p.runtime == nil {
		return nil, fmt.Errorf("Quire's database could not be opened: %w", p.dbErr)
	}
	req, err := p.runtime.Request(ctx, session, n)
	if err != nil {
		return nil, err
	}
	body, err := ollama.RequestJSON(req)
	if err != nil {
		return nil, err
	}
	return CanonicalJSON(body)
}

// CanonicalJSON re-encodes JSON with object keys sorted.
func CanonicalJSON(b []byte) (json.RawMessage, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}
