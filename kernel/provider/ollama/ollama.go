// Package ollama is the provider.Provider for an Ollama server. It
// translates the kernel's requests and chunks to and from Ollama's chat API
// through Ollama's own Go client and types (the chat stream itself is read
// by chatStream, with a line buffer that grows only as needed), turns Ollama's failures into the provider
// sentinel errors with a message that says what to do, and answers the
// probes `quire doctor` needs (version, models, model info, embed, pull).
//
// It owns that translation only. It must never import Quire packages other
// than kernel/provider (nothing under host/, memory/, rag/ or tools/), and
// no Ollama api type may appear in its exported API.
//
// Every request it sends has truncate:false, so that Ollama refuses a prompt
// that does not fit num_ctx (ErrRejected) instead of silently dropping the
// oldest messages: the kernel, not the server, decides what the model sees.
package ollama

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/ollama/ollama/api"

	"quire/kernel/provider"
)

// Provider talks to one Ollama server at a time; SetHost moves it to
// another. It is safe for concurrent use.
type Provider struct {
	client *api.Client
	base   *url.URL     // the client's own base; http sends it to host
	http   *http.Client // the client's transport (redirected), for chatStream
	host   *hostRef     // where requests go now (SetHost); the client's own base is where they were built
	log    *slog.Logger
}

var _ provider.Provider = (*Provider)(nil)

// Option configures a Provider.
type Option func(*Provider)

// WithLogger logs requests and failures at debug level. Default: none.
func WithLogger(l *slog.Logger) Option { return func(p *Provider) { p.log = l } }

// New returns a Provider for the Ollama server at host (see ParseHost; nil
// means the default, http://127.0.0.1:11434). A nil httpClient means a
// client without an overall timeout, because a reply may stream for
// minutes; requests end when their context does.
func New(host *url.URL, httpClient *http.Client, opts ...Option) *Provider {
	if host == nil {
		host, _ = ParseHost("")
	}
	if httpClient == nil {
		httpClient = &http.Client{}
	}
	ref := &hostRef{}
	ref.u.Store(host)
	hc := redirected(httpClient, host, ref)
	p := &Provider{
		client: api.NewClient(host, hc),
		base:   host,
		http:   hc,
		host:   ref,
		log:    slog.New(slog.DiscardHandler),
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

// Host is the address of the Ollama server, as used in messages.
func (p *Provider) Host() string { return p.host.String() }

// SetHost sends every later request to the Ollama server at host (see
// ParseHost; nil is ignored): the settings screen's new address reaches the
// probes, the embedder, pulls and new runs without rebuilding what holds the
// Provider. A request already sent finishes where it started, and a chat
// request naming its address (provider.Request.Host, a run's frozen one)
// goes there.
func (p *Provider) SetHost(host *url.URL) {
	if host != nil {
		p.host.u.Store(host)
	}
}

// Stream sends req to Ollama's /api/chat and calls onChunk for each piece of
// the reply, in order. It returns nil only after Ollama's final chunk; an
// error from onChunk stops the stream and is returned as it is.
func (p *Provider) Stream(ctx context.Context, req provider.Request, onChunk func(provider.Chunk) error) error {
	chat, err := chatRequest(req)
	if err != nil {
		return err
	}
	if req.Host != "" {
		// The run's frozen address: a run started on one server finishes
		// there when Settings moves the adapter to another.
		host, err := ParseHost(req.Host)
		if err != nil {
			return fmt.Errorf("the run's Ollama address %q: %w", req.Host, err)
		}
		ctx = pinned(ctx, host)
	}
	p.log.Debug("ollama chat", "host", p.at(ctx), "model", req.Model,
		"messages", len(req.Messages), "tools", len(req.Tools), "num_ctx", req.ContextLen)

	var done bool
	var stopped error // onChunk's error, which must reach the caller unchanged
	err = p.chatStream(ctx, chat, func(resp api.ChatResponse) error {
		for _, c := range chunks(resp) {
			if err := onChunk(c); err != nil {
				stopped = err
				return err
			}
		}
		done = done || resp.Done
		return nil
	})
	if stopped != nil {
		return stopped
	}
	return p.ended(ctx, err, done, req.Model, "the reply of "+req.Model)
}

// chatRequest is the one place a provider.Request becomes an Ollama request.
func chatRequest(req provider.Request) (*api.ChatRequest, error) {
	stream, truncate := true, false
	chat := &api.ChatRequest{
		Model:    req.Model,
		Messages: make([]api.Message, len(req.Messages)),
		Stream:   &stream,
		Truncate: &truncate,
	}
	for i, m := range req.Messages {
		chat.Messages[i] = message(m)
	}
	for _, spec := range req.Tools {
		t, err := tool(spec)
		if err != nil {
			return nil, err
		}
		chat.Tools = append(chat.Tools, t)
	}
	if req.ContextLen > 0 || req.Temperature != nil || req.NumPredict > 0 {
		chat.Options = map[string]any{}
	}
	if req.ContextLen > 0 {
		chat.Options["num_ctx"] = req.ContextLen
	}
	if req.NumPredict > 0 {
		chat.Options["num_predict"] = req.NumPredict
	}
	if req.Temperature != nil {
		chat.Options["temperature"] = *req.Temperature
	}
	if req.Think != nil {
		chat.Think = &api.ThinkValue{Value: *req.Think}
	}
	return chat, nil
}

func message(m provider.Message) api.Message {
	out := api.Message{
		Role:       string(m.Role),
		Content:    m.Content,
		ToolName:   m.ToolName,
		ToolCallID: m.ToolCallID,
	}
	for i, tc := range m.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, api.ToolCall{
			ID: tc.ID,
			Function: api.ToolCallFunction{
				Index:     i,
				Name:      tc.Name,
				Arguments: arguments(tc.Arguments),
			},
		})
	}
	return out
}

