// Package provider is the model seam: the one interface through which the
// kernel asks a language model for a reply, and the plain types it speaks.
//
// It owns the request/response vocabulary of the kernel, not of any vendor.
// It must never import a model client (Ollama, HTTP libraries) nor anything
// under host/, memory/, rag/ or tools/; adapters such as provider/ollama
// translate to and from these types.
package provider

import (
	"context"
	"errors"
	"strings"
)

// Role says who wrote a message in a request.
type Role string

const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// ToolCall is one call the model asked for, with its arguments exactly as the
// model produced them (JSON text), so nothing is lost before validation.
type ToolCall struct {
	ID        string `json:"id,omitempty"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Message is one entry of the history sent to the model.
type Message struct {
	Role       Role       `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`
	ToolName   string     `json:"toolName,omitempty"`
	ToolCallID string     `json:"toolCallId,omitempty"`
}

// ToolSpec describes a tool the model may call; Parameters is a JSON Schema.
type ToolSpec struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"`
}

// Request is everything the model sees in one step. It is built from the
// event log alone, so that it can be rebuilt later byte for byte.
type Request struct {
	Model      string     `json:"model"`
	Messages   []Message  `json:"messages"`
	Tools      []ToolSpec `json:"tools,omitempty"`
	ContextLen int        `json:"numCtx"`
	// Temperature, when set, is the sampling temperature (0–2); unset, the
	// model's own default. Think, when set, turns a thinking model's
	// reasoning on or off; unset, the model decides. Both are left out of
	// the request when unset, so a run frozen before they existed is sent
	// (and replayed) exactly as it was.
	Temperature *float64 `json:"temperature,omitempty"`
	Think       *bool    `json:"think,omitempty"`
	// NumPredict, when above zero, is the most tokens the reply may have
	// (Ollama's num_predict): the server ends it there with done reason
	// "length", so a model that never stops still ends. Zero: no bound.
	NumPredict int `json:"numPredict,omitempty"`
	// Host is the address of the server the request must reach (a run's
	// frozen one, event.Capabilities.Host); empty, the adapter's current
	// address. It says where the request goes, not what it says: it is
	// not part of the body sent.
	Host string `json:"-"`
	// Runner names the API the request is spoken in, as the composition
	// root names its adapters ("" is Ollama's own, "openai" the
	// OpenAI-compatible one): frozen with Host in a run's capabilities, so
	// a run finishes on the runner it started on and its replay rebuilds
	// the body that adapter sent. Like Host, not part of the body.
	Runner string `json:"-"`
}

// Usage is what the model reports about one step.
type Usage struct {
	PromptTokens int   `json:"promptTokens"`
	OutputTokens int   `json:"outputTokens"`
	DurationNS   int64 `json:"durationNs"`
}

// Chunk is one piece of a streamed reply. Exactly one of its fields is set,
// except in the final chunk, which carries Done, DoneReason and Usage.
type Chunk struct {
	Content    string
	Thinking   string
	ToolCalls  []ToolCall
	Done       bool
	DoneReason string
	Usage      Usage
}

// Provider streams one model reply. Stream calls onChunk synchronously, in
// the order the model produced the pieces, and returns only after the final
// chunk (nil error) or a failure. A cancelled ctx makes Stream return an error
// that wraps context.Cause(ctx); it never reports a cut-off stream as success.
type Provider interface {
	Stream(ctx context.Context, req Request, onChunk func(Chunk) error) error
}

// Collect streams req from p to its end: the reply's whole text and the
// usage its last chunk carried, for a caller that acts only on the whole
// reply (memory's learner, evolve's proposer). What came before an error
// is returned with it.
func Collect(ctx context.Context, p Provider, req Request) (string, Usage, error) {
	var text strings.Builder
	var usage Usage
	err := p.Stream(ctx, req, func(c Chunk) error {
		text.WriteString(c.Content)
		if c.Done {
			usage = c.Usage
		}
		return nil
	})
	return text.String(), usage, err
}

// Sentinel errors: adapters wrap their failures in one of these so the kernel
// can decide what to do without knowing the vendor.
var (
	// ErrUnavailable: the model server cannot be reached (not running, wrong host).
	ErrUnavailable = errors.New("the model server is not reachable")
	// ErrModelMissing: the server answered but does not have the model.
	ErrModelMissing = errors.New("the model is not installed")
	// ErrStreamBroken: the reply started and then stopped without finishing.
	ErrStreamBroken = errors.New("the model's reply stopped before it finished")
	// ErrRejected: the server refused the request as malformed or too large.
	ErrRejected = errors.New("the model server rejected the request")
	// ErrServer: the server failed while answering.
	ErrServer = errors.New("the model server failed")
	// ErrOverloaded: the server is busy (HTTP 429 or 503); try again later.
	ErrOverloaded = errors.New("the model server is busy")
	// ErrNoTools: the model cannot call tools and the request offered some;
	// it always comes with ErrRejected (the server refused the request).
	ErrNoTools = errors.New("the model does not support tools")
	// ErrRunnerStopped: the process running the model died; it always comes
	// with ErrServer. The server starts a new one on the next request.
	ErrRunnerStopped = errors.New("the model runner stopped")
)

// Error is a failure an adapter explains to the user: Message says what
// happened and what to do, Kind is one of the sentinels above, Err is the
// underlying error (what the server or the network said), kept for errors.Is
// and shown after the sentence.
type Error struct {
	Kind    error
	Message string
	Err     error
	// Also is a narrower sentinel the failure is as well (ErrNoTools under
	// ErrRejected, ErrRunnerStopped under ErrServer); nil for none.
	Also error
}

func (e *Error) Error() string {
	if e.Err == nil {
		return e.Message
	}
	return e.Message + " (" + e.Err.Error() + ")"
}

func (e *Error) Unwrap() []error {
	if e.Also != nil {
		return []error{e.Kind, e.Also, e.Err}
	}
	return []error{e.Kind, e.Err}
}
