package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"quire/kernel/provider"
	"quire/kernel/provider/openai"
	"quire/test/ollamatest"
)

// fake starts the fake server with the default qwen3:4b model and returns
// it with a Provider that talks to its /v1 API.
func fake(t *testing.T, opts ...ollamatest.Option) (*ollamatest.Server, *openai.Provider) {
	t.Helper()
	srv := ollamatest.New(t, opts...)
	srv.AddModel(ollamatest.DefaultModel())
	return srv, openai.New(mustBase(t, srv.URL()), nil)
}

func mustBase(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := openai.ParseBase(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

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

func collect(ctx context.Context, p *openai.Provider, req provider.Request) ([]provider.Chunk, error) {
	var got []provider.Chunk
	err := p.Stream(ctx, req, func(c provider.Chunk) error {
		got = append(got, c)
		return nil
	})
	return got, err
}

var noteTools = []provider.ToolSpec{
	{Name: "create_note", Description: "Creates a note.", Parameters: map[string]any{"type": "object",
		"properties": map[string]any{"path": map[string]any{"type": "string"}, "text": map[string]any{"type": "string"}}}},
	{Name: "read_note", Description: "Reads a note.", Parameters: map[string]any{"type": "object",
		"properties": map[string]any{"path": map[string]any{"type": "string"}}}},
}

func TestStreamTextThenDone(t *testing.T) {
	t.Parallel()
	srv, p := fake(t)
	srv.Script(ollamatest.Turn{Thinking: []string{"hm"}, Content: []string{"Hello ", "world"}})
	got, err := collect(t.Context(), p, hello("qwen3:4b"))
	if err != nil {
		t.Fatal(err)
	}
	var text, thinking strings.Builder
	for _, c := range got[:len(got)-1] {
		if c.Done {
			t.Fatalf("a done chunk before the last: %+v", got)
		}
		text.WriteString(c.Content)
		thinking.WriteString(c.Thinking)
	}
	last := got[len(got)-1]
	if text.String() != "Hello world" || thinking.String() != "hm" || !last.Done || last.DoneReason != "stop" {
		t.Fatalf("text %q thinking %q last %+v", text.String(), thinking.String(), last)
	}
}

// TestToolCallDeltasAssembled: the fake streams two parallel calls as
// llama.cpp does, each name and each arguments text split over chunks and
// the calls interleaved by index; the kernel gets both whole, in order.
func TestToolCallDeltasAssembled(t *testing.T) {
	t.Parallel()
	srv, p := fake(t)
	srv.Script(ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{
		{ID: "call_a", Name: "create_note", Arguments: json.RawMessage(`{"path":"ideas/lamp.md","text":"a lamp"}`)},
		{ID: "call_b", Name: "read_note", Arguments: json.RawMessage(`{"path":"inbox.md"}`)},
	}})
	req := hello("qwen3:4b")
	req.Tools = noteTools
	got, err := collect(t.Context(), p, req)
	if err != nil {
		t.Fatal(err)
	}
	var calls []provider.ToolCall
	for _, c := range got {
		calls = append(calls, c.ToolCalls...)
	}
	want := []provider.ToolCall{
		{ID: "call_a", Name: "create_note", Arguments: `{"path":"ideas/lamp.md","text":"a lamp"}`},
		{ID: "call_b", Name: "read_note", Arguments: `{"path":"inbox.md"}`},
	}
	if !reflect.DeepEqual(calls, want) {
		t.Fatalf("calls %+v, want %+v", calls, want)
	}
	if last := got[len(got)-1]; !last.Done || last.DoneReason != "stop" {
		t.Fatalf("a reply ending in calls (finish_reason tool_calls) ends %+v, want done reason stop", last)
	}
}

// TestUsageFromIncludeUsage: the counts of the usage chunk that
// stream_options.include_usage asks for reach the final chunk.
func TestUsageFromIncludeUsage(t *testing.T) {
	t.Parallel()
	srv, p := fake(t)
	srv.Script(ollamatest.Turn{Content: []string{"ok"}, PromptEvalCount: 42, EvalCount: 7})
	got, err := collect(t.Context(), p, hello("qwen3:4b"))
	if err != nil {
		t.Fatal(err)
	}
	if u := got[len(got)-1].Usage; u.PromptTokens != 42 || u.OutputTokens != 7 {
		t.Fatalf("usage %+v, want 42 prompt and 7 output tokens", u)
	}
	var body map[string]any
	json.Unmarshal(srv.Requests()[0].Body, &body)
	if so, _ := body["stream_options"].(map[string]any); so["include_usage"] != true {
		t.Fatalf("stream_options %v, want include_usage true", body["stream_options"])
	}
}

// TestReplyBoundIsMaxTokens: the kernel's reply bound goes out as
// max_tokens, and a reply the server cuts there ends with "length".
func TestReplyBoundIsMaxTokens(t *testing.T) {
	t.Parallel()
	srv, p := fake(t)
	srv.Script(ollamatest.Turn{Content: []string{"again "}, Endless: true})
	req := hello("qwen3:4b")
	req.NumPredict = 5
	got, err := collect(t.Context(), p, req)
	if err != nil {
		t.Fatal(err)
	}
	last := got[len(got)-1]
	if last.DoneReason != "length" || last.Usage.OutputTokens != 5 {
		t.Fatalf("last chunk %+v, want done reason length after 5 tokens", last)
	}
	if !bytes.Contains(srv.Requests()[0].Body, []byte(`"max_tokens":5`)) {
		t.Fatalf("body %s has no max_tokens 5", srv.Requests()[0].Body)
	}
}

// TestReplayedRequestIsTheBodySent: what RequestJSON rebuilds from a
// request (as the replay does from the log) is what the server received.
func TestReplayedRequestIsTheBodySent(t *testing.T) {
	t.Parallel()
	srv, p := fake(t)
	temp := 0.2
	req := provider.Request{Model: "qwen3:4b", Temperature: &temp, NumPredict: 900, ContextLen: 8192, Tools: noteTools,
		Messages: []provider.Message{
			{Role: provider.RoleSystem, Content: "You organise notes."},
			{Role: provider.RoleUser, Content: "File the lamp idea — «vite»."},
			{Role: provider.RoleAssistant, ToolCalls: []provider.ToolCall{{ID: "call_1", Name: "create_note", Arguments: `{"path":"a.md","text":"x"}`}}},
			{Role: provider.RoleTool, ToolName: "create_note", ToolCallID: "call_1", Content: "created a.md"},
		}}
	if _, err := collect(t.Context(), p, req); err != nil {
		t.Fatal(err)
	}
	rebuilt, err := openai.RequestJSON(req)
	if err != nil {
		t.Fatal(err)
	}
	sent := srv.Requests()[0].Body
	var a, b any
	if err := json.Unmarshal(sent, &a); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(rebuilt, &b)
	if !reflect.DeepEqual(a, b) || !bytes.Equal(sent, rebuilt) {
		t.Fatalf("rebuilt\n%s\nsent\n%s", rebuilt, sent)
	}
}

// TestErrorClasses: each way a server fails is one provider sentinel,
// with a sentence; a context overflow names the context length, which is
// what the kernel's overflow handler looks for.
func TestErrorClasses(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 2000)
	tests := []struct {
		name  string
		setup func(*ollamatest.Server)
		req   provider.Request
		opts  []ollamatest.Option
		kinds []error
		says  string
	}{
		{name: "model missing", req: hello("llama3.2:1b"), kinds: []error{provider.ErrModelMissing}, says: "does not have the model"},
		{name: "tools unsupported", setup: func(s *ollamatest.Server) {
			s.AddModel(ollamatest.Model{Name: "gemma:2b", Capabilities: []string{"completion"}})
		}, req: provider.Request{Model: "gemma:2b", Tools: noteTools, Messages: hello("").Messages},
			kinds: []error{provider.ErrRejected, provider.ErrNoTools}, says: "cannot use tools"},
		{name: "context exceeded", opts: []ollamatest.Option{ollamatest.WithLoadedContext(512)},
			req:   provider.Request{Model: "qwen3:4b", Messages: []provider.Message{{Role: provider.RoleUser, Content: long}}},
			kinds: []error{provider.ErrRejected}, says: "context length"},
		{name: "server gone mid-stream", setup: func(s *ollamatest.Server) {
			s.Script(ollamatest.Turn{Content: []string{"a ", "b ", "c"}, Fail: ollamatest.Failure{Kind: ollamatest.FailDrop, After: 2}})
		}, req: hello("qwen3:4b"), kinds: []error{provider.ErrStreamBroken}, says: "before it finished"},
		{name: "error event mid-stream", setup: func(s *ollamatest.Server) {
			s.Script(ollamatest.Turn{Content: []string{"a ", "b "}, Fail: ollamatest.Failure{Kind: ollamatest.FailErrorLine, After: 1, Message: "CUDA error: out of memory"}})
		}, req: hello("qwen3:4b"), kinds: []error{provider.ErrServer}, says: "failed while answering"},
		{name: "runner died mid-stream (Ollama at /v1)", setup: func(s *ollamatest.Server) {
			s.Script(ollamatest.Turn{Content: []string{"a ", "b "}, Fail: ollamatest.Failure{Kind: ollamatest.FailErrorLine, After: 1}})
		}, req: hello("qwen3:4b"), kinds: []error{provider.ErrServer, provider.ErrRunnerStopped}, says: "stopped while answering"},
		{name: "busy", setup: func(s *ollamatest.Server) {
			s.Script(ollamatest.Turn{Fail: ollamatest.Failure{Kind: ollamatest.FailStatus, Status: http.StatusServiceUnavailable, Message: "loading model"}})
		}, req: hello("qwen3:4b"), kinds: []error{provider.ErrOverloaded}, says: "busy"},
		{name: "server failed before answering", setup: func(s *ollamatest.Server) {
			s.Script(ollamatest.Turn{Fail: ollamatest.Failure{Kind: ollamatest.FailStatus}})
		}, req: hello("qwen3:4b"), kinds: []error{provider.ErrServer}, says: "see its log"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, p := fake(t, tt.opts...)
			if tt.setup != nil {
				tt.setup(srv)
			}
			_, err := collect(t.Context(), p, tt.req)
			for _, k := range tt.kinds {
				if !errors.Is(err, k) {
					t.Fatalf("error %v is not %v", err, k)
				}
			}
			var perr *provider.Error
			if !errors.As(err, &perr) || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("error %v is not a provider.Error saying %q", err, tt.says)
			}
		})
	}
}

