package ollamatest_test

// Tests of what the fake does because Ollama 0.17.4 does it: how tool calls
// come back, tool-call ids, eval_count, tool declarations in the token count,
// /api/embed without a model, /api/show's model_info and a pull without a
// network. Each names the place in Ollama's source it follows.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"quire/test/ollamatest"
)

// postFor posts body to path and returns the status, the reply decoded as
// T (zero if it is not one) and the raw reply.
func postFor[T any](t *testing.T, srv *ollamatest.Server, path, body string) (int, T, string) {
	t.Helper()
	resp := post(t, t.Context(), srv, path, body)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var r T
	json.Unmarshal(b, &r)
	return resp.StatusCode, r, string(b)
}

// chatOnce posts a non-streamed chat and decodes the reply.
func chatOnce(t *testing.T, srv *ollamatest.Server, body string) (int, api.ChatResponse, string) {
	t.Helper()
	return postFor[api.ChatResponse](t, srv, "/api/chat", body)
}

// isCallID: server/routes.go toolCallId makes "call_" and 8 of a-z0-9.
func isCallID(id string) bool {
	return regexp.MustCompile(`^call_[a-z0-9]{8}$`).MatchString(id)
}

// TestToolCallsAsOllamaParsesThem: a call to a declared tool comes back as
// a tool call; a call to a tool the request does not declare is dropped,
// leaving empty content (tools.Parser never finds a known name); with no
// tools declared there is no parser and the model's text streams as it is.
func TestToolCallsAsOllamaParsesThem(t *testing.T) {
	t.Parallel()
	readNote := `"tools":[{"type":"function","function":{"name":"read_note","parameters":{"type":"object","properties":{}}}}],`
	call := func(name string) ollamatest.ToolCall {
		return ollamatest.ToolCall{Name: name, Arguments: json.RawMessage(`{"path":"a.md"}`)}
	}
	// A call counts the tokens of the text the model wrote for it.
	ct := func(name string) int {
		return ollamatest.TextTokens("<tool_call>\n{\"name\": \"" + name + "\", \"arguments\": {\"path\":\"a.md\"}}\n</tool_call>")
	}
	for _, tc := range []struct {
		name      string
		tools     string
		turn      ollamatest.Turn
		content   string
		calls     []string // names of the tool calls handed on
		evalCount int
	}{
		{"declared tool", readNote, ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{call("read_note")}}, "", []string{"read_note"}, ct("read_note") + 1},
		{"undeclared tool is dropped", readNote, ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{call("delete_all")}}, "", nil, ct("delete_all") + 1},
		{"text before a dropped call stays", readNote, ollamatest.Turn{Content: []string{"Let me see."}, ToolCalls: []ollamatest.ToolCall{call("delete_all")}}, "Let me see.", nil, 1 + ct("delete_all") + 1},
		{"only the declared of two", readNote, ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{call("delete_all"), call("read_note")}}, "", []string{"read_note"}, ct("delete_all") + ct("read_note") + 1},
		{"no tools: the raw text", "", ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{call("read_note")}},
			"<tool_call>\n{\"name\": \"read_note\", \"arguments\": {\"path\":\"a.md\"}}\n</tool_call>", nil, ct("read_note") + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := thinker(t)
			srv.Script(tc.turn)
			status, r, body := chatOnce(t, srv, `{"model":"qwen3:4b","stream":false,"think":false,`+tc.tools+`"messages":[{"role":"user","content":"hi"}]}`)
			if status != http.StatusOK {
				t.Fatalf("HTTP %d %s", status, body)
			}
			var names []string
			for i, c := range r.Message.ToolCalls {
				names = append(names, c.Function.Name)
				if !isCallID(c.ID) || c.Function.Index != i {
					t.Errorf("call %d: id %q index %d; want call_ and 8 of a-z0-9, index %d", i, c.ID, c.Function.Index, i)
				}
			}
			if r.Message.Content != tc.content || !slices.Equal(names, tc.calls) || r.EvalCount != tc.evalCount {
				t.Errorf("got content %q, calls %v, eval_count %d; want %q, %v, %d", r.Message.Content, names, r.EvalCount, tc.content, tc.calls, tc.evalCount)
			}
		})
	}
}

