package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"quire/kernel/provider"
)

// Sentinel errors of this package.
var (
	// ErrBadBase: ParseBase cannot read its input as a server's address.
	// (Whether it may be off this machine is config's rule, runnerRemote.)
	ErrBadBase = errors.New("not a usable server address")
)

// apiError is the error object OpenAI-compatible servers answer with:
// {"error": {"message", "type", "code"}} (llama.cpp adds n_ctx and
// n_prompt_tokens to an overflow).
type apiError struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"` // a string (OpenAI) or a number (llama.cpp)
}

func (a apiError) code() string { return strings.Trim(string(a.Code), `"`) }

// httpError is a reply with an HTTP error status, before any event.
type httpError struct {
	status int
	apiError
}

func (e *httpError) Error() string {
	return fmt.Sprintf("%d %s: %s", e.status, http.StatusText(e.status), e.Message)
}

// streamError is an error event in the middle of a reply.
type streamError struct{ apiError }

func (e *streamError) Error() string { return "error in the stream: " + e.Message }

// wireError is a reply that does not read as the API's.
type wireError struct{ msg string }

func (e *wireError) Error() string { return e.msg }

// statusError reads an error reply's body: the API's error object, a bare
// {"error": "text"} (Ollama's native form), or the text as it came.
func statusError(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	e := &httpError{status: resp.StatusCode}
	var obj struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(b, &obj) == nil && len(obj.Error) > 0 {
		if json.Unmarshal(obj.Error, &e.apiError) != nil {
			json.Unmarshal(obj.Error, &e.Message)
		}
	}
	if e.Message == "" {
		e.Message = strings.TrimSpace(string(b))
	}
	return e
}

// failure turns an error into a provider sentinel with a sentence.
func (p *Provider) failure(ctx context.Context, base *url.URL, err error, model string) error {
	if ctx.Err() != nil {
		return provider.Stopped(ctx, "the model server")
	}
	err = classify(err, model, base)
	p.log.Debug("openai request failed", "error", err)
	return err
}

func (p *Provider) broken(ctx context.Context, base *url.URL, model string) error {
	if ctx.Err() != nil {
		return provider.Stopped(ctx, "the model server")
	}
	return &provider.Error{Kind: provider.ErrStreamBroken,
		Message: fmt.Sprintf("The server at %s stopped sending the reply of %s before it finished: check that it is still running", base, model)}
}

func classify(err error, model string, base *url.URL) error {
	failAs := func(kind, also error, format string, args ...any) error {
		return &provider.Error{Kind: kind, Also: also, Message: fmt.Sprintf(format, args...), Err: err}
	}
	fail := func(kind error, format string, args ...any) error { return failAs(kind, nil, format, args...) }
	var status *httpError
	var inStream *streamError
	switch {
	case provider.RunnerStopped(err):
		return failAs(provider.ErrServer, provider.ErrRunnerStopped,
			"The model runner of the server at %s stopped while answering: see its log (it often means the model needs more memory than is free)", base)
	case errors.As(err, &status):
		msg := strings.ToLower(status.Message)
		switch {
		case noTools(msg):
			return failAs(provider.ErrRejected, provider.ErrNoTools, "The model %q cannot use tools on the server at %s: choose one that can in Settings", model, base)
		case overflow(status.apiError):
			// "context length" is what the kernel's overflow handler reads.
			return fail(provider.ErrRejected, "The conversation no longer fits the context length of %q on the server at %s: Quire will shorten it", model, base)
		case status.status == http.StatusNotFound && strings.Contains(msg, "model"):
			return fail(provider.ErrModelMissing, "The server at %s does not have the model %q: load or download it there, or choose another model", base, model)
		case status.status == http.StatusNotFound:
			return fail(provider.ErrUnavailable, "%s does not answer like an OpenAI-compatible server: check the address (it usually ends in /v1)", base)
		case status.status == http.StatusTooManyRequests || status.status == http.StatusServiceUnavailable:
			return fail(provider.ErrOverloaded, "The server at %s is busy: Quire will try again shortly", base)
		case status.status >= 500:
			return fail(provider.ErrServer, "The server at %s failed: see its log", base)
		case status.status == http.StatusUnauthorized || status.status == http.StatusForbidden:
			return fail(provider.ErrRejected, "The server at %s asks for a key; Quire expects a local server that does not", base)
		default:
			return fail(provider.ErrRejected, "The server at %s refused the request", base)
		}
	case errors.As(err, &inStream):
		if overflow(inStream.apiError) {
			return fail(provider.ErrRejected, "The conversation no longer fits the context length of %q on the server at %s: Quire will shorten it", model, base)
		}
		return fail(provider.ErrServer, "The server at %s failed while answering: see its log", base)
	case provider.DialFailed(err):
		return fail(provider.ErrUnavailable, "Nothing answers at %s: start the server (LM Studio, llama.cpp, Jan, Ollama), or set the right address", base)
	case provider.ConnectionCut(err):
		return fail(provider.ErrStreamBroken, "The server at %s closed the connection before it finished: check that it is still running", base)
	}
	var wire *wireError
	if errors.As(err, &wire) {
		return fail(provider.ErrServer, "The server at %s sent a reply Quire cannot read", base)
	}
	if _, ok := errors.AsType[*url.Error](err); ok {
		return fail(provider.ErrUnavailable, "Quire cannot talk to the server at %s: check the address", base)
	}
	return fail(provider.ErrServer, "The server at %s failed while answering: see its log", base)
}

// noTools recognises the servers' words for a model that takes no tools:
// Ollama's "does not support tools", llama.cpp's "tools param requires
// --jinja flag", LM Studio's and vLLM's "tool choice"/"tools" refusals.
func noTools(msg string) bool {
	for _, s := range []string{"does not support tools", "requires --jinja", "tools are not supported", "does not support tool"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// overflow recognises a prompt longer than the context: OpenAI's code
// context_length_exceeded, llama.cpp's type exceed_context_size_error,
// Ollama's "exceeds the context length", vLLM's "maximum context length".
func overflow(a apiError) bool {
	msg := strings.ToLower(a.Message)
	return a.code() == "context_length_exceeded" || a.Type == "exceed_context_size_error" ||
		strings.Contains(msg, "context length") || strings.Contains(msg, "context size") || strings.Contains(msg, "context window")
}
