package ollama_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/url"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"quire/kernel/provider"
	"quire/kernel/provider/ollama"
	"quire/test/ollamatest"
)

// fake starts a fake Ollama with the default qwen3:4b model and returns it
// with a Provider that talks to it through Ollama's real client.
func fake(t *testing.T) (*ollamatest.Server, *ollama.Provider) {
	t.Helper()
	srv := ollamatest.New(t)
	srv.AddModel(ollamatest.DefaultModel())
	return srv, ollama.New(mustHost(t, srv.URL()), nil)
}

func mustHost(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := ollama.ParseHost(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// closedPort is an address where nothing listens.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

func hello(model string) provider.Request {
	return provider.Request{Model: model, Messages: []provider.Message{{Role: provider.RoleUser, Content: "hello"}}}
}

// collect runs Stream and returns the chunks delivered and its error.
func collect(t *testing.T, ctx context.Context, p *ollama.Provider, req provider.Request) ([]provider.Chunk, error) {
	t.Helper()
	var got []provider.Chunk
	err := p.Stream(ctx, req, func(c provider.Chunk) error {
		got = append(got, c)
		return nil
	})
	return got, err
}

func TestStreamDeliversThinkingContentToolCallsAndUsage(t *testing.T) {
	t.Parallel()
	srv, p := fake(t)
	srv.Script(ollamatest.Turn{
		Thinking: []string{"The user ", "wants notes."},
		Content:  []string{"Let me ", "search."},
		ToolCalls: []ollamatest.ToolCall{
			{ID: "call_1", Name: "search_notes", Arguments: json.RawMessage(`{"query":"go","limit":3}`)},
			{ID: "call_2", Name: "list_notes"},
		},
		DoneReason:      "stop",
		PromptEvalCount: 120,
		EvalCount:       33,
	})

	// Ollama hands on only calls to tools the request declares.
	req := hello("qwen3:4b")
	req.Tools = []provider.ToolSpec{{Name: "search_notes"}, {Name: "list_notes"}}
	got, err := collect(t, t.Context(), p, req)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if len(got) == 0 || !got[len(got)-1].Done || got[len(got)-1].Usage.DurationNS <= 0 {
		t.Fatalf("last chunk is not a final chunk with a duration: %+v", got)
	}
	got[len(got)-1].Usage.DurationNS = 0 // measured, so not comparable
	want := []provider.Chunk{
		{Thinking: "The user "},
		{Thinking: "wants notes."},
		{Content: "Let me "},
		{Content: "search."},
		{ToolCalls: []provider.ToolCall{{ID: "call_1", Name: "search_notes", Arguments: `{"query":"go","limit":3}`}}},
		{ToolCalls: []provider.ToolCall{{ID: "call_2", Name: "list_notes", Arguments: `{}`}}},
		{Done: true, DoneReason: "stop", Usage: provider.Usage{PromptTokens: 120, OutputTokens: 33}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("chunks:\n got %+v\nwant %+v", got, want)
	}
}

func TestStreamSendsTruncateFalseAndNumCtx(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name           string
		contextLen     int
		numPredict     int
		wantNumCtx     string // raw JSON of options.num_ctx; "" for no options
		wantNumPredict string // raw JSON of options.num_predict; "" for none
	}{
		{"with a context length", 8192, 0, "8192", ""},
		{"without one", 0, 0, "", ""},
		{"with a bound on the reply", 8192, 700, "8192", "700"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, p := fake(t)
			req := hello("qwen3:4b")
			req.ContextLen, req.NumPredict = tc.contextLen, tc.numPredict
			if _, err := collect(t, t.Context(), p, req); err != nil {
				t.Fatal(err)
			}
			body := lastBody(t, srv)
			if string(body["truncate"]) != "false" {
				t.Errorf(`"truncate" = %s, want false; Ollama would silently drop history`, body["truncate"])
			}
			if string(body["stream"]) != "true" {
				t.Errorf(`"stream" = %s, want true`, body["stream"])
			}
			var opts map[string]json.RawMessage
			json.Unmarshal(body["options"], &opts)
			if got := string(opts["num_ctx"]); got != tc.wantNumCtx {
				t.Errorf("options.num_ctx = %q, want %q (options %s)", got, tc.wantNumCtx, body["options"])
			}
			if got := string(opts["num_predict"]); got != tc.wantNumPredict {
				t.Errorf("options.num_predict = %q, want %q (options %s)", got, tc.wantNumPredict, body["options"])
			}
		})
	}
}

// TestStreamSendsTemperatureAndThink: the settings' temperature rides in
// options and think at the top level, as Ollama reads them; unset, neither
// key is sent, so the model's own defaults apply.
func TestStreamSendsTemperatureAndThink(t *testing.T) {
	t.Parallel()
	zero, warm, off, on := 0.0, 1.25, false, true
	for _, tc := range []struct {
		name        string
		temperature *float64
		think       *bool
		wantTemp    string // raw JSON of options.temperature; "" for absent
		wantThink   string // raw JSON of think; "" for absent
	}{
		{"unset", nil, nil, "", ""},
		{"a temperature of zero is sent", &zero, nil, "0", ""},
		{"temperature and thinking on", &warm, &on, "1.25", "true"},
		{"thinking off is sent as false", nil, &off, "", "false"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, p := fake(t)
			req := hello("qwen3:4b")
			req.Temperature, req.Think = tc.temperature, tc.think
			if _, err := collect(t, t.Context(), p, req); err != nil {
				t.Fatal(err)
			}
			body := lastBody(t, srv)
			var opts map[string]json.RawMessage
			json.Unmarshal(body["options"], &opts)
			if got := string(opts["temperature"]); got != tc.wantTemp {
				t.Errorf("options.temperature = %q, want %q (options %s)", got, tc.wantTemp, body["options"])
			}
			if got := string(body["think"]); got != tc.wantThink {
				t.Errorf("think = %q, want %q", got, tc.wantThink)
			}
		})
	}
}

