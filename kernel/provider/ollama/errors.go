package ollama

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

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
		return provider.Stopped(ctx, "Ollama")
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
		return provider.Stopped(ctx, "Ollama")
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
	case provider.RunnerStopped(err):
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
	case provider.DialFailed(err):
		return fail(provider.ErrUnavailable, "Ollama is not running at %s: start it with `ollama serve`, or set the right address", host)
	case provider.ConnectionCut(err):
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