// TestBuiltinParserHandsEveryCallOn: a model whose config names a built-in
// parser (qwen3's) gets every call it writes handed on as a tool call,
// declared or not, and with no tools declared too.
func TestBuiltinParserHandsEveryCallOn(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	m := ollamatest.DefaultModel()
	m.Parser = "qwen3"
	srv.AddModel(m)
	turn := ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{Name: "delete_all"}, {Name: "read_note"}}}
	for _, tools := range []string{
		`"tools":[{"type":"function","function":{"name":"read_note","parameters":{"type":"object","properties":{}}}}],`,
		"",
	} {
		srv.Script(turn)
		_, r, body := chatOnce(t, srv, `{"model":"qwen3:4b","stream":false,"think":false,`+tools+`"messages":[{"role":"user","content":"hi"}]}`)
		var names []string
		for _, c := range r.Message.ToolCalls {
			names = append(names, c.Function.Name)
		}
		if !slices.Equal(names, []string{"delete_all", "read_note"}) || r.Message.Content != "" {
			t.Errorf("tools %q: got %s", tools, body)
		}
	}
}

// TestCallIDs: ids are random by default, like the real server's, and the
// same seed gives the same ids.
func TestCallIDs(t *testing.T) {
	t.Parallel()
	const tools = `"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{}}}}],`
	ids := func(srv *ollamatest.Server) []string {
		srv.Script(ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{Name: "f"}, {Name: "f"}}})
		_, r, body := chatOnce(t, srv, `{"model":"qwen3:4b","stream":false,`+tools+`"messages":[{"role":"user","content":"hi"}]}`)
		var out []string
		for _, c := range r.Message.ToolCalls {
			if !isCallID(c.ID) {
				t.Errorf("id %q in %s", c.ID, body)
			}
			out = append(out, c.ID)
		}
		if len(out) != 2 {
			t.Fatalf("want 2 calls: %s", body)
		}
		return out
	}
	seeded := func() []string { return ids(thinker(t, ollamatest.WithCallIDSeed(7))) }
	if a, b := seeded(), seeded(); !slices.Equal(a, b) {
		t.Errorf("the same seed gave %v and %v", a, b)
	}
	if a, b := ids(thinker(t)), ids(thinker(t)); a[0] == a[1] || slices.Equal(a, b) {
		t.Errorf("unseeded ids repeat: %v and %v", a, b)
	}
}

// TestEvalCountCountsTheEndToken: the runner counts the end-of-sequence
// token in eval_count (runner/ollamarunner: numPredicted grows before the
// EOS check), so even an empty reply counts one.
func TestEvalCountCountsTheEndToken(t *testing.T) {
	t.Parallel()
	srv := thinker(t)
	srv.Script(ollamatest.Turn{})
	for _, want := range []int{1, 4} { // the empty turn; then the echo "You said: " "hi": 3 chunks
		if _, r, body := chatOnce(t, srv, `{"model":"qwen3:4b","stream":false,"think":false,"messages":[{"role":"user","content":"hi"}]}`); r.EvalCount != want {
			t.Errorf("eval_count %d, want %d: %s", r.EvalCount, want, body)
		}
	}
}

