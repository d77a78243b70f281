package ollama

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"github.com/ollama/ollama/api"

	"quire/kernel/provider"
)

// ErrBadHost: ParseHost cannot read its input as the address of a server.
var ErrBadHost = errors.New("not a usable Ollama address")

// ended decides how a streamed call (chat or pull) ended. Ollama's client
// returns nil not only after the last line but also when the context is
// cancelled or the connection breaks mid-stream, because it never checks
// its scanner's error; so success is only what complete says it is.
func (p *Provider) ended(ctx context.Context, err error, complete bool, modelName, what string) error {
	switch {
	case err != nil:
		return p.failure(ctx, err, modelName)
	case complete:
		return nil
	case ctx.Err() != nil:
		return stopped(ctx)
	}
	err = &provider.Error{Kind: provider.ErrStreamBroken,
		Message: fmt.Sprintf("Ollama at %s stopped sending %s before it finished: check that Ollama is still running", p.at(ctx), what)}
	p.log.Debug("ollama stream broken", "error", err)
	return err
}

// failure turns an error from Ollama's client into a provider sentinel,
// keeping Ollama's own error (with %w) and saying what to do about it.
// modelName is empty for calls that are not about a model.
func (p *Provider) failure(ctx context.Context, err error, modelName string) error {
	if ctx.Err() != nil {
		// Whatever the transport made of it, the caller stopped us.
		return stopped(ctx)
	}
	err = p.classify(err, modelName, p.at(ctx))
	p.log.Debug("ollama request failed", "error", err)
	return err
}

func (p *Provider) classify(err error, modelName string, host fmt.Stringer) error {
	failAs := func(kind, also error, format string, args ...any) error {
		return &provider.Error{Kind: kind, Also: also, Message: fmt.Sprintf(format, args...), Err: err}
	}
	fail := func(kind error, format string, args ...any) error { return failAs(kind, nil, format, args...) }
	var status api.StatusError
	var auth api.AuthorizationError
	switch {
	case runnerStopped(err):
		return failAs(provider.ErrServer, provider.ErrRunnerStopped,
			"The model runner of Ollama at %s stopped while answering: see the Ollama server log (it often means the model needs more memory than is free)", host)
	case errors.As(err, &status):
		switch {
		case status.StatusCode == http.StatusBadRequest && strings.Contains(status.ErrorMessage, "does not support tools"):
			return failAs(provider.ErrRejected, provider.ErrNoTools, "The model %q cannot use tools: choose one that can in Settings", modelName)
		case status.StatusCode == http.StatusNotFound && modelName != "":
			return fail(provider.ErrModelMissing, "Ollama at %s does not have the model %q: run `ollama pull %s`, or choose another model", host, modelName, modelName)
		case status.StatusCode == http.StatusNotFound:
			return fail(provider.ErrUnavailable, "%s does not answer like Ollama: check the Ollama address", host)
		case status.StatusCode == http.StatusTooManyRequests || status.StatusCode == http.StatusServiceUnavailable:
			return fail(provider.ErrOverloaded, "Ollama at %s is busy: Quire will try again shortly", host)
		case status.StatusCode >= 500:
			return fail(provider.ErrServer, "Ollama at %s failed: see the Ollama server log", host)
		default:
			return fail(provider.ErrRejected, "Ollama at %s refused the request", host)
		}
	case errors.As(err, &auth):
		return fail(provider.ErrRejected, "Ollama at %s asks to sign in; Quire expects a local Ollama that does not", host)
	case dialFailed(err):
		return fail(provider.ErrUnavailable, "Ollama is not running at %s: start it with `ollama serve`, or set the right address", host)
	case connectionCut(err):
		return fail(provider.ErrStreamBroken, "Ollama at %s closed the connection before answering: check that Ollama is still running", host)
	}
	if _, ok := errors.AsType[*url.Error](err); ok {
		// Reached something, but it does not speak HTTP as Ollama does.
		return fail(provider.ErrUnavailable, "Quire cannot talk to Ollama at %s: check the Ollama address", host)
	}
	// What is left is an {"error": …} line in the middle of a stream, which
	// Ollama's client returns as a plain error: the model runner failed.
	return fail(provider.ErrServer, "Ollama at %s failed while answering: see the Ollama server log", host)
}

// runnerStopped recognises Ollama 0.17's words for a model runner that died
// (llm/server.go): at load, "llama runner process has terminated" or "…no
// longer running" (a 500); found dead, "model runner has unexpectedly
// stopped"; dying mid-reply, "an error was encountered while running the
// model: unexpected EOF" (an error line: the runner's connection ended).
// Ollama starts a new runner on the next request.
func runnerStopped(err error) bool {
	msg := err.Error()
	for _, s := range []string{"llama runner process has terminated", "llama runner process no longer running", "model runner has unexpectedly stopped",
		"an error was encountered while running the model: unexpected EOF"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// dialFailed reports whether err means nothing accepted the connection:
// Ollama is not running there, or the name does not resolve.
func dialFailed(err error) bool {
	if op, ok := errors.AsType[*net.OpError](err); ok && op.Op == "dial" {
		return true
	}
	if _, ok := errors.AsType[*net.DNSError](err); ok {
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED)
}

// connectionCut reports whether the server hung up before it answered.
func connectionCut(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// stopped is the error of a call whose context ended. It wraps the cause
// given to the context, and ctx.Err() as well when that is different, so
// errors.Is works for both the caller's reason and context.Canceled.
func stopped(ctx context.Context) error {
	cause, err := context.Cause(ctx), ctx.Err()
	if errors.Is(cause, err) {
		return fmt.Errorf("request to Ollama stopped: %w", cause)
	}
	return fmt.Errorf("request to Ollama stopped: %w (%w)", cause, err)
}