func TestNotRunningIsUnavailable(t *testing.T) {
	t.Parallel()
	p := openai.New(mustBase(t, closedPort(t)), nil)
	_, err := collect(t.Context(), p, hello("qwen3:4b"))
	if !errors.Is(err, provider.ErrUnavailable) {
		t.Fatalf("error %v, want ErrUnavailable", err)
	}
}

// TestCancelWrapsTheCause: a cancelled reply is never a success and says why.
func TestCancelWrapsTheCause(t *testing.T) {
	t.Parallel()
	srv, p := fake(t)
	srv.Script(ollamatest.Turn{Content: []string{"a "}, Fail: ollamatest.Failure{Kind: ollamatest.FailHang, After: 1}})
	why := errors.New("the user pressed stop")
	ctx, cancel := context.WithCancelCause(t.Context())
	err := p.Stream(ctx, hello("qwen3:4b"), func(c provider.Chunk) error {
		cancel(why)
		return nil
	})
	if !errors.Is(err, why) {
		t.Fatalf("error %v does not wrap the cause", err)
	}
}

func TestModelsEmbedAndToolProbe(t *testing.T) {
	t.Parallel()
	srv, p := fake(t)
	srv.AddModel(ollamatest.Model{Name: "nomic-embed-text", Capabilities: []string{"embedding"}, ContextLength: 2048, EmbeddingLength: 16})
	srv.AddModel(ollamatest.Model{Name: "gemma:2b", Capabilities: []string{"completion"}, ContextLength: 8192})
	ctx := t.Context()
	models, err := p.Models(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]int{}
	for _, m := range models {
		byID[m.ID] = m.ContextLength
	}
	if byID["qwen3:4b"] != 40960 || byID["gemma:2b"] != 8192 {
		t.Fatalf("models %+v", models)
	}
	vecs, err := p.Embed(ctx, "nomic-embed-text", []string{"a lamp", "a desk"})
	if err != nil || len(vecs) != 2 || len(vecs[0]) != 16 {
		t.Fatalf("embed: %v, %d vectors", err, len(vecs))
	}
	if !reflect.DeepEqual(vecs[1], ollamatest.Embedding("a desk", 16)) {
		t.Fatal("the second vector is not the second input's")
	}
	if _, err := p.Embed(ctx, "missing-embed", []string{"x"}); !errors.Is(err, provider.ErrModelMissing) {
		t.Fatalf("embed with a missing model: %v", err)
	}
	for model, want := range map[string]openai.Tools{"qwen3:4b": openai.ToolsYes, "gemma:2b": openai.ToolsNo} {
		got, err := p.ProbeTools(ctx, model)
		if err != nil || got != want {
			t.Fatalf("ProbeTools(%s) = %v, %v; want %v", model, got, err, want)
		}
	}
	if got, err := p.ProbeTools(ctx, "absent:1b"); got != openai.ToolsUnknown || !errors.Is(err, provider.ErrModelMissing) {
		t.Fatalf("ProbeTools of a missing model = %v, %v; want unknown with ErrModelMissing", got, err)
	}
}

