package assembly

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"quire/config"
	"quire/kernel/provider"
	"quire/kernel/provider/ollama"
	"quire/kernel/provider/openai"
)

// Request is the request of a session's nth model call (1 = the first),
// rebuilt from the log alone, as the JSON body sent to its runner (canonical:
// keys sorted), so it can be compared with what the server received.
func (p *Parts) Request(ctx context.Context, session string, n int) (json.RawMessage, error) {
	var requests interface {
		Request(ctx context.Context, session string, n int) (provider.Request, error)
	}
	switch {
	case p.reader != nil:
		requests = p.reader
	case p.runtime != nil:
		requests = p.runtime
	default:
		return nil, fmt.Errorf("%w: %w", errNoDatabase, p.DatabaseError())
	}
	req, err := requests.Request(ctx, session, n)
	if err != nil {
		return nil, err
	}
	return requestBody(req)
}

// requestBody is req as Request gives it: the body its runner's adapter
// sends (Ollama's /api/chat or an OpenAI-compatible /chat/completions),
// canonical.
func requestBody(req provider.Request) (json.RawMessage, error) {
	rebuild := ollama.RequestJSON
	if req.Runner == config.RunnerOpenAI {
		rebuild = openai.RequestJSON
	}
	body, err := rebuild(req)
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
