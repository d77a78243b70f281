package ollamatest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
)

// The OpenAI-compatible API (/v1/chat/completions, /v1/models,
// /v1/embeddings), as llama.cpp's server and Ollama's /v1 speak it, over
// the same models and the same scripted turns as /api/chat: a request is
// read into an Ollama chat request and answered by the same code, so a
// scenario plays the same against either adapter. Where the runners
// differ the fake takes llama.cpp's side, the stricter one: a prompt
// longer than the loaded context is refused (exceed_context_size_error),
// never silently cut, and a tool call streams as llama.cpp streams it — its
// id and the start of its name first, then the rest of the name and its
// arguments in pieces, the calls of one reply interleaved by index.

// WithLoadedContext sets the context a /v1 request runs with, as a runner
// started with `-c n` (llama.cpp) or a context length chosen at load (LM
// Studio, Jan); the API itself has no field for it. Default: the model's
// ContextLength.
func WithLoadedContext(n int) Option { return func(s *Server) { s.loadedCtx = n } }

// oaMessage is a chat message as the OpenAI-compatible API writes it.
type oaMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"` // a string, an array of parts, or null
	ToolCalls  []oaToolCall    `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
	Name       string          `json:"name,omitempty"`
}

type oaToolCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type oaRequest struct {
	Model         string      `json:"model"`
	Messages      []oaMessage `json:"messages"`
	Tools         []api.Tool  `json:"tools"`
	Stream        bool        `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxTokens           *int     `json:"max_tokens"`
	MaxCompletionTokens *int     `json:"max_completion_tokens"`
	Temperature         *float64 `json:"temperature"`
}

// content reads a message's content: a string, or the text parts of an
// array of parts.
func content(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("invalid message content: %v", err)
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), nil
}

// fromOpenAI is the Ollama chat request an OpenAI-compatible one means,
// or a sentence saying why it cannot be read.
func (s *Server) fromOpenAI(body []byte) (api.ChatRequest, bool, string) {
	var oa oaRequest
	if bad := parseBody(body, &oa); bad != "" {
		return api.ChatRequest{}, false, bad
	}
	truncate := false // a strict runner refuses an overlong prompt
	req := api.ChatRequest{Model: oa.Model, Stream: &oa.Stream, Tools: oa.Tools, Truncate: &truncate, Options: map[string]any{}}
	for _, m := range oa.Messages {
		text, err := content(m.Content)
		if err != nil {
			return api.ChatRequest{}, false, err.Error()
		}
		msg := api.Message{Role: m.Role, Content: text, ToolCallID: m.ToolCallID, ToolName: m.Name}
		for i, tc := range m.ToolCalls {
			args := api.NewToolCallFunctionArguments()
			if err := json.Unmarshal([]byte(tc.Function.Arguments), &args); err != nil {
				return api.ChatRequest{}, false, fmt.Sprintf("invalid tool call arguments: %v", err)
			}
			msg.ToolCalls = append(msg.ToolCalls, api.ToolCall{ID: tc.ID, Function: api.ToolCallFunction{Index: i, Name: tc.Function.Name, Arguments: args}})
		}
		req.Messages = append(req.Messages, msg)
	}
	if n := oa.MaxCompletionTokens; n != nil {
		req.Options["num_predict"] = float64(*n)
	} else if n := oa.MaxTokens; n != nil {
		req.Options["num_predict"] = float64(*n)
	}
	if oa.Temperature != nil {
		req.Options["temperature"] = *oa.Temperature
	}
	if m, ok := s.find(oa.Model); ok {
		req.Options["num_ctx"] = float64(m.ContextLength)
		if s.loadedCtx > 0 {
			req.Options["num_ctx"] = float64(s.loadedCtx)
		}
	}
	usage := oa.StreamOptions != nil && oa.StreamOptions.IncludeUsage
	return req, usage, ""
}

