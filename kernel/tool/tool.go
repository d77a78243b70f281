// Package tool is the kernel's vocabulary for tools: what a tool declares
// (name, schema, effects, idempotency, timeout), the result every tool
// returns, and the permission decision as a pure function of a tool's
// effects and the user's profile.
//
// It imports only the standard library. It must never import a database
// driver, a model client, Wails, memory/, rag/ or tools/ (the concrete tools
// live there and depend on this package, not the other way round).
package tool

import (
	"context"
	"encoding/json"
	"strings"
	"time"
)

// Effect is what a tool may do to the world, as a set of bits.
type Effect uint8

const (
	ReadFs Effect = 1 << iota
	WriteFs
	Net
	Exec
)

// AllEffects lists every effect, in order.
var AllEffects = []Effect{ReadFs, WriteFs, Net, Exec}

func (e Effect) String() string {
	if e == 0 {
		return "none"
	}
	var parts []string
	for i, name := range []string{"read", "write", "net", "exec"} {
		if e&AllEffects[i] != 0 {
			parts = append(parts, name)
		}
	}
	return strings.Join(parts, "+")
}

// Idempotency says whether running a tool twice is the same as once, which
// decides whether the kernel may retry it.
type Idempotency string

const (
	Safe   Idempotency = "safe"   // no effect, or the same effect every time
	Keyed  Idempotency = "keyed"  // idempotent given the call's request id
	Unsafe Idempotency = "unsafe" // never retried automatically
)

// Spec is what a tool declares about itself.
type Spec struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"` // JSON Schema of the arguments
	Effects     Effect         `json:"effects"`
	Idempotency Idempotency    `json:"idempotency"`
	Timeout     time.Duration  `json:"timeout"`
	Parallel    bool           `json:"parallel"` // may run alongside other calls
}

// Retryable reports whether the kernel may run the call again on its own.
func (s Spec) Retryable() bool { return s.Idempotency == Safe || s.Idempotency == Keyed }

// Status classifies a result so the model can tell "it broke" from "it found
// nothing" (seed 002 decision 9).
type Status string

const (
	Success Status = "success"
	Failure Status = "failure"
	Partial Status = "partial"
	Empty   Status = "empty"
	// Denied: the user or the policy refused the call; it did not run.
	Denied Status = "denied"
	// Cancelled: the turn was stopped before the call finished.
	Cancelled Status = "cancelled"
	// UnknownCompletion: the call was dispatched and Quire stopped before it
	// reported; it may or may not have taken effect, so it is never re-run
	// automatically.
	UnknownCompletion Status = "unknown_completion"
)

// Result is what every tool returns. Content is what the model reads.
type Result struct {
	Status  Status `json:"status"`
	Content string `json:"content"`
	Data    any    `json:"data,omitempty"`
	Meta    Meta   `json:"meta"`
}

// Meta is how the call went.
type Meta struct {
	DurationNS int64  `json:"durationNs,omitempty"`
	Log        string `json:"log,omitempty"`
	Attempts   int    `json:"attempts,omitempty"`
}

// Call is one call of a tool by the model.
type Call struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Tool is a tool the kernel can run.
type Tool interface {
	Spec() Spec
	Run(ctx context.Context, call Call) (Result, error)
}

// Profile is how much the user lets the assistant do without asking.
type Profile string

const (
	Minimal Profile = "minimal" // read-only: anything else is refused
	AskMe   Profile = "ask"     // reads run; everything else asks first
	Write   Profile = "write"   // reads and note writes run; net and exec ask
)

// Decision is what happens to a call before it runs.
type Decision string

const (
	Allow Decision = "allow"
	Deny  Decision = "deny"
	Ask   Decision = "ask"
)

// Decide is the permission policy: a pure function of a tool's effects and
// the profile. A tool with no effects always runs.
func Decide(e Effect, p Profile) Decision {
	if e == 0 || e == ReadFs {
		return Allow
	}
	switch p {
	case Minimal:
		return Deny
	case Write:
		if e&(Net|Exec) == 0 {
			return Allow
		}
		return Ask
	default:
		return Ask
	}
}
