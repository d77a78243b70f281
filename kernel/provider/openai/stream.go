package openai

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sort"

	"quire/kernel/provider"
)

// maxLine bounds one line of the event stream; the buffer starts small and
// grows only for a line that needs it.
const maxLine = 8 * 1000 * 1000

// streamChunk is one "data:" event of a streamed reply.
type streamChunk struct {
	Choices []struct {
		Delta struct {
			Content string `json:"content"`
			// Reasoning is llama.cpp's and vLLM's reasoning_content, or
			// Ollama's reasoning: the model's thinking, apart from its text.
			ReasoningContent string     `json:"reasoning_content"`
			Reasoning        string     `json:"reasoning"`
			ToolCalls        []toolCall `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	Error *apiError `json:"error"`
}

// readEvents calls fn for each data event of an SSE body until "[DONE]"
// (done true) or the body ends (done false: the server went away). An
// error event (llama.cpp's "error:" line, or a data event holding an
// "error" object) ends it with that error.
func readEvents(body io.Reader, fn func(streamChunk) error) (done bool, err error) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 16<<10), maxLine)
	for sc.Scan() {
		line := sc.Bytes()
		field, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || len(field) == 0 {
			continue // a blank line ends an event; each event here is one line
		}
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "data":
			if string(value) == "[DONE]" {
				return true, nil
			}
			var c streamChunk
			if err := json.Unmarshal(value, &c); err != nil {
				return false, &wireError{msg: "an event that is not JSON: " + string(value)}
			}
			if c.Error != nil {
				return false, &streamError{*c.Error}
			}
			if err := fn(c); err != nil {
				return false, err
			}
		case "error":
			var e struct {
				Error *apiError `json:"error"`
			}
			var a apiError
			if json.Unmarshal(value, &e) == nil && e.Error != nil {
				a = *e.Error
			} else if json.Unmarshal(value, &a) != nil {
				a.Message = string(value)
			}
			return false, &streamError{a}
		}
	}
	if err := sc.Err(); err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	return false, nil
}

// assembler gathers a streamed reply: text as it comes, tool calls by
// their index (a call's id and name come in its first delta, its
// arguments in pieces after), the finish reason and the usage.
type assembler struct {
	calls  map[int]*provider.ToolCall
	args   map[int]*bytes.Buffer
	reason string
	usage  provider.Usage
	sent   bool // the calls went out with the finish reason
}

func (a *assembler) add(c streamChunk) []provider.Chunk {
	var out []provider.Chunk
	if c.Usage != nil {
		a.usage = provider.Usage{PromptTokens: c.Usage.PromptTokens, OutputTokens: c.Usage.CompletionTokens}
	}
	for _, ch := range c.Choices {
		d := ch.Delta
		if r := d.ReasoningContent + d.Reasoning; r != "" {
			out = append(out, provider.Chunk{Thinking: r})
		}
		if d.Content != "" {
			out = append(out, provider.Chunk{Content: d.Content})
		}
		for i, tc := range d.ToolCalls {
			idx := i // a server that numbers nothing sends whole calls in order
			if tc.Index != nil {
				idx = *tc.Index
			}
			if a.calls == nil {
				a.calls, a.args = map[int]*provider.ToolCall{}, map[int]*bytes.Buffer{}
			}
			call, ok := a.calls[idx]
			if !ok {
				call = &provider.ToolCall{}
				a.calls[idx], a.args[idx] = call, &bytes.Buffer{}
			}
			if tc.ID != "" {
				call.ID = tc.ID
			}
			call.Name += tc.Function.Name
			a.args[idx].WriteString(tc.Function.Arguments)
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			a.reason = *ch.FinishReason
			if calls := a.whole(); len(calls) > 0 {
				out = append(out, provider.Chunk{ToolCalls: calls})
			}
		}
	}
	return out
}

// whole is the calls gathered so far, in index order, once.
func (a *assembler) whole() []provider.ToolCall {
	if a.sent || len(a.calls) == 0 {
		return nil
	}
	a.sent = true
	idx := make([]int, 0, len(a.calls))
	for i := range a.calls {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	out := make([]provider.ToolCall, len(idx))
	for n, i := range idx {
		out[n] = *a.calls[i]
		out[n].Arguments = a.args[i].String()
		if out[n].Arguments == "" {
			out[n].Arguments = "{}"
		}
	}
	return out
}

// final is the end of the reply: calls a server never closed with a
// finish reason, then the done chunk with the done reason and usage.
func (a *assembler) final() []provider.Chunk {
	var out []provider.Chunk
	if calls := a.whole(); len(calls) > 0 {
		out = append(out, provider.Chunk{ToolCalls: calls})
	}
	return append(out, provider.Chunk{Done: true, DoneReason: doneReason(a.reason), Usage: a.usage})
}

// doneReason maps a finish reason to the kernel's done reasons, which are
// Ollama's: "length" is a reply cut at the bound (max_tokens), the rest
// ended as the model chose. "tool_calls" (and "function_call") is "stop",
// as Ollama reports a reply that ends with calls.
func doneReason(finish string) string {
	switch finish {
	case "length":
		return "length"
	case "", "stop", "tool_calls", "function_call", "eos":
		return "stop"
	}
	return finish // "content_filter" and servers' own: kept, for the log
}