// arguments parses a tool call's JSON text. Text that is not a JSON object
// is sent as {}: the history must still go out, and the kernel has already
// reported the bad arguments to the model when it validated the call.
func arguments(text string) api.ToolCallFunctionArguments {
	args := api.NewToolCallFunctionArguments()
	// Checked first because "null" would decode without error into
	// arguments that marshal as null.
	if !strings.HasPrefix(strings.TrimSpace(text), "{") {
		return args
	}
	if err := json.Unmarshal([]byte(text), &args); err != nil {
		return api.NewToolCallFunctionArguments()
	}
	return args
}

// tool converts a JSON Schema by a JSON round trip, which is exactly how
// Ollama reads the tools of a request. Schema keywords Ollama's types have
// no field for (such as "minimum" or "additionalProperties") are dropped by
// Ollama's client whatever we do.
func tool(spec provider.ToolSpec) (api.Tool, error) {
	params := api.ToolFunctionParameters{Type: "object", Properties: api.NewToolPropertiesMap()}
	if spec.Parameters != nil {
		b, err := json.Marshal(spec.Parameters)
		if err == nil {
			err = json.Unmarshal(b, &params)
		}
		if err != nil {
			return api.Tool{}, fmt.Errorf("%w: the parameters of tool %q are not a JSON Schema Ollama can take: %v",
				provider.ErrRejected, spec.Name, err)
		}
	}
	return api.Tool{
		Type: "function",
		Function: api.ToolFunction{
			Name:        spec.Name,
			Description: spec.Description,
			Parameters:  params,
		},
	}, nil
}

// chunks splits one Ollama response into provider chunks with one field set
// each, thinking before content before tool calls, then the final chunk.
func chunks(resp api.ChatResponse) []provider.Chunk {
	var out []provider.Chunk
	if resp.Message.Thinking != "" {
		out = append(out, provider.Chunk{Thinking: resp.Message.Thinking})
	}
	if resp.Message.Content != "" {
		out = append(out, provider.Chunk{Content: resp.Message.Content})
	}
	if len(resp.Message.ToolCalls) > 0 {
		calls := make([]provider.ToolCall, len(resp.Message.ToolCalls))
		for i, tc := range resp.Message.ToolCalls {
			calls[i] = provider.ToolCall{
				ID:        tc.ID,
				Name:      tc.Function.Name,
				Arguments: tc.Function.Arguments.String(),
			}
		}
		out = append(out, provider.Chunk{ToolCalls: calls})
	}
	if resp.Done {
		out = append(out, provider.Chunk{
			Done:       true,
			DoneReason: resp.DoneReason,
			Usage: provider.Usage{
				PromptTokens: resp.PromptEvalCount,
				OutputTokens: resp.EvalCount,
				DurationNS:   resp.TotalDuration.Nanoseconds(),
			},
		})
	}
	return out
}

// RequestJSON is the body Stream sends to /api/chat for req, as the Ollama
// client encodes it; `quire replay -request` prints it.
func RequestJSON(req provider.Request) ([]byte, error) {
	chat, err := chatRequest(req)
	if err != nil {
		return nil, err
	}
	return json.Marshal(chat)
}