// handleOpenAIChat answers POST /v1/chat/completions.
func (s *Server) handleOpenAIChat(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	out := &sse{w: w, rc: http.NewResponseController(w), created: start.Unix(), id: "chatcmpl-fake"}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		out.reject(http.StatusBadRequest, err.Error())
		return
	}
	req, usage, bad := s.fromOpenAI(body)
	rec := Request{Body: body, OpenAI: true}
	if bad == "" {
		rec.Chat = req
	}
	s.record(rec)
	if bad != "" {
		out.reject(http.StatusBadRequest, bad)
		return
	}
	if len(req.Messages) == 0 {
		out.reject(http.StatusBadRequest, "'messages' must be a non-empty array")
		return
	}
	out.model, out.usage = req.Model, usage
	s.answer(r, &req, out, start)
}

// sse writes a reply as the OpenAI-compatible API's server-sent events.
type sse struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	wrote   bool
	model   string
	id      string
	created int64
	usage   bool         // stream_options.include_usage
	calls   []oaToolCall // the reply's calls, streamed at its end
}

// oaError is the API's error object; llama.cpp sends a number as code.
func oaError(status int, msg string) map[string]any {
	typ := "invalid_request_error"
	switch {
	case msg == "the input length exceeds the context length":
		// llama.cpp's words and type (tools/server/server-common.cpp).
		typ, msg = "exceed_context_size_error", "the request exceeds the available context size, try increasing it"
	case status == http.StatusNotFound:
		typ = "not_found_error"
	case status >= 500:
		typ = "server_error"
	}
	return map[string]any{"error": map[string]any{"code": status, "message": msg, "type": typ}}
}

func (o *sse) reject(status int, msg string) { writeJSON(o.w, status, oaError(status, msg)) }

func (o *sse) event(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if !o.wrote {
		o.w.Header().Set("Content-Type", "text/event-stream")
		o.wrote = true
	}
	if _, err := fmt.Fprintf(o.w, "data: %s\n\n", b); err != nil {
		return err
	}
	return o.rc.Flush()
}

