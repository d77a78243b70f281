package openai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Describe lists the server's models with what the server says of them,
// asking beyond /v1/models only where a runner says more, by two cheap
// GETs that other servers answer 404: llama-server's /props (the context
// it loaded, which a prompt must fit) and LM Studio's /api/v0/models (each
// model's type, max_context_length and "tool_use"). What no endpoint
// says is left unknown (ContextLength 0, ToolsUnknown), never guessed.
// Its error is Models': only the list must answer.
func (p *Provider) Describe(ctx context.Context) ([]Model, error) {
	models, err := p.Models(ctx)
	if err != nil {
		return nil, err
	}
	root := serverRoot(p.base.Load())
	var props struct {
		Settings struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
	}
	if p.getJSON(ctx, root.JoinPath("props"), &props) && props.Settings.NCtx > 0 {
		for i := range models {
			models[i].ContextLength, models[i].ContextFrom = props.Settings.NCtx, ContextFromProps
		}
	}
	var lm struct {
		Data []struct {
			ID               string   `json:"id"`
			Type             string   `json:"type"`
			MaxContextLength int      `json:"max_context_length"`
			Capabilities     []string `json:"capabilities"`
		} `json:"data"`
	}
	if p.getJSON(ctx, root.JoinPath("api", "v0", "models"), &lm) {
		for _, d := range lm.Data {
			i := slices.IndexFunc(models, func(m Model) bool { return m.ID == d.ID })
			if i < 0 {
				continue
			}
			m := &models[i]
			if d.MaxContextLength > 0 {
				m.ContextLength, m.ContextFrom = d.MaxContextLength, ContextFromLMStudio
			}
			m.Embeds = d.Type == "embeddings"
			// The list says tools only where it has the field: an older
			// LM Studio without it leaves the probe to tell.
			if d.Capabilities != nil && !m.Embeds {
				m.Tools = ToolsNo
				if slices.Contains(d.Capabilities, "tool_use") {
					m.Tools = ToolsYes
				}
			}
		}
	}
	return models, nil
}

// serverRoot is the server's own address: the API's without its /v1,
// where llama.cpp and LM Studio serve their endpoints.
func serverRoot(base *url.URL) *url.URL {
	root := *base
	root.Path = strings.TrimSuffix(root.Path, "/v1")
	return &root
}

// describeLimit bounds a runner's own answer: a model list, never more.
const describeLimit = 4 << 20

// getJSON reads u's JSON into v, reporting whether it could; a server
// without that endpoint is the usual case, not an error.
func (p *Provider) getJSON(ctx context.Context, u *url.URL, v any) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return false
	}
	resp, err := p.http.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false
	}
	return json.NewDecoder(io.LimitReader(resp.Body, describeLimit)).Decode(v) == nil
}
