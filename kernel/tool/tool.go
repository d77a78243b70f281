// Package tool is the kernel's vocabulary for tools: what a tool declares
// (name, schema, effects, idempotency, timeout), the result every tool
// returns, the permission decision as a pure function of a tool's effects and
// the user's profile, the lenient parse of a call's arguments (ParseArgs) and
// the "after" stage that redacts and truncates a result (Finish).
//
// It imports only the standard library, because kernel/core imports it and
// core's dependencies are the standard library and the kernel vocabulary
// only. What needs a JSON Schema library (the registry of tools, which
// checks each declared schema, and the strict validation of arguments) lives
// in the sub-package kernel/tool/registry, which core does not import. This
// package must never import a database driver, a model client, Wails,
// memory/, rag/ or tools/ (the concrete tools live there and depend on this
// package, not the other way round).
package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
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
	// WriteMemory changes what the assistant remembers, and so what later
	// conversations are told: remember, forget.
	WriteMemory
)

// AllEffects lists every effect, in order.
var AllEffects = []Effect{ReadFs, WriteFs, Net, Exec, WriteMemory}

// effectNames are the settings-file spellings of AllEffects, in the same order.
var effectNames = []string{"read", "write", "net", "exec", "memory"}

// String spells the set as a settings file does: "none", or the names of its
// effects joined with "+" in the order of AllEffects ("read+write").
// ParseEffects reads it back. Bits outside AllEffects, which no tool should
// declare, show as "unknown(0x..)" so they are never silently dropped.
func (e Effect) String() string {
	if e == 0 {
		return "none"
	}
	var parts []string
	var known Effect
	for i, name := range effectNames {
		known |= AllEffects[i]
		if e&AllEffects[i] != 0 {
			parts = append(parts, name)
		}
	}
	if rest := e &^ known; rest != 0 {
		parts = append(parts, fmt.Sprintf("unknown(%#x)", uint8(rest)))
	}
	return strings.Join(parts, "+")
}

// ParseEffects reads an effect set as written in a settings file: "none", or
// one or more of read, write, net, exec and memory joined with "+" ("read+write").
// Case and spaces around the names do not matter, and a name may repeat; an
// empty string and any other name are refused with ErrUnknownEffect, so a typo
// never turns into "no effects".
func ParseEffects(s string) (Effect, error) {
	trimmed := strings.TrimSpace(s)
	if strings.EqualFold(trimmed, "none") {
		return 0, nil
	}
	if trimmed == "" {
		return 0, fmt.Errorf("%w: the effect set is empty (write \"none\" for no effects)", ErrUnknownEffect)
	}
	var e Effect
	for _, part := range strings.Split(trimmed, "+") {
		i := slices.Index(effectNames, strings.ToLower(strings.TrimSpace(part)))
		if i < 0 {
			return 0, fmt.Errorf("%w: %q in %q (want \"none\", or %s joined with \"+\")",
				ErrUnknownEffect, strings.TrimSpace(part), s, strings.Join(effectNames, ", "))
		}
		e |= AllEffects[i]
	}
	return e, nil
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
	// Granted are effects of this tool the user lets run without asking (a
	// setting of the part that owns the tool, read when a run's capabilities
	// are frozen). Only Grantable effects count; see DecideGranted.
	Granted Effect `json:"granted,omitempty"`
	// Foreign: the declaration was written outside Quire (an MCP server's
	// description and schema), and goes into every request of a run that
	// offers it: text the user did not write, as a note's is, so a grant
	// to act unasked does not hold in that conversation (DecideGranted's
	// read).
	Foreign bool `json:"foreign,omitempty"`
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
	Write   Profile = "write"   // reads and note writes run; net, exec and memory writes ask
)

// Decision is what happens to a call before it runs.
type Decision string

const (
	Allow Decision = "allow"
	Deny  Decision = "deny"
	Ask   Decision = "ask"
)

// Decide is the permission policy: a pure function of a tool's effects and
// the profile. Under every known profile a tool with no effects, or that only
// reads, runs. A memory write asks under "ask" and "write" alike: what is
// remembered reaches every later conversation, so the notes profile does not
// cover it (a user lets it run unasked with its own setting: DecideGranted).
// An empty profile is one nobody set and means "ask", the default (as the
// runtime's settings do). Any other profile Decide does not know allows
// nothing: a typo in a settings file must never widen what runs without
// asking.
func Decide(e Effect, p Profile) Decision {
	if p == "" {
		p = AskMe
	}
	switch p {
	case Minimal, AskMe, Write:
	default:
		return Deny
	}
	if e == 0 || e == ReadFs {
		return Allow
	}
	switch p {
	case Minimal:
		return Deny
	case Write:
		// Within {ReadFs, WriteFs}, not merely "no Net, Exec or WriteMemory":
		// a bit this version does not know asks rather than runs.
		if e&^(ReadFs|WriteFs) == 0 {
			return Allow
		}
		return Ask
	default:
		return Ask
	}
}

// Grantable are the effects a user may let run without asking, beyond the
// profile: remembering, with the memory panel's "remember without asking".
// A tool cannot grant itself anything else (a note write, the network).
const Grantable = WriteMemory

// DecideGranted is Decide with the user's standing grant for the tool
// (Spec.Granted): a call Decide would ask about runs without a question when
// everything it may do beyond reading is granted — unless the conversation
// has read a document or a note (read), because what the model proposes may
// then come from that text, and the user is asked. A grant never lifts a
// deny (Minimal, an unknown profile) and only Grantable effects count.
func DecideGranted(e Effect, p Profile, granted Effect, read bool) Decision {
	d := Decide(e, p)
	if d != Ask || read {
		return d
	}
	if g := granted & Grantable; g != 0 && e&^(ReadFs|g) == 0 {
		return Allow
	}
	return d
}

// Describer renders a call for a person — in a permission dialog, on a card
// — as a pure function of the call, so live and replayed logs look the same.
// Tools that do not implement it are shown by name and arguments.
type Describer interface {
	Describe(call Call) string
}

// Describe renders a call with the tool's Describer, or by name and
// arguments.
func Describe(t Tool, call Call) string {
	if d, ok := t.(Describer); ok {
		if s := d.Describe(call); s != "" {
			return s
		}
	}
	return call.Name + " " + string(call.Arguments)
}