func TestDiscoverFindsTheGivenAddress(t *testing.T) {
	t.Parallel()
	srv, _ := fake(t)
	found := openai.Discover(t.Context(), &http.Client{}, 2*time.Second, srv.URL()+"/v1", closedPort(t)+"/v1")
	var got *openai.Runner
	for i, r := range found {
		if r.Base == srv.URL()+"/v1" {
			got = &found[i]
		}
		if strings.HasPrefix(r.Base, "http://127.0.0.1:") && r.Name == "the address given" && r.Base != srv.URL()+"/v1" {
			t.Fatalf("found a runner at a closed port: %+v", r)
		}
	}
	if got == nil || len(got.Models) != 1 || got.Models[0].ID != "qwen3:4b" {
		t.Fatalf("discover found %+v", found)
	}
}

func TestParseBase(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want string
		err  error
	}{
		{"127.0.0.1:1234", "http://127.0.0.1:1234/v1", nil},
		{"http://localhost:8080/v1/", "http://localhost:8080/v1", nil},
		{"http://[::1]:1337", "http://[::1]:1337/v1", nil},
		{"http://10.0.0.2:8000/openai/v1", "http://10.0.0.2:8000/openai/v1", nil},
		{"ftp://127.0.0.1:1", "", openai.ErrBadBase},
		{"http://127.0.0.1", "", openai.ErrBadBase},
		{"", "", openai.ErrBadBase},
	}
	for _, tt := range tests {
		u, err := openai.ParseBase(tt.in)
		if !errors.Is(err, tt.err) || (err == nil && u.String() != tt.want) {
			t.Errorf("ParseBase(%q) = %v, %v; want %q, %v", tt.in, u, err, tt.want, tt.err)
		}
	}
}
