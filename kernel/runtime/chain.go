package runtime

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"quire/kernel/compact"
	"quire/kernel/provider"
)

// Failure is a model error on its way through the error chain.
type Failure struct {
	Session string
	Step    int
	Attempt int // retries made so far for this step
	Class   string
	Err     error
	// Request is what was sent (the overflow handler measures it).
	Request provider.Request
	// Trained is the model's trained context length frozen with the run
	// (event.Capabilities.Trained; 0 unknown): a request already asking for
	// it cannot be helped by a longer context.
	Trained int
}

// Verdict is a handler's answer: retry after a pause, or give up with a
// sentence for the user.
type Verdict struct {
	Retry   bool
	After   time.Duration
	Reason  string
	Message string
	// WithoutTools: the retry, and the rest of the run, declares no tools
	// (recorded on the step.retried, so the request is rebuilt without them).
	WithoutTools bool
}

// ErrorHandler looks at a failure; handled is false when the failure is not
// its kind, and the next handler is asked (seed 000 §6: any handler may
// answer "handled, retry").
type ErrorHandler func(ctx context.Context, f Failure) (v Verdict, handled bool)

// Classes of model failures.
const (
	ClassOverloaded = "overloaded"
	ClassNetwork    = "network"
	ClassOverflow   = "context-overflow"
	ClassModel      = "model-missing"
	ClassRejected   = "rejected"
	ClassNoTools    = "no-tools"
	ClassServer     = "server"
	ClassRunner     = "runner-stopped"
	ClassCancelled  = "cancelled"
)

func classify(err error) string {
	switch {
	case errors.Is(err, provider.ErrOverloaded):
		return ClassOverloaded
	case errors.Is(err, provider.ErrUnavailable), errors.Is(err, provider.ErrStreamBroken):
		return ClassNetwork
	case errors.Is(err, provider.ErrModelMissing):
		return ClassModel
	case errors.Is(err, provider.ErrRejected) && overflowed(err):
		return ClassOverflow
	case errors.Is(err, provider.ErrNoTools):
		return ClassNoTools
	case errors.Is(err, provider.ErrRejected):
		return ClassRejected
	case errors.Is(err, provider.ErrRunnerStopped):
		return ClassRunner
	}
	return ClassServer
}

// overflowed recognises Ollama's refusal of a prompt longer than num_ctx
// (sent because Quire always asks it not to truncate).
func overflowed(err error) bool {
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "context length") || strings.Contains(msg, "context window")
}

// Compactor shortens a session's history (by replace events) so the next
// request fits; the overflow handler calls it.
type Compactor func(ctx context.Context, session string) error

// WithCompactor sets what the context-overflow handler calls.
func WithCompactor(c Compactor) Option { return func(r *Runtime) { r.compactor = c } }

// defaultHandlers is the chain after any handlers given by options: busy
// server -> backoff with jitter and a cap; network -> a bounded retry;
// a dead model runner -> one retry (Ollama starts a new runner for it);
// tools refused by a model that cannot call them -> one retry without
// tools; overflow -> compact, and retry only if the history really got
// shorter; anything else -> give up with what the adapter said.
func defaultHandlers(r *Runtime) []ErrorHandler {
	return []ErrorHandler{
		func(_ context.Context, f Failure) (Verdict, bool) {
			if f.Class != ClassOverloaded {
				return Verdict{}, false
			}
			if f.Attempt >= 4 {
				return Verdict{Message: "The model server stayed busy after several tries; try again in a minute."}, true
			}
			return Verdict{Retry: true, After: backoff(f.Attempt, r.jitter), Reason: "the model server is busy"}, true
		},
		func(_ context.Context, f Failure) (Verdict, bool) {
			if f.Class != ClassNetwork {
				return Verdict{}, false
			}
			if f.Attempt >= 2 {
				return Verdict{}, false // give up with the adapter's sentence
			}
			return Verdict{Retry: true, After: backoff(f.Attempt, r.jitter), Reason: "the connection to the model failed"}, true
		},
		func(_ context.Context, f Failure) (Verdict, bool) {
			if f.Class != ClassRunner || f.Attempt >= 1 {
				return Verdict{}, false // once: a runner that dies again will again
			}
			return Verdict{Retry: true, After: backoff(f.Attempt, r.jitter), Reason: "the model runner stopped; Ollama starts a new one"}, true
		},
		func(_ context.Context, f Failure) (Verdict, bool) {
			if f.Class != ClassNoTools || len(f.Request.Tools) == 0 {
				return Verdict{}, false
			}
			r.refusesTools(f.Request.Model)
			return Verdict{Retry: true, WithoutTools: true, Reason: "Ollama said the model cannot use tools, so the step is asked again without them"}, true
		},
		func(ctx context.Context, f Failure) (Verdict, bool) {
			if f.Class != ClassOverflow {
				return Verdict{}, false
			}
			fit := measure(f.Request, f.Trained, r.cal.Factor(f.Request.Model))
			if r.compactor == nil || f.Attempt >= 2 {
				return Verdict{Message: fit.sentence(false)}, true
			}
			before, err := r.historySize(ctx, f.Session)
			if err == nil {
				err = r.compactor(ctx, f.Session)
			}
			after, err2 := r.historySize(ctx, f.Session)
			if err != nil || err2 != nil || after >= before {
				// Retrying a request that did not shrink would fail the same way.
				return Verdict{Message: fit.sentence(true)}, true
			}
			return Verdict{Retry: true, Reason: fmt.Sprintf("compacted the history from %d to %d characters", before, after)}, true
		},
	}
}

