// Package openai is the provider.Provider for servers that speak the
// OpenAI-compatible chat completions API on the user's machine: llama.cpp's
// server, LM Studio, Jan, vLLM, LocalAI, and Ollama itself at /v1. It
// translates the kernel's requests and chunks to and from that API (a
// streamed reply in server-sent events, tool calls assembled from their
// per-index argument deltas), turns the servers' failures into the provider
// sentinel errors with a sentence that says what to do, and answers the
// probes discovery needs (models, embeddings, a tool probe).
//
// It owns that translation only. It must never import Quire packages other
// than kernel/provider, nor any vendor's client: the wire types are its own
// and stay unexported.
//
// A request carries no context length: the API has no field for it (a
// runner sets it when it loads the model), so the kernel's compaction is
// what keeps a prompt inside it, and an overflow is refused by the server
// (ErrRejected, its message naming the context length).
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sync/atomic"

	"quire/kernel/provider"
)

// Provider talks to one OpenAI-compatible server; SetBase moves it. It is
// safe for concurrent use.
type Provider struct {
	base atomic.Pointer[url.URL] // ends in /v1 (or the server's own prefix)
	http *http.Client
	log  *slog.Logger
}

var _ provider.Provider = (*Provider)(nil)

// Option configures a Provider.
type Option func(*Provider)

// WithLogger logs requests and failures at debug level. Default: none.
func WithLogger(l *slog.Logger) Option { return func(p *Provider) { p.log = l } }

// New returns a Provider for the server whose API is at base (see
// ParseBase). A nil httpClient means one without an overall timeout,
// because a reply may stream for minutes; requests end with their context.
func New(base *url.URL, httpClient *http.Client, opts ...Option) *Provider {
	if httpClient == nil {
		httpClient = &http.Client{}
	}
	p := &Provider{http: httpClient, log: slog.New(slog.DiscardHandler)}
	p.base.Store(base)
	for _, o := range opts {
		o(p)
	}
	return p
}

// Base is the API's address, as used in messages.
func (p *Provider) Base() string { return p.base.Load().String() }

// SetBase sends every later request to base (nil is ignored).
func (p *Provider) SetBase(base *url.URL) {
	if base != nil {
		p.base.Store(base)
	}
}

// at is where req goes: its frozen address (a run's), else the current one.
func (p *Provider) at(req provider.Request) (*url.URL, error) {
	if req.Host == "" {
		return p.base.Load(), nil
	}
	u, err := ParseBase(req.Host)
	if err != nil {
		return nil, fmt.Errorf("the run's server address %q: %w", req.Host, err)
	}
	return u, nil
}

// Stream posts req to /chat/completions with stream:true and calls onChunk
// for each piece of the reply, in order: text and reasoning as they come,
// the tool calls once each is whole (when the server gives the finish
// reason), then the final chunk with the usage. It returns nil only after
// the server's "[DONE]"; an error from onChunk is returned as it is.
func (p *Provider) Stream(ctx context.Context, req provider.Request, onChunk func(provider.Chunk) error) error {
	body, err := RequestJSON(req)
	if err != nil {
		return err
	}
	base, err := p.at(req)
	if err != nil {
		return err
	}
	p.log.Debug("openai chat", "base", base, "model", req.Model, "messages", len(req.Messages), "tools", len(req.Tools))
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, base.JoinPath("chat/completions").String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	resp, err := p.http.Do(hreq)
	if err != nil {
		return p.failure(ctx, base, err, req.Model)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= http.StatusBadRequest {
		return p.failure(ctx, base, statusError(resp), req.Model)
	}
	var a assembler
	var stopped error // onChunk's error, which must reach the caller unchanged
	done, err := readEvents(resp.Body, func(c streamChunk) error {
		for _, out := range a.add(c) {
			if err := onChunk(out); err != nil {
				stopped = err
				return err
			}
		}
		return nil
	})
	if stopped != nil {
		return stopped
	}
	if err != nil {
		return p.failure(ctx, base, err, req.Model)
	}
	if !done {
		return p.broken(ctx, base, req.Model)
	}
	for _, c := range a.final() {
		if err := onChunk(c); err != nil {
			return err
		}
	}
	return nil
}

// wire types: the fields Quire sends and reads (docs/OPENAI.md).
type (
	chatRequest struct {
		Model         string         `json:"model"`
		Messages      []message      `json:"messages"`
		Tools         []tool         `json:"tools,omitempty"`
		Stream        bool           `json:"stream"`
		StreamOptions *streamOptions `json:"stream_options,omitempty"`
		MaxTokens     int            `json:"max_tokens,omitempty"`
		Temperature   *float64       `json:"temperature,omitempty"`
	}
	streamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	}
	message struct {
		Role       string     `json:"role"`
		Content    string     `json:"content"`
		ToolCalls  []toolCall `json:"tool_calls,omitempty"`
		ToolCallID string     `json:"tool_call_id,omitempty"`
		Name       string     `json:"name,omitempty"`
	}
	toolCall struct {
		Index    *int     `json:"index,omitempty"` // in stream deltas only
		ID       string   `json:"id,omitempty"`
		Type     string   `json:"type,omitempty"`
		Function function `json:"function"`
	}
	function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	}
	tool struct {
		Type     string  `json:"type"`
		Function toolDef `json:"function"`
	}
	toolDef struct {
		Name        string         `json:"name"`
		Description string         `json:"description,omitempty"`
		Parameters  map[string]any `json:"parameters"`
	}
)

// chatRequest is the one place a provider.Request becomes a request body.
// NumPredict, the kernel's reply bound, is max_tokens; Think has no field
// in the API and is not sent (a runner decides by its chat template).
func newChatRequest(req provider.Request) chatRequest {
	out := chatRequest{
		Model:         req.Model,
		Messages:      make([]message, len(req.Messages)),
		Stream:        true,
		StreamOptions: &streamOptions{IncludeUsage: true},
		MaxTokens:     max(req.NumPredict, 0),
		Temperature:   req.Temperature,
	}
	for i, m := range req.Messages {
		msg := message{Role: string(m.Role), Content: m.Content, ToolCallID: m.ToolCallID}
		if m.Role == provider.RoleTool {
			msg.Name = m.ToolName
		}
		for _, tc := range m.ToolCalls {
			args := tc.Arguments
			if !json.Valid([]byte(args)) {
				// The kernel already told the model its arguments were
				// bad; the history must still go out as valid JSON.
				args = "{}"
			}
			msg.ToolCalls = append(msg.ToolCalls, toolCall{ID: tc.ID, Type: "function", Function: function{Name: tc.Name, Arguments: args}})
		}
		out.Messages[i] = msg
	}
	for _, spec := range req.Tools {
		params := spec.Parameters
		if params == nil {
			params = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		out.Tools = append(out.Tools, tool{Type: "function", Function: toolDef{Name: spec.Name, Description: spec.Description, Parameters: params}})
	}
	return out
}

// RequestJSON is the body Stream sends for req, byte for byte; the replay
// rebuilds it from the log with this same function.
func RequestJSON(req provider.Request) ([]byte, error) {
	return json.Marshal(newChatRequest(req))
}