// TestToolDeclarationsCountAsRendered: declarations cost the template's
// fixed text plus their rendered JSON at 2.5 bytes a token — and so Quire's
// 16 tools (10.5 KB) overflow a 4,096-token context, as they did on a real
// server, while 8,192 holds them.
func TestToolDeclarationsCountAsRendered(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	srv.AddModel(ollamatest.Model{Name: "plain", Capabilities: []string{"completion", "tools"}})
	user := `"messages":[{"role":"user","content":"In one sentence, why keep notes in plain Markdown?"}]`
	count := func(tools string, numCtx int) (int, int, string) {
		status, r, body := chatOnce(t, srv, fmt.Sprintf(`{"model":"plain","stream":false,"truncate":false,"options":{"num_ctx":%d},%s%s}`, numCtx, tools, user))
		return status, r.PromptEvalCount, body
	}
	_, plain, _ := count("", 8192)
	// {"type": "function", "function": {"name": "read_note", ...}}: 126
	// bytes compact, 137 with the spaces after 7 ':' and 4 ',', 138 with
	// its new line: ceil(138/2.5) = 56, plus the 100 of the fixed text.
	one := `"tools":[{"type":"function","function":{"name":"read_note","description":"Read a note","parameters":{"type":"object","properties":{}}}}],`
	if _, got, body := count(one, 8192); got-plain != 156 {
		t.Errorf("one tool added %d tokens, want 156: %s", got-plain, body)
	}

	// 16 tools whose rendered lines add up to 10,480 bytes (655 each).
	var decls []string
	for i := range 16 {
		name := fmt.Sprintf("tool_%02d", i)
		frame := len(`{"type": "function", "function": {"name": "`+name+`", "description": "", "parameters": {"type": "object", "properties": {}}}}`) + 1
		decls = append(decls, `{"type":"function","function":{"name":"`+name+`","description":"`+strings.Repeat("a", 655-frame)+`","parameters":{"type":"object","properties":{}}}}`)
	}
	quire := `"tools":[` + strings.Join(decls, ",") + `],`
	for _, tc := range []struct {
		numCtx int
		status int
		body   string
	}{
		{4096, http.StatusBadRequest, `{"error":"the input length exceeds the context length"}`},
		{8192, http.StatusOK, ""},
	} {
		status, got, body := count(quire, tc.numCtx)
		if status != tc.status || tc.body != "" && body != tc.body {
			t.Errorf("num_ctx %d: HTTP %d %s, want %d %s", tc.numCtx, status, body, tc.status, tc.body)
		}
		if status == http.StatusOK && got-plain != 100+16*262 { // ceil(655/2.5) = 262
			t.Errorf("16 tools added %d tokens, want %d", got-plain, 100+16*262)
		}
	}
}

// TestEmbedWithoutModel: /api/embed does not check the name as chat does;
// the manifest look-up fails on the unqualified name, a 500.
func TestEmbedWithoutModel(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	srv.AddModel(ollamatest.Model{Name: "nomic-embed-text", Capabilities: []string{"embedding"}})
	for _, body := range []string{`{"input":"x"}`, `{"model":"","input":"x"}`} {
		resp := post(t, t.Context(), srv, "/api/embed", body)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 500 || string(b) != `{"error":"unqualified name: registry.ollama.ai/library/:latest"}` {
			t.Errorf("%s: %d %s", body, resp.StatusCode, b)
		}
	}
	// Chat, by contrast, refuses an invalid name up front.
	if status, _, body := chatOnce(t, srv, `{"model":"no such/name/a/b/c","messages":[{"role":"user","content":"x"}]}`); status != 400 || body != `{"error":"model is required"}` {
		t.Errorf("chat with an invalid name: %d %s", status, body)
	}
}