// lastBody is the top level of the last /api/chat body the fake received.
func lastBody(t *testing.T, srv *ollamatest.Server) map[string]json.RawMessage {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("the fake server received no chat request")
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(reqs[len(reqs)-1].Body, &body); err != nil {
		t.Fatal(err)
	}
	return body
}

func TestStreamTranslatesHistoryAndTools(t *testing.T) {
	t.Parallel()
	srv, p := fake(t)
	req := provider.Request{
		Model: "qwen3:4b",
		Messages: []provider.Message{
			{Role: provider.RoleSystem, Content: "Be brief."},
			{Role: provider.RoleUser, Content: "Find my Go notes."},
			{Role: provider.RoleAssistant, ToolCalls: []provider.ToolCall{
				{ID: "call_1", Name: "search_notes", Arguments: `{"query":"go","limit":3}`},
				{ID: "call_2", Name: "search_notes", Arguments: `{"query":`}, // cut off by the model
				{ID: "call_3", Name: "search_notes", Arguments: `null`},
			}},
			{Role: provider.RoleTool, ToolName: "search_notes", ToolCallID: "call_1", Content: "3 notes"},
		},
		Tools: []provider.ToolSpec{{
			Name:        "search_notes",
			Description: "Search the notes.",
			Parameters: map[string]any{
				"type":     "object",
				"required": []string{"query"},
				"properties": map[string]any{
					"query": map[string]any{"type": "string", "description": "words to find"},
					"limit": map[string]any{"type": []string{"integer", "null"}},
					"tags":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
				},
			},
		}, {
			Name: "list_notes",
		}},
	}
	if _, err := collect(t, t.Context(), p, req); err != nil {
		t.Fatal(err)
	}
	body := lastBody(t, srv)

	var msgs []struct {
		Role      string `json:"role"`
		Content   string `json:"content"`
		ToolName  string `json:"tool_name"`
		ToolID    string `json:"tool_call_id"`
		ToolCalls []struct {
			ID       string `json:"id"`
			Function struct {
				Index     int             `json:"index"`
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	}
	if err := json.Unmarshal(body["messages"], &msgs); err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 4 || msgs[0].Role != "system" || msgs[1].Content != "Find my Go notes." || msgs[2].Role != "assistant" {
		t.Fatalf("messages = %s", body["messages"])
	}
	calls := msgs[2].ToolCalls
	if len(calls) != 3 {
		t.Fatalf("tool calls = %+v", calls)
	}
	for i, want := range []string{`{"query":"go","limit":3}`, `{}`, `{}`} {
		c := calls[i]
		if c.ID != "call_"+string(rune('1'+i)) || c.Function.Index != i || c.Function.Name != "search_notes" || string(c.Function.Arguments) != want {
			t.Errorf("tool call %d = %+v (arguments %s); want arguments %s", i, c, c.Function.Arguments, want)
		}
	}
	if m := msgs[3]; m.Role != "tool" || m.ToolName != "search_notes" || m.ToolID != "call_1" || m.Content != "3 notes" {
		t.Errorf("tool result = %+v", m)
	}

	var tools []map[string]any
	if err := json.Unmarshal(body["tools"], &tools); err != nil {
		t.Fatal(err)
	}
	wantTools := `[{"type":"function","function":{"name":"search_notes","description":"Search the notes.","parameters":{"type":"object","required":["query"],"properties":{"limit":{"type":["integer","null"]},"query":{"type":"string","description":"words to find"},"tags":{"type":"array","items":{"type":"string"}}}}}},` +
		`{"type":"function","function":{"name":"list_notes","parameters":{"type":"object","properties":{}}}}]`
	if string(body["tools"]) != wantTools {
		t.Errorf("tools =\n%s\nwant\n%s", body["tools"], wantTools)
	}
}

func TestStreamRefusesSchemaOllamaCannotTake(t *testing.T) {
	t.Parallel()
	srv, p := fake(t)
	req := hello("qwen3:4b")
	req.Tools = []provider.ToolSpec{{Name: "bad", Parameters: map[string]any{"type": 7}}}
	_, err := collect(t, t.Context(), p, req)
	if !errors.Is(err, provider.ErrRejected) || !strings.Contains(err.Error(), `"bad"`) {
		t.Errorf("err = %v; want ErrRejected naming the tool", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("sent %d requests; a request that cannot be built must not be sent", n)
	}
}

func TestStreamFailures(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 400) // 500 tokens by the fake's estimate
	for _, tc := range []struct {
		name       string
		turn       *ollamatest.Turn
		req        provider.Request
		want       error
		also       error // a narrower sentinel the error must be too
		install    *ollamatest.Model
		wantText   []string
		wantChunks []provider.Chunk
	}{
		{
			name:    "tools offered to a model without them",
			install: &ollamatest.Model{Name: "gemma:2b"},
			req: provider.Request{Model: "gemma:2b", Messages: hello("gemma:2b").Messages,
				Tools: []provider.ToolSpec{{Name: "list_notes", Description: "List notes.", Parameters: map[string]any{"type": "object"}}}},
			want:     provider.ErrRejected,
			also:     provider.ErrNoTools,
			wantText: []string{`"gemma:2b" cannot use tools`, "Settings", "does not support tools"},
		},
		{
			name:     "error line: the runner stopped",
			turn:     &ollamatest.Turn{Fail: ollamatest.Failure{Kind: ollamatest.FailErrorLine}},
			req:      hello("qwen3:4b"),
			want:     provider.ErrServer,
			also:     provider.ErrRunnerStopped,
			wantText: []string{"model runner of Ollama", "unexpectedly stopped"},
		},
		{
			// Ollama 0.17.4's words when the runner dies while it streams
			// (issue 32: Quire classed them as a plain server failure).
			name:       "error line: the runner died mid-reply",
			turn:       &ollamatest.Turn{Content: []string{"One ", "two "}, Fail: ollamatest.Failure{Kind: ollamatest.FailErrorLine, After: 2}},
			req:        hello("qwen3:4b"),
			want:       provider.ErrServer,
			also:       provider.ErrRunnerStopped,
			wantText:   []string{"model runner of Ollama", "unexpected EOF"},
			wantChunks: []provider.Chunk{{Content: "One "}, {Content: "two "}},
		},
		{
			name:     "model missing",
			req:      hello("llama9:70b"),
			want:     provider.ErrModelMissing,
			wantText: []string{`"llama9:70b"`, "ollama pull llama9:70b", "model 'llama9:70b' not found"},
		},
		{
			name: "prompt over num_ctx",
			req: provider.Request{Model: "qwen3:4b", ContextLen: 256,
				Messages: []provider.Message{{Role: provider.RoleUser, Content: long}}},
			want:     provider.ErrRejected,
			wantText: []string{"the input length exceeds the context length"},
		},
		{
			name:     "scripted 400",
			turn:     &ollamatest.Turn{Fail: ollamatest.Failure{Kind: ollamatest.FailStatus, Status: 400, Message: "invalid message"}},
			req:      hello("qwen3:4b"),
			want:     provider.ErrRejected,
			wantText: []string{"invalid message"},
		},
		{
			name:     "500 before the stream",
			turn:     &ollamatest.Turn{Fail: ollamatest.Failure{Kind: ollamatest.FailStatus, Status: 500, Message: "llama runner process has terminated"}},
			req:      hello("qwen3:4b"),
			want:     provider.ErrServer,
			also:     provider.ErrRunnerStopped,
			wantText: []string{"llama runner process has terminated", "server log"},
		},
		{
			name:       "error line mid-stream",
			turn:       &ollamatest.Turn{Content: []string{"One ", "two ", "three"}, Fail: ollamatest.Failure{Kind: ollamatest.FailErrorLine, After: 2, Message: "CUDA error: out of memory"}},
			req:        hello("qwen3:4b"),
			want:       provider.ErrServer,
			wantText:   []string{"CUDA error: out of memory"},
			wantChunks: []provider.Chunk{{Content: "One "}, {Content: "two "}},
		},
		{
			name:       "connection dropped mid-stream",
			turn:       &ollamatest.Turn{Content: []string{"One ", "two ", "three"}, Fail: ollamatest.Failure{Kind: ollamatest.FailDrop, After: 2}},
			req:        hello("qwen3:4b"),
			want:       provider.ErrStreamBroken,
			wantText:   []string{"before it finished"},
			wantChunks: []provider.Chunk{{Content: "One "}, {Content: "two "}},
		},
		{
			name:       "connection dropped before the final chunk",
			turn:       &ollamatest.Turn{Content: []string{"All ", "said."}, Fail: ollamatest.Failure{Kind: ollamatest.FailDrop, After: 2}},
			req:        hello("qwen3:4b"),
			want:       provider.ErrStreamBroken,
			wantChunks: []provider.Chunk{{Content: "All "}, {Content: "said."}},
		},
		{
			name:     "connection dropped before answering",
			turn:     &ollamatest.Turn{Content: []string{"never"}, Fail: ollamatest.Failure{Kind: ollamatest.FailDrop}},
			req:      hello("qwen3:4b"),
			want:     provider.ErrStreamBroken,
			wantText: []string{"before answering"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, p := fake(t)
			if tc.install != nil {
				srv.AddModel(*tc.install)
			}
			if tc.turn != nil {
				srv.Script(*tc.turn)
			}
			got, err := collect(t, t.Context(), p, tc.req)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v; want %v", err, tc.want)
			}
			for _, narrower := range []error{provider.ErrNoTools, provider.ErrRunnerStopped} {
				if errors.Is(err, narrower) != (tc.also == narrower) {
					t.Errorf("err = %v: errors.Is(%v) = %v", err, narrower, !(tc.also == narrower))
				}
			}
			for _, s := range tc.wantText {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
			if !reflect.DeepEqual(got, tc.wantChunks) {
				t.Errorf("chunks delivered = %+v; want %+v", got, tc.wantChunks)
			}
		})
	}
}

func TestStreamCancelledMidStreamWrapsCause(t *testing.T) {
	t.Parallel()
	srv, p := fake(t)
	// The server sends two chunks and then nothing: only cancelling ends it.
	srv.Script(ollamatest.Turn{Content: []string{"a", "b", "c"}, Fail: ollamatest.Failure{Kind: ollamatest.FailHang, After: 2}})
	errUserStop := errors.New("the user pressed stop")
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)

	var got []provider.Chunk
	done := make(chan error, 1)
	go func() {
		done <- p.Stream(ctx, hello("qwen3:4b"), func(c provider.Chunk) error {
			got = append(got, c)
			if len(got) == 2 {
				cancel(errUserStop)
			}
			return nil
		})
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Stream did not return after its context was cancelled")
	}
	if !errors.Is(err, errUserStop) || !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v; want it to wrap the cause and context.Canceled", err)
	}
	if errors.Is(err, provider.ErrStreamBroken) {
		t.Errorf("err = %v; a cancelled reply is not a broken stream", err)
	}
	if len(got) != 2 {
		t.Errorf("delivered %d chunks, want the 2 sent before cancelling", len(got))
	}
}