func (o *sse) chunk(delta map[string]any, finish any) map[string]any {
	return map[string]any{"id": o.id, "object": "chat.completion.chunk", "created": o.created, "model": o.model,
		"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
}

func (o *sse) piece(resp api.ChatResponse) error {
	m := resp.Message
	for _, tc := range m.ToolCalls {
		o.calls = append(o.calls, oaCall(tc))
	}
	if m.Thinking != "" {
		if err := o.event(o.chunk(map[string]any{"role": "assistant", "reasoning_content": m.Thinking}, nil)); err != nil {
			return err
		}
	}
	if m.Content != "" {
		return o.event(o.chunk(map[string]any{"role": "assistant", "content": m.Content}, nil))
	}
	return nil
}

func oaCall(tc api.ToolCall) oaToolCall {
	c := oaToolCall{ID: tc.ID, Type: "function"}
	c.Function.Name, c.Function.Arguments = tc.Function.Name, tc.Function.Arguments.String()
	return c
}

// streamCalls sends the reply's calls in deltas, interleaved by index:
// each call's id and first half of its name, then the other half, then
// the first half of its arguments, then the rest.
func (o *sse) streamCalls() {
	half := func(s string) (string, string) { return s[:len(s)/2], s[len(s)/2:] }
	for step := range 4 {
		for i, c := range o.calls {
			d := map[string]any{"index": i}
			name1, name2 := half(c.Function.Name)
			args1, args2 := half(c.Function.Arguments)
			switch step {
			case 0:
				d["id"], d["type"], d["function"] = c.ID, "function", map[string]any{"name": name1, "arguments": ""}
			case 1:
				d["function"] = map[string]any{"name": name2}
			case 2:
				d["function"] = map[string]any{"arguments": args1}
			case 3:
				d["function"] = map[string]any{"arguments": args2}
			}
			o.event(o.chunk(map[string]any{"tool_calls": []any{d}}, nil))
		}
	}
}

func (o *sse) finish(reason string) string {
	if reason == "stop" && len(o.calls) > 0 {
		return "tool_calls"
	}
	return reason
}

func usageOf(final api.ChatResponse) map[string]int {
	return map[string]int{"prompt_tokens": final.PromptEvalCount, "completion_tokens": final.EvalCount,
		"total_tokens": final.PromptEvalCount + final.EvalCount}
}

func (o *sse) end(final api.ChatResponse) {
	o.streamCalls()
	o.event(o.chunk(map[string]any{}, o.finish(final.DoneReason)))
	if o.usage {
		o.event(map[string]any{"id": o.id, "object": "chat.completion.chunk", "created": o.created, "model": o.model,
			"choices": []any{}, "usage": usageOf(final)})
	}
	fmt.Fprint(o.w, "data: [DONE]\n\n")
	o.rc.Flush()
}

func (o *sse) whole(final api.ChatResponse) {
	for _, tc := range final.Message.ToolCalls {
		o.calls = append(o.calls, oaCall(tc))
	}
	msg := map[string]any{"role": "assistant", "content": final.Message.Content}
	if final.Message.Thinking != "" {
		msg["reasoning_content"] = final.Message.Thinking
	}
	if len(o.calls) > 0 {
		msg["tool_calls"] = o.calls
	}
	writeJSON(o.w, http.StatusOK, map[string]any{"id": o.id, "object": "chat.completion", "created": o.created, "model": o.model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": o.finish(final.DoneReason)}},
		"usage":   usageOf(final)})
}

// fail ends a reply with an error: as llama.cpp does, an HTTP error before
// anything was written, else an error event in the stream.
func (o *sse) fail(status int, msg string) {
	if !o.wrote {
		o.reject(status, msg)
		return
	}
	o.event(oaError(status, msg))
}

func (o *sse) drop() {
	if o.wrote {
		o.rc.Flush()
	}
	conn, _, err := o.rc.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	conn.Close()
}

// handleOpenAIModels answers GET /v1/models with every installed model,
// with llama.cpp's meta.n_ctx_train (the one place the API says a model's
// context length) unless the flavour is a runner that leaves it out.
func (s *Server) handleOpenAIModels(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	data := make([]any, len(s.models))
	for i, m := range s.models {
		entry := map[string]any{"id": m.name.DisplayShortest(), "object": "model", "created": m.modifiedAt.Unix(), "owned_by": "library"}
		if s.flavour == FlavourDefault || s.flavour == FlavourLlamaCpp {
			entry["meta"] = map[string]any{"n_ctx_train": m.ContextLength}
		}
		data[i] = entry
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

// handleOpenAIEmbeddings answers POST /v1/embeddings with the vectors
// /api/embed gives the same texts.
func (s *Server) handleOpenAIEmbeddings(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string `json:"model"`
		Input any    `json:"input"`
	}
	if !decode(w, r, &req) {
		return
	}
	var input []string
	switch in := req.Input.(type) {
	case string:
		input = []string{in}
	case []any:
		for _, v := range in {
			text, ok := v.(string)
			if !ok {
				writeJSON(w, http.StatusBadRequest, oaError(http.StatusBadRequest, "invalid input type"))
				return
			}
			input = append(input, text)
		}
	default:
		writeJSON(w, http.StatusBadRequest, oaError(http.StatusBadRequest, "invalid input type"))
		return
	}
	m, ok := s.find(req.Model)
	if !ok {
		writeJSON(w, http.StatusNotFound, oaError(http.StatusNotFound, fmt.Sprintf("model %q not found, try pulling it first", req.Model)))
		return
	}
	if !m.has("embedding") {
		writeJSON(w, http.StatusBadRequest, oaError(http.StatusBadRequest, fmt.Sprintf("%q does not support embeddings", req.Model)))
		return
	}
	data := make([]any, len(input))
	tokens := 0
	for i, text := range input {
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": Embedding(text, m.EmbeddingLength)}
		tokens += TextTokens(text)
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": tokens, "total_tokens": tokens}})
}