// requestFit is how a request that overflowed the model's context is made
// up, by the raw estimate (kernel/compact): what Quire adds to every request
// (the system text and the tool declarations) and what the conversation
// says, against the context length asked for.
type requestFit struct {
	fixed, said, tools, window int
	first                      bool // nothing yet but system text and user messages
	atMax                      bool // the window is the model's trained length: only another model has more
}

// measure makes up the requestFit of req. The figures are the raw
// estimate corrected by factor (what the server
// counted for this model so far); and since the server refused the
// request, it holds more than the window whatever the estimate says: an
// estimate that says otherwise is scaled up until it agrees, so the
// sentence never contradicts its own numbers.
func measure(req provider.Request, trained int, factor float64) requestFit {
	fit := requestFit{fixed: compact.ToolsTokens(req.Tools), tools: len(req.Tools), window: req.ContextLen, first: true,
		atMax: trained > 0 && req.ContextLen >= trained}
	for _, m := range req.Messages {
		switch m.Role {
		case provider.RoleSystem:
			fit.fixed += compact.MessageTokens(m)
		case provider.RoleAssistant, provider.RoleTool:
			fit.first = false
			fit.said += compact.MessageTokens(m)
		default:
			fit.said += compact.MessageTokens(m)
		}
	}
	if total := float64(fit.fixed+fit.said) * factor; total > 0 && fit.window > 0 && total <= float64(fit.window) {
		factor *= float64(fit.window+1) / total
	}
	fit.fixed = int(math.Ceil(float64(fit.fixed) * factor))
	fit.said = int(math.Ceil(float64(fit.said) * factor))
	return fit
}

// sentence says exactly why the request does not fit and what to choose
// instead: on a first message, never "start a new chat"; at the model's
// trained length, never "raise the context length" (Settings cannot).
func (f requestFit) sentence(compacted bool) string {
	bigger, raise := "Choose a model with a larger context, or raise the context length in Settings.", ", or raise the context length in Settings."
	if f.atMax {
		bigger, raise = "Choose a model with a larger context.", ", or choose a model with a larger context."
	}
	switch {
	case f.first && f.fixed >= f.said && f.fixed >= f.window:
		return fmt.Sprintf("Quire's instructions and %s take about %d tokens, more than the %d this model's context holds. %s",
			toolWords(f.tools), f.fixed, f.window, bigger)
	case f.first && f.fixed >= f.said:
		return fmt.Sprintf("Quire's instructions and %s take about %d tokens of the %d this model's context holds, "+
			"and your message (about %d) does not fit in the %d left. %s", toolWords(f.tools), f.fixed, f.window, f.said, f.window-f.fixed, bigger)
	case f.first:
		with := ""
		if f.fixed > 0 {
			with = fmt.Sprintf(", with about %d more for Quire's instructions and tools", f.fixed)
		}
		remedy := "Shorten the message, choose a model with a larger context, or raise the context length in Settings."
		if f.atMax {
			remedy = "Shorten the message, or choose a model with a larger context."
		}
		return fmt.Sprintf("Your message is too long for this model's context: about %d tokens%s, and the context holds %d. %s",
			f.said, with, f.window, remedy)
	case compacted:
		return "This conversation no longer fits in the model's context window, and compacting it did not make it smaller. Start a new chat" + raise
	}
	return "This conversation no longer fits in the model's context window. Start a new chat" + raise
}

// toolWords names the tool declarations of a request for a sentence.
func toolWords(n int) string {
	switch n {
	case 0:
		return "the conversation's setup"
	case 1:
		return "the description of its one tool"
	}
	return fmt.Sprintf("the descriptions of its %d tools", n)
}

// backoff is 0.5 s doubling per attempt, capped at 8 s, with ±20% jitter.
func backoff(attempt int, jitter func() float64) time.Duration {
	d := 500 * time.Millisecond << min(attempt, 4)
	return time.Duration(float64(d) * (0.8 + 0.4*jitter()))
}

// historySize is the size of what the model would see, in characters.
func (r *Runtime) historySize(ctx context.Context, session string) (int, error) {
	msgs, err := r.reader.history.Messages(ctx, session)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, m := range msgs {
		n += len(m.Content)
		for _, c := range m.ToolCalls {
			n += len(c.Arguments)
		}
	}
	return n, nil
}

// judge runs the chain.
func (r *Runtime) judge(ctx context.Context, f Failure) Verdict {
	for _, h := range r.handlers {
		if v, ok := h(ctx, f); ok {
			return v
		}
	}
	return Verdict{}
}

func defaultJitter() float64 { return rand.Float64() }