func TestStreamCancelledBeforeAnswerWrapsCause(t *testing.T) {
	t.Parallel()
	srv, p := fake(t)
	srv.Script(ollamatest.Turn{Fail: ollamatest.Failure{Kind: ollamatest.FailHang}})
	errDeadline := errors.New("step took too long")
	ctx, cancel := context.WithTimeoutCause(t.Context(), 50*time.Millisecond, errDeadline)
	defer cancel()
	_, err := collect(t, ctx, p, hello("qwen3:4b"))
	if !errors.Is(err, errDeadline) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v; want it to wrap the cause and context.DeadlineExceeded", err)
	}
	for _, sentinel := range []error{provider.ErrUnavailable, provider.ErrServer, provider.ErrStreamBroken} {
		if errors.Is(err, sentinel) {
			t.Errorf("err = %v; a cancelled request is not %v", err, sentinel)
		}
	}
}

func TestStreamCallbackErrorStopsStream(t *testing.T) {
	t.Parallel()
	srv, p := fake(t)
	srv.Script(ollamatest.Turn{Content: []string{"a", "b", "c"}})
	errFull := errors.New("the log is full")
	calls := 0
	err := p.Stream(t.Context(), hello("qwen3:4b"), func(provider.Chunk) error {
		calls++
		return errFull
	})
	if err != errFull || calls != 1 {
		t.Errorf("err = %v after %d calls; want exactly the callback's error after 1", err, calls)
	}
}