// TestShowModelInfo: /api/show has the GGUF keys a real model reports and
// the capabilities in the order Ollama finds them.
func TestShowModelInfo(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	srv.AddModel(ollamatest.Model{Name: "qwen3:4b", Capabilities: []string{"thinking", "tools", "completion"}, ContextLength: 40960, Family: "qwen3"})
	srv.AddModel(ollamatest.Model{Name: "nomic-embed-text", Capabilities: []string{"embedding"}, ContextLength: 2048, EmbeddingLength: 768, Family: "nomic-bert", ParameterSize: "137M"})
	srv.AddModel(ollamatest.Model{Name: "gemma3:4b", Capabilities: []string{"vision", "completion"}, Family: "gemma3"})
	for _, tc := range []struct {
		model, arch string
		caps        []string
		info        map[string]any
		absent      []string
	}{
		{"qwen3:4b", "qwen3", []string{"completion", "tools", "thinking"},
			map[string]any{"qwen3.context_length": 40960.0, "general.parameter_count": 4e9, "general.size_label": "4B", "tokenizer.ggml.tokens": nil},
			[]string{"qwen3.pooling_type"}},
		{"nomic-embed-text", "nomic-bert", []string{"embedding"},
			map[string]any{"nomic-bert.context_length": 2048.0, "nomic-bert.embedding_length": 768.0, "general.parameter_count": 137e6, "nomic-bert.pooling_type": 1.0},
			nil},
		{"gemma3:4b", "gemma3", []string{"completion", "vision"}, map[string]any{"gemma3.vision.block_count": 27.0}, nil},
	} {
		resp := post(t, t.Context(), srv, "/api/show", `{"model":"`+tc.model+`"}`)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		hasKeys(t, keys(t, string(b), "model_info"), "general.architecture", "general.basename", "general.file_type",
			"general.parameter_count", "general.quantization_version", "general.size_label", "general.type",
			tc.arch+".attention.head_count", tc.arch+".attention.head_count_kv", tc.arch+".block_count",
			tc.arch+".context_length", tc.arch+".embedding_length", tc.arch+".feed_forward_length",
			"tokenizer.ggml.model", "tokenizer.ggml.tokens", "tokenizer.ggml.merges")
		var show struct {
			ModelInfo    map[string]any `json:"model_info"`
			Capabilities []string       `json:"capabilities"`
		}
		json.Unmarshal(b, &show)
		if !slices.Equal(show.Capabilities, tc.caps) || show.ModelInfo["general.architecture"] != tc.arch {
			t.Errorf("%s: capabilities %v, architecture %v; want %v, %s", tc.model, show.Capabilities, show.ModelInfo["general.architecture"], tc.caps, tc.arch)
		}
		for k, want := range tc.info {
			if got, ok := show.ModelInfo[k]; !ok || got != want {
				t.Errorf("%s: %s = %v (present %v), want %v", tc.model, k, got, ok, want)
			}
		}
		for _, k := range tc.absent {
			if _, ok := show.ModelInfo[k]; ok {
				t.Errorf("%s: %s present", tc.model, k)
			}
		}
	}
}

// TestPullWithoutNetwork: with the registry unreachable a pull says
// "pulling manifest" and then fails with the manifest request's error, as
// images.go PullModel words it; the option can be turned off again.
func TestPullWithoutNetwork(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithRegistryUnreachable())
	srv.AddPullable(ollamatest.Model{Name: "qwen3:4b", Size: 1000})
	pull := func(body string) (int, []string) {
		resp := post(t, t.Context(), srv, "/api/pull", body)
		defer resp.Body.Close()
		got, err := lines(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, got
	}
	const offline = `{"error":"pull model manifest: Get \"https://registry.ollama.ai/v2/library/qwen3/manifests/4b\": dial tcp: lookup registry.ollama.ai: no such host"}`
	if status, got := pull(`{"model":"qwen3:4b"}`); status != 200 || !slices.Equal(got, []string{`{"status":"pulling manifest"}`, offline}) {
		t.Errorf("streamed: %d %q", status, got)
	}
	if status, got := pull(`{"model":"qwen3:4b","stream":false}`); status != 500 || !slices.Equal(got, []string{offline}) {
		t.Errorf("not streamed: %d %q", status, got)
	}
	srv.SetRegistryUnreachable(false)
	if _, got := pull(`{"model":"qwen3:4b"}`); got[len(got)-1] != `{"status":"success"}` {
		t.Errorf("back online: %q", got)
	}
}
