package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"quire/kernel/provider"
)

// Model is one model a server lists at /models, with what is known of it.
type Model struct {
	ID string
	// ContextLength is the context the server says the model has (llama.cpp's
	// meta.n_ctx_train, vLLM's max_model_len, LM Studio's and Jan's
	// context_length); 0 when the server does not say, which is to be
	// said plainly: the API itself has no such field.
	ContextLength int
	// ContextFrom says where ContextLength was read ("" when unknown).
	ContextFrom ContextSource
	// Embeds: the server says this model only embeds (LM Studio's type
	// "embeddings"); false says nothing either way.
	Embeds bool
	// Tools is what the server's own model list says of tools
	// (ToolsUnknown where it does not; the probe can tell).
	Tools Tools
}

// ContextSource is where a model's context length was read.
type ContextSource string

const (
	// ContextFromList: the /v1/models entry (llama.cpp's meta.n_ctx_train,
	// vLLM's max_model_len, a context_length).
	ContextFromList ContextSource = "the server's model list"
	// ContextFromProps: llama-server's GET /props, the context its slots
	// are loaded with (what a prompt must fit).
	ContextFromProps ContextSource = "llama.cpp's /props"
	// ContextFromLMStudio: LM Studio's GET /api/v0/models max_context_length.
	ContextFromLMStudio ContextSource = "LM Studio's /api/v0/models"
)

// Models lists the server's models (GET /models), in the server's order.
func (p *Provider) Models(ctx context.Context) ([]Model, error) {
	base := p.base.Load()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base.JoinPath("models").String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := p.http.Do(req)
	if err != nil {
		return nil, p.failure(ctx, base, err, "")
	}
	defer resp.Body.Close()
	if resp.StatusCode >= http.StatusBadRequest {
		return nil, p.failure(ctx, base, statusError(resp), "")
	}
	var list struct {
		Data []struct {
			ID            string `json:"id"`
			MaxModelLen   int    `json:"max_model_len"`
			ContextLength int    `json:"context_length"`
			Meta          struct {
				NCtxTrain int `json:"n_ctx_train"`
			} `json:"meta"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		return nil, p.failure(ctx, base, &wireError{msg: "a model list that is not JSON: " + err.Error()}, "")
	}
	out := make([]Model, len(list.Data))
	for i, m := range list.Data {
		out[i] = Model{ID: m.ID, ContextLength: max(m.MaxModelLen, m.ContextLength, m.Meta.NCtxTrain)}
		if out[i].ContextLength > 0 {
			out[i].ContextFrom = ContextFromList
		}
	}
	return out, nil
}

// Tools is what the tool probe learnt of a model.
type Tools int

const (
	ToolsUnknown Tools = iota // the probe could not tell (the server failed, or was busy)
	ToolsYes                  // the server took a request with a tool
	ToolsNo                   // the server refused it: the model cannot use tools
)

// ProbeTools asks whether model takes tools with the cheapest request that
// can tell: one tool, one short message, a reply of one token. A server
// that refuses it for tools says no; one that answers says yes (it may
// still choose not to call them); anything else leaves it unknown, with
// the error saying why.
func (p *Provider) ProbeTools(ctx context.Context, model string) (Tools, error) {
	req := provider.Request{Model: model, NumPredict: 1,
		Messages: []provider.Message{{Role: provider.RoleUser, Content: "hi"}},
		Tools: []provider.ToolSpec{{Name: "ping", Description: "Answers pong.",
			Parameters: map[string]any{"type": "object", "properties": map[string]any{}}}}}
	err := p.Stream(ctx, req, func(provider.Chunk) error { return nil })
	switch {
	case err == nil:
		return ToolsYes, nil
	case errors.Is(err, provider.ErrNoTools):
		return ToolsNo, nil
	}
	return ToolsUnknown, err
}

// Embed returns one vector per input, in order, from POST /embeddings.
func (p *Provider) Embed(ctx context.Context, model string, inputs []string) ([][]float32, error) {
	base := p.base.Load()
	body, err := json.Marshal(map[string]any{"model": model, "input": inputs, "encoding_format": "float"})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base.JoinPath("embeddings").String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.http.Do(req)
	if err != nil {
		return nil, p.failure(ctx, base, err, model)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= http.StatusBadRequest {
		return nil, p.failure(ctx, base, statusError(resp), model)
	}
	var out struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, p.failure(ctx, base, &wireError{msg: "embeddings that are not JSON: " + err.Error()}, model)
	}
	vecs := make([][]float32, len(inputs))
	for _, d := range out.Data {
		if d.Index < 0 || d.Index >= len(vecs) || vecs[d.Index] != nil {
			return nil, fmt.Errorf("%w: the server at %s returned an embedding with index %d for %d inputs", provider.ErrServer, base, d.Index, len(inputs))
		}
		vecs[d.Index] = d.Embedding
	}
	for i, v := range vecs {
		if v == nil {
			return nil, fmt.Errorf("%w: the server at %s returned no embedding for input %d", provider.ErrServer, base, i)
		}
	}
	return vecs, nil
}

// Runner is a local server discovery found.
type Runner struct {
	Name   string // the runner its port usually belongs to
	Base   string // its API address
	Models []Model
}

// UsualPort is where a runner listens by default.
type UsualPort struct {
	Name string
	Port int
}

// UsualPorts are the runners' default ports, in the order discovery
// tries them.
func UsualPorts() []UsualPort {
	return []UsualPort{{"Ollama", 11434}, {"LM Studio", 1234}, {"llama.cpp", 8080}, {"Jan", 1337}}
}

// Discover tries each usual port on 127.0.0.1 (and any extra bases) and
// returns the runners that answer GET /v1/models, in that order. Each try
// is bounded by wait; a port nobody listens on costs a refused dial.
func Discover(ctx context.Context, client *http.Client, wait time.Duration, extra ...string) []Runner {
	return DiscoverOn(ctx, client, wait, UsualPorts(), extra...)
}

// DiscoverOn is Discover over the given ports instead of the usual ones.
func DiscoverOn(ctx context.Context, client *http.Client, wait time.Duration, ports []UsualPort, extra ...string) []Runner {
	type candidate struct{ name, base string }
	var tries []candidate
	for _, u := range ports {
		tries = append(tries, candidate{u.Name, "http://127.0.0.1:" + strconv.Itoa(u.Port) + "/v1"})
	}
	for _, b := range extra {
		tries = append(tries, candidate{"the address given", b})
	}
	var found []Runner
	for _, c := range tries {
		u, err := url.Parse(c.base)
		if err != nil {
			continue
		}
		try, cancel := context.WithTimeout(ctx, wait)
		models, err := New(u, client).Models(try)
		cancel()
		if err == nil {
			found = append(found, Runner{Name: c.name, Base: c.base, Models: models})
		}
	}
	return found
}