func TestStreamOllamaNotRunning(t *testing.T) {
	t.Parallel()
	addr := closedPort(t)
	p := ollama.New(mustHost(t, addr), nil)
	_, err := collect(t, t.Context(), p, hello("qwen3:4b"))
	if !errors.Is(err, provider.ErrUnavailable) {
		t.Fatalf("err = %v; want ErrUnavailable", err)
	}
	for _, s := range []string{addr, "ollama serve"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not say %q", err, s)
		}
	}
}

func TestStreamEchoesWhenUnscripted(t *testing.T) {
	t.Parallel()
	_, p := fake(t)
	got, err := collect(t, t.Context(), p, hello("qwen3:4b"))
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, c := range got {
		text.WriteString(c.Content)
	}
	if text.String() != "You said: hello" || len(got) < 3 {
		t.Errorf("echo %q in %d chunks", text.String(), len(got))
	}
}

// TestStreamLineBuffer: a chunk far longer than the stream's first line
// buffer arrives whole (the buffer grows for it), and one short reply
// allocates far less than the 8 MB line buffer Ollama's client gave every
// call, which kept that much of the heap resident per model call.
func TestStreamLineBuffer(t *testing.T) {
	cases := []struct {
		name    string
		content []string
		// Most bytes one Stream may allocate (the fake server's own share included).
		maxAlloc uint64
	}{
		{"short reply", []string{"one ", "two ", "three"}, 2 << 20},
		{"one chunk of 1 MB", []string{strings.Repeat("x", 1<<20)}, 24 << 20},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, p := fake(t)
			srv.Script(ollamatest.Turn{Content: tc.content})
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			got, err := collect(t, t.Context(), p, hello("qwen3:4b"))
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			var text strings.Builder
			for _, c := range got {
				text.WriteString(c.Content)
			}
			if want := strings.Join(tc.content, ""); text.String() != want {
				t.Fatalf("got %d bytes of reply, want %d", text.Len(), len(want))
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > tc.maxAlloc {
				t.Errorf("one Stream allocated %d bytes, want at most %d", n, tc.maxAlloc)
			}
		})
	}
}
