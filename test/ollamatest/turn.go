package ollamatest

import (
	"encoding/json"
	"fmt"
	"time"
)

// Turn is the scripted reply to one /api/chat call.
//
// The reply is streamed in this order: one chunk per Thinking piece, one per
// Content piece, one per ToolCall, then the final done chunk. Thinking pieces
// are sent only when thinking is on for the request (the model has the
// "thinking" capability and the request did not send think:false), because
// that is when a real model produces them.
//
// ToolCalls are what the model writes; the request decides what the client
// gets, as Ollama's tool parser does: a call to a tool the request declares
// arrives as a tool call, a call to a tool it does not declare is dropped
// (a reply with nothing else has empty content), and with no tools declared
// each call streams as its raw <tool_call> text in the content.
type Turn struct {
	Thinking  []string   `json:"thinking,omitempty"`
	Content   []string   `json:"content,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`

	// Endless makes the model never emit its end token: the Content
	// pieces stream over and over, as a looping model's do, until the
	// request's num_predict is reached (done_reason "length", as Ollama's
	// runner ends it), the client goes away, or the server closes. Without
	// num_predict the real server goes on for ever (it shifts the context
	// when it fills); the fake gives up after EndlessCap pieces with
	// done_reason "length", so a test of a client that sets no bound fails
	// instead of spinning.
	Endless bool `json:"endless,omitempty"`

	// DoneReason goes into the final chunk; empty means "stop".
	DoneReason string `json:"done_reason,omitempty"`
	// PromptEvalCount and EvalCount go into the final chunk; zero means an
	// estimate (EstimateTokens of the request, and one token per chunk the
	// model produced, a tool call counting the tokens of its text, dropped
	// calls included, plus the end token).
	PromptEvalCount int `json:"prompt_eval_count,omitempty"`
	EvalCount       int `json:"eval_count,omitempty"`

	// Delay is the pause before each chunk; zero means the server's WithDelay.
	// In JSON it is a Go duration string such as "30ms".
	Delay time.Duration `json:"-"`

	// Fail makes the reply fail; the zero value means it does not.
	Fail Failure `json:"fail,omitzero"`
}

// ToolCall is one whole tool call the model makes. Arguments is the JSON
// object of arguments; its key order is kept on the wire.
type ToolCall struct {
	// ID is sent as the call's id; empty means a generated random
	// "call_xxxxxxxx" id, as the real server assigns (WithCallIDSeed makes
	// them repeatable).
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// FailKind names how a scripted reply fails.
type FailKind string

const (
	// FailStatus answers with HTTP Status and {"error": Message} before any
	// chunk, as Ollama does when a request fails before the model starts.
	FailStatus FailKind = "status"
	// FailErrorLine sends After chunks, then an {"error": Message} line and
	// ends the response, as Ollama does when the runner fails mid-reply. With
	// After 0 nothing has been written yet, so, like the real server, it
	// becomes an HTTP 500 with the error as the body.
	FailErrorLine FailKind = "error_line"
	// FailDrop sends After chunks, then closes the TCP connection without
	// finishing the response, as when the server process dies.
	FailDrop FailKind = "drop"
	// FailHang sends After chunks, then sends nothing more until the client
	// goes away or the fake server is closed.
	FailHang FailKind = "hang"
)

// Failure describes how a scripted reply fails.
type Failure struct {
	Kind FailKind `json:"kind"`
	// After is how many chunks are sent before failing (not FailStatus).
	After int `json:"after,omitempty"`
	// Status is the HTTP status of FailStatus; zero means 500.
	Status int `json:"status,omitempty"`
	// Message is the error text; empty means the real server's message for
	// a crashed runner: RunnerDied mid-reply (an error line after some
	// chunks), RunnerStopped before it.
	Message string `json:"message,omitempty"`
}

// RunnerStopped is what Ollama says when its model runner is found dead
// before a reply (llm/server.go).
const RunnerStopped = "model runner has unexpectedly stopped, this may be due to resource limitations or an internal error, check ollama server logs for details"

// RunnerDied is what Ollama 0.17.4 says when its runner dies while it
// streams a reply: the runner's connection ends, its scanner reads an
// unexpected EOF, and Completion answers with this (llm/server.go, "an
// error was encountered while running the model: %s").
const RunnerDied = "an error was encountered while running the model: unexpected EOF"

func (f Failure) message() string {
	switch {
	case f.Message != "":
		return f.Message
	case f.Kind == FailErrorLine && f.After > 0:
		return RunnerDied
	}
	return RunnerStopped
}

func (f Failure) status() int {
	if f.Status == 0 {
		return 500
	}
	return f.Status
}

// UnmarshalJSON reads a Turn from a script file, where delay is a duration
// string ("30ms") because nanosecond integers are unreadable in a script.
func (t *Turn) UnmarshalJSON(b []byte) error {
	type plain Turn
	var v struct {
		plain
		Delay string `json:"delay,omitempty"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*t = Turn(v.plain)
	if v.Delay != "" {
		d, err := time.ParseDuration(v.Delay)
		if err != nil {
			return fmt.Errorf("turn delay: %w", err)
		}
		t.Delay = d
	}
	switch t.Fail.Kind {
	case "", FailStatus, FailErrorLine, FailDrop, FailHang:
	default:
		return fmt.Errorf("turn fail kind %q: want one of status, error_line, drop, hang", t.Fail.Kind)
	}
	return nil
}
