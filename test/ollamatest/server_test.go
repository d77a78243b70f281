package ollamatest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"quire/test/ollamatest"
	"quire/test/testkit"
)

// post sends body to path and returns the response; the caller closes it.
func post(t *testing.T, ctx context.Context, srv *ollamatest.Server, path, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// lines reads an NDJSON body to its end and returns its lines and the
// error that ended it (nil at a clean end).
func lines(body io.Reader) ([]string, error) {
	var out []string
	r := bufio.NewReader(body)
	for {
		line, err := r.ReadString('\n')
		if line != "" {
			out = append(out, strings.TrimSuffix(line, "\n"))
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

// keys returns the top-level keys of a JSON object, and of one nested object.
func keys(t *testing.T, raw string, path ...string) []string {
	t.Helper()
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &obj); err != nil {
		t.Fatalf("not a JSON object: %s: %v", raw, err)
	}
	for _, p := range path {
		inner, ok := obj[p]
		if !ok {
			t.Fatalf("no key %q in %s", p, raw)
		}
		obj = nil
		if err := json.Unmarshal(inner, &obj); err != nil {
			t.Fatalf("%q is not an object in %s", p, raw)
		}
	}
	out := make([]string, 0, len(obj))
	for k := range obj {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func hasKeys(t *testing.T, got []string, want ...string) {
	t.Helper()
	for _, k := range want {
		if !slices.Contains(got, k) {
			t.Errorf("missing key %q; have %v", k, got)
		}
	}
}

func thinker(t *testing.T, opts ...ollamatest.Option) *ollamatest.Server {
	srv := ollamatest.New(t, opts...)
	srv.AddModel(ollamatest.DefaultModel())
	return srv
}

func TestChatStreamsOllamaNDJSON(t *testing.T) {
	t.Parallel()
	srv := thinker(t)
	srv.Script(ollamatest.Turn{
		Thinking:        []string{"Let me ", "look."},
		Content:         []string{"Sure", "."},
		ToolCalls:       []ollamatest.ToolCall{{ID: "call_abc", Name: "search_notes", Arguments: json.RawMessage(`{"query":"go","limit":3}`)}},
		DoneReason:      "stop",
		PromptEvalCount: 42,
		EvalCount:       7,
	})

	resp := post(t, t.Context(), srv, "/api/chat", `{"model":"qwen3:4b","messages":[{"role":"user","content":"hi"}],`+
		`"tools":[{"type":"function","function":{"name":"search_notes","parameters":{"type":"object","properties":{}}}}]}`)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("status %d, content type %q; want 200 application/x-ndjson", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	got, err := lines(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 6 {
		t.Fatalf("got %d lines, want 2 thinking + 2 content + 1 tool call + 1 final:\n%s", len(got), strings.Join(got, "\n"))
	}

	var msgs []api.ChatResponse
	for _, l := range got {
		var r api.ChatResponse
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("line %s: %v", l, err)
		}
		msgs = append(msgs, r)
	}
	for i, r := range msgs[:5] {
		if r.Done || r.Model != "qwen3:4b" || r.Message.Role != "assistant" || r.CreatedAt.IsZero() {
			t.Errorf("chunk %d = %+v; want not done, model qwen3:4b, role assistant, created_at set", i, r)
		}
		hasKeys(t, keys(t, got[i]), "model", "created_at", "message", "done")
	}
	if msgs[0].Message.Thinking != "Let me " || msgs[1].Message.Thinking != "look." {
		t.Errorf("thinking chunks = %q, %q", msgs[0].Message.Thinking, msgs[1].Message.Thinking)
	}
	if msgs[2].Message.Content != "Sure" || msgs[3].Message.Content != "." {
		t.Errorf("content chunks = %q, %q", msgs[2].Message.Content, msgs[3].Message.Content)
	}

	// A tool call arrives whole, with Ollama's field names and the
	// arguments as an object in the order the model wrote them.
	if !strings.Contains(got[4], `"tool_calls":[{"id":"call_abc","function":{"index":0,"name":"search_notes","arguments":{"query":"go","limit":3}}}]`) {
		t.Errorf("tool call line = %s", got[4])
	}

	final := msgs[5]
	hasKeys(t, keys(t, got[5]), "done", "done_reason", "total_duration", "load_duration",
		"prompt_eval_count", "prompt_eval_duration", "eval_count", "eval_duration", "created_at", "model")
	if !final.Done || final.DoneReason != "stop" || final.PromptEvalCount != 42 || final.EvalCount != 7 || final.TotalDuration <= 0 {
		t.Errorf("final chunk = %+v", final)
	}
	if final.Message.Role != "assistant" || final.Message.Content != "" {
		t.Errorf("final message = %+v; want an empty assistant message", final.Message)
	}
}

func TestChatNotStreamedIsOneObject(t *testing.T) {
	t.Parallel()
	srv := thinker(t)
	srv.Script(ollamatest.Turn{Thinking: []string{"a", "b"}, Content: []string{"Hel", "lo"}, DoneReason: "length"})

	resp := post(t, t.Context(), srv, "/api/chat", `{"model":"qwen3:4b","stream":false,"messages":[{"role":"user","content":"hi"}]}`)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if bytes.Count(body, []byte("\n")) != 0 {
		t.Errorf("body has newlines, want one JSON object: %s", body)
	}
	var r api.ChatResponse
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatal(err)
	}
	if !r.Done || r.DoneReason != "length" || r.Message.Content != "Hello" || r.Message.Thinking != "ab" {
		t.Errorf("reply = %+v; want done, length, content Hello, thinking ab", r)
	}
}

func TestChatEchoesLastUserMessageInChunks(t *testing.T) {
	t.Parallel()
	srv := thinker(t)
	resp := post(t, t.Context(), srv, "/api/chat", `{"model":"qwen3:4b","messages":[
		{"role":"user","content":"first"},{"role":"assistant","content":"ok"},{"role":"user","content":"hello there"}]}`)
	defer resp.Body.Close()
	got, err := lines(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, l := range got {
		var r api.ChatResponse
		json.Unmarshal([]byte(l), &r)
		text.WriteString(r.Message.Content)
	}
	if text.String() != "You said: hello there" {
		t.Errorf("echo = %q", text.String())
	}
	if len(got) < 4 {
		t.Errorf("echo came in %d lines, want several chunks and a final one", len(got))
	}
}

func TestChatThinkingOnlyWhenThinkingIsOn(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		think string
		want  int // lines
	}{
		{"thinking model, think unset", ``, 3},
		{"thinking model, think false", `"think":false,`, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := thinker(t)
			srv.Script(ollamatest.Turn{Thinking: []string{"hmm"}, Content: []string{"yes"}})
			resp := post(t, t.Context(), srv, "/api/chat", `{"model":"qwen3:4b",`+tc.think+`"messages":[{"role":"user","content":"?"}]}`)
			defer resp.Body.Close()
			got, _ := lines(resp.Body)
			if len(got) != tc.want {
				t.Errorf("got %d lines, want %d:\n%s", len(got), tc.want, strings.Join(got, "\n"))
			}
		})
	}
}

func TestChatErrorsAsOllamaSendsThem(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 4*100+4) // 101 tokens by the fake's estimate
	for _, tc := range []struct {
		name   string
		script []ollamatest.Turn
		body   string
		status int
		error  string
	}{
		{name: "unknown model", body: `{"model":"nope","messages":[{"role":"user","content":"hi"}]}`,
			status: 404, error: "model 'nope' not found"},
		{name: "missing body", body: ``, status: 400, error: "missing request body"},
		{name: "bad JSON", body: `{"model":`, status: 400, error: "unexpected EOF"},
		{name: "no model", body: `{"messages":[]}`, status: 400, error: "model is required"},
		{name: "thinking not supported", body: `{"model":"plain","think":true,"messages":[{"role":"user","content":"hi"}]}`,
			status: 400, error: `"plain" does not support thinking`},
		{name: "tools not supported", body: `{"model":"plain","tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{}}}}],"messages":[{"role":"user","content":"hi"}]}`,
			status: 400, error: "registry.ollama.ai/library/plain:latest does not support tools"},
		{name: "embedding model cannot chat", body: `{"model":"embedder","messages":[{"role":"user","content":"hi"}]}`,
			status: 400, error: `"embedder" does not support chat`},
		{name: "prompt over num_ctx with truncate false", body: `{"model":"plain","truncate":false,"options":{"num_ctx":100},"messages":[{"role":"user","content":"` + long + `"}]}`,
			status: 400, error: "the input length exceeds the context length"},
		{name: "num_ctx capped at the model's context", body: `{"model":"small","truncate":false,"options":{"num_ctx":100000},"messages":[{"role":"user","content":"` + long + `"}]}`,
			status: 400, error: "the input length exceeds the context length"},
		{name: "scripted status", script: []ollamatest.Turn{{Fail: ollamatest.Failure{Kind: ollamatest.FailStatus, Status: 503, Message: "server busy"}}},
			body: `{"model":"plain","messages":[{"role":"user","content":"hi"}]}`, status: 503, error: "server busy"},
		{name: "error before the first chunk", script: []ollamatest.Turn{{Content: []string{"a"}, Fail: ollamatest.Failure{Kind: ollamatest.FailErrorLine}}},
			body: `{"model":"plain","messages":[{"role":"user","content":"hi"}]}`, status: 500, error: "model runner has unexpectedly stopped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := ollamatest.New(t)
			srv.AddModel(ollamatest.Model{Name: "plain"})
			srv.AddModel(ollamatest.Model{Name: "small", ContextLength: 100})
			srv.AddModel(ollamatest.Model{Name: "embedder", Capabilities: []string{"embedding"}})
			srv.Script(tc.script...)

			resp := post(t, t.Context(), srv, "/api/chat", tc.body)
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			var e struct {
				Error string `json:"error"`
			}
			if err := json.Unmarshal(body, &e); err != nil {
				t.Fatalf("body %s is not {\"error\": …}: %v", body, err)
			}
			if resp.StatusCode != tc.status || !strings.Contains(e.Error, tc.error) {
				t.Errorf("got %d %s; want %d with error %q", resp.StatusCode, body, tc.status, tc.error)
			}
			if got := keys(t, string(body)); !slices.Equal(got, []string{"error"}) {
				t.Errorf("error body keys = %v, want only error", got)
			}
		})
	}
}

func TestChatLongPromptFitsWhenTruncateIsNotFalse(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	srv.AddModel(ollamatest.Model{Name: "plain"})
	long := strings.Repeat("x", 1000)
	// Ollama drops old messages to fit instead of failing, unless told not to.
	resp := post(t, t.Context(), srv, "/api/chat", `{"model":"plain","options":{"num_ctx":10},"messages":[{"role":"user","content":"`+long+`"}]}`)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Errorf("got %d %s; want 200", resp.StatusCode, body)
	}
}

func TestChatFailsMidStream(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		fail      ollamatest.Failure
		wantLines int
		wantLast  string // "" when the body must end in a read error
	}{
		{"error line", ollamatest.Failure{Kind: ollamatest.FailErrorLine, After: 2, Message: "out of memory"}, 3, `{"error":"out of memory"}`},
		// A runner that dies while it streams: Ollama 0.17.4's words (llm/server.go).
		{"error line after everything", ollamatest.Failure{Kind: ollamatest.FailErrorLine, After: 99}, 4, `{"error":"an error was encountered while running the model: unexpected EOF"}`},
		{"connection dropped", ollamatest.Failure{Kind: ollamatest.FailDrop, After: 2}, 2, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := thinker(t)
			srv.Script(ollamatest.Turn{Content: []string{"a", "b", "c"}, Fail: tc.fail})
			resp := post(t, t.Context(), srv, "/api/chat", `{"model":"qwen3:4b","messages":[{"role":"user","content":"hi"}]}`)
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d; a failure after streaming began keeps the 200", resp.StatusCode)
			}
			got, err := lines(resp.Body)
			if len(got) != tc.wantLines {
				t.Fatalf("got %d lines, want %d: %q", len(got), tc.wantLines, got)
			}
			if tc.wantLast == "" {
				if err == nil {
					t.Error("body ended cleanly; want the connection cut")
				}
				return
			}
			if err != nil || got[len(got)-1] != tc.wantLast {
				t.Errorf("last line %s (read error %v), want %s", got[len(got)-1], err, tc.wantLast)
			}
		})
	}
}

// TestChatHangsUntilClientGoesAway: a hanging reply sends nothing more, so
// a read returns only once the client cancels. Nothing marks a server that
// is hanging rather than about to write, so the read is given 50 ms in which
// a reply that does not hang would show; a hanging one never fails it.
func TestChatHangsUntilClientGoesAway(t *testing.T) {
	t.Parallel()
	srv := thinker(t)
	srv.Script(ollamatest.Turn{Content: []string{"a", "b"}, Fail: ollamatest.Failure{Kind: ollamatest.FailHang, After: 1}})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	resp := post(t, ctx, srv, "/api/chat", `{"model":"qwen3:4b","messages":[{"role":"user","content":"hi"}]}`)
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	if _, err := r.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	read := make(chan error, 1)
	go func() {
		_, err := r.ReadString('\n')
		read <- err
	}()
	select {
	case err := <-read:
		t.Fatalf("second read returned %v; want it to block while the server hangs", err)
	case <-time.After(50 * time.Millisecond):
	}
	cancel()
	select {
	case err := <-read:
		if err == nil {
			t.Error("the second read got a line after the cancel; want the reply cut")
		}
	case <-time.After(testkit.Patience):
		t.Fatal("read still blocked after the client cancelled")
	}
}

func TestCloseCutsHangingReplies(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{})
	arrive := sync.OnceFunc(func() { close(arrived) })
	srv := thinker(t, ollamatest.WithResponder(func(api.ChatRequest) (ollamatest.Turn, bool) {
		arrive()
		return ollamatest.Turn{Fail: ollamatest.Failure{Kind: ollamatest.FailHang}}, true
	}))
	answered := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL()+"/api/chat",
			strings.NewReader(`{"model":"qwen3:4b","messages":[{"role":"user","content":"hi"}]}`))
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		answered <- err
	}()
	select {
	case <-arrived:
	case <-time.After(testkit.Patience):
		t.Fatal("the request never reached the server")
	}
	closed := make(chan struct{})
	go func() { srv.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(testkit.Patience):
		t.Fatal("Close blocked on a hanging reply")
	}
	// The client sees the server go away, not an empty success.
	if err := <-answered; err == nil {
		t.Error("the hanging request got an answer; want the connection cut")
	}
}

// TestChatWaitsDelayBeforeEachChunk: the turn's delay wins over the
// server's, and each line (3 chunks and the final one) is written only once
// its delay has passed. The test's timer passes each delay when asked, so a
// line that arrives before its delay passed is the failure, seen at once.
func TestChatWaitsDelayBeforeEachChunk(t *testing.T) {
	t.Parallel()
	type delay struct {
		d    time.Duration
		pass chan<- time.Time
	}
	asked := make(chan delay)
	srv := thinker(t, ollamatest.WithDelay(time.Hour), ollamatest.WithTimer(func(d time.Duration) <-chan time.Time {
		c := make(chan time.Time, 1)
		select {
		case asked <- delay{d, c}:
		case <-t.Context().Done():
		}
		return c
	}))
	srv.Script(ollamatest.Turn{Content: []string{"a", "b", "c"}, Delay: 20 * time.Millisecond})
	// The headers come with the first line, after the first delay: the
	// request is sent beside the loop that passes the delays.
	got := make(chan string, 16)
	go func() {
		defer close(got)
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL()+"/api/chat",
			strings.NewReader(`{"model":"qwen3:4b","messages":[{"role":"user","content":"hi"}]}`))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return
		}
		defer resp.Body.Close()
		for sc := bufio.NewScanner(resp.Body); sc.Scan(); {
			got <- sc.Text()
		}
	}()
	timeout := time.After(testkit.Patience)
	passed, lines := 0, 0
	for done := false; !done; {
		select {
		case w := <-asked:
			if w.d != 20*time.Millisecond {
				t.Fatalf("delay %d is %v; want the turn's 20ms", passed, w.d)
			}
			passed++
			w.pass <- time.Now()
		case _, ok := <-got:
			if !ok {
				done = true
				break
			}
			if lines++; lines > passed {
				t.Fatalf("line %d arrived when %d delays had passed; want each after its delay", lines, passed)
			}
		case <-timeout:
			t.Fatalf("waited %s: %d delays passed, %d lines read", testkit.Patience, passed, lines)
		}
	}
	if passed != 4 || lines != 4 {
		t.Errorf("%d delays passed and %d lines read; want 4 of each (3 chunks and the final one)", passed, lines)
	}
}

func TestRequestsRecordsWhatWasSent(t *testing.T) {
	t.Parallel()
	srv := thinker(t)
	bodies := []string{
		`{"model":"qwen3:4b","truncate":false,"options":{"num_ctx":8192},"messages":[{"role":"user","content":"one"}]}`,
		`{"model":"missing","messages":[{"role":"user","content":"two"}]}`,
		`not json`,
	}
	for _, b := range bodies {
		resp := post(t, t.Context(), srv, "/api/chat", b)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	got := srv.Requests()
	if len(got) != len(bodies) {
		t.Fatalf("recorded %d requests, want %d", len(got), len(bodies))
	}
	for i, b := range bodies {
		if string(got[i].Body) != b {
			t.Errorf("request %d body = %s, want %s", i, got[i].Body, b)
		}
	}
	if got[0].Chat.Model != "qwen3:4b" || got[0].Chat.Truncate == nil || *got[0].Chat.Truncate ||
		got[0].Chat.Options["num_ctx"] != float64(8192) || got[0].Chat.Messages[0].Content != "one" {
		t.Errorf("decoded request = %+v", got[0].Chat)
	}
	if got[2].Chat.Model != "" {
		t.Errorf("undecodable request has Chat %+v, want zero", got[2].Chat)
	}
}

func TestScriptedTurnsAreUsedInOrderByValidRequestsOnly(t *testing.T) {
	t.Parallel()
	srv := thinker(t)
	srv.Script(ollamatest.Turn{Content: []string{"first"}}, ollamatest.Turn{Content: []string{"second"}})

	reply := func(model string) string {
		resp := post(t, t.Context(), srv, "/api/chat", `{"model":"`+model+`","stream":false,"messages":[{"role":"user","content":"x"}]}`)
		defer resp.Body.Close()
		var r api.ChatResponse
		json.NewDecoder(resp.Body).Decode(&r)
		return r.Message.Content
	}
	reply("missing")
	if got := []string{reply("qwen3:4b"), reply("qwen3:4b"), reply("qwen3:4b")}; !slices.Equal(got, []string{"first", "second", "You said: x"}) {
		t.Errorf("replies = %q", got)
	}
	if srv.Pending() != 0 {
		t.Errorf("Pending = %d, want 0", srv.Pending())
	}
}

func TestConcurrentChats(t *testing.T) {
	t.Parallel()
	srv := thinker(t)
	const n = 16
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			resp := post(t, t.Context(), srv, "/api/chat", `{"model":"qwen3:4b","messages":[{"role":"user","content":"hi"}]}`)
			defer resp.Body.Close()
			if got, err := lines(resp.Body); err != nil || len(got) < 2 {
				t.Errorf("lines %q, err %v", got, err)
			}
		})
	}
	wg.Wait()
	if got := len(srv.Requests()); got != n {
		t.Errorf("recorded %d requests, want %d", got, n)
	}
}

func TestRootVersionTagsShow(t *testing.T) {
	t.Parallel()
	srv := thinker(t, ollamatest.WithVersion("9.9.9"))
	srv.AddModel(ollamatest.Model{Name: "nomic-embed-text", Capabilities: []string{"embedding"}, ContextLength: 2048, Family: "nomic-bert"})

	get := func(method, path string) (int, string) {
		req, _ := http.NewRequestWithContext(t.Context(), method, srv.URL()+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, tc := range []struct{ method, path, want string }{
		{"GET", "/", "Ollama is running"},
		{"HEAD", "/", ""},
		{"GET", "/api/version", `{"version":"9.9.9"}`},
	} {
		if status, body := get(tc.method, tc.path); status != 200 || body != tc.want {
			t.Errorf("%s %s = %d %q, want 200 %q", tc.method, tc.path, status, body, tc.want)
		}
	}

	status, body := get("GET", "/api/tags")
	var tags api.ListResponse
	if err := json.Unmarshal([]byte(body), &tags); status != 200 || err != nil {
		t.Fatalf("tags: %d %s %v", status, body, err)
	}
	var names []string
	for _, m := range tags.Models {
		names = append(names, m.Name)
	}
	if !slices.Equal(names, []string{"nomic-embed-text:latest", "qwen3:4b"}) {
		t.Errorf("tags names = %q; want newest first, shortest names with tags", names)
	}
	var raw struct{ Models []json.RawMessage }
	json.Unmarshal([]byte(body), &raw)
	hasKeys(t, keys(t, string(raw.Models[0])), "name", "model", "modified_at", "size", "digest", "details")

	resp := post(t, t.Context(), srv, "/api/show", `{"model":"nomic-embed-text"}`)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	hasKeys(t, keys(t, string(b)), "capabilities", "model_info", "details")
	hasKeys(t, keys(t, string(b), "model_info"), "general.architecture", "nomic-bert.context_length", "nomic-bert.embedding_length")
	var show api.ShowResponse
	json.Unmarshal(b, &show)
	if show.ModelInfo["nomic-bert.context_length"] != float64(2048) || len(show.Capabilities) != 1 || show.Capabilities[0] != "embedding" {
		t.Errorf("show = %s", b)
	}

	resp = post(t, t.Context(), srv, "/api/show", `{"model":"gone"}`)
	defer resp.Body.Close()
	b, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != 404 || string(b) != `{"error":"model 'gone' not found"}` {
		t.Errorf("show unknown = %d %s", resp.StatusCode, b)
	}
}

func TestEmbed(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	srv.AddModel(ollamatest.Model{Name: "nomic-embed-text", Capabilities: []string{"embedding"}, EmbeddingLength: 32, ContextLength: 8})

	embed := func(body string) (int, api.EmbedResponse, string) {
		return postFor[api.EmbedResponse](t, srv, "/api/embed", body)
	}

	status, one, _ := embed(`{"model":"nomic-embed-text","input":"the cat sat"}`)
	if status != 200 || len(one.Embeddings) != 1 || len(one.Embeddings[0]) != 32 {
		t.Fatalf("string input: %d %+v", status, one)
	}
	status, many, body := embed(`{"model":"nomic-embed-text","input":["the cat sat","the cat sat on the mat","stock prices fell"]}`)
	if status != 200 || len(many.Embeddings) != 3 {
		t.Fatalf("list input: %d %s", status, body)
	}
	hasKeys(t, keys(t, body), "model", "embeddings", "total_duration", "load_duration", "prompt_eval_count")
	for i, v := range many.Embeddings {
		var sum float64
		for _, x := range v {
			sum += float64(x) * float64(x)
		}
		if math.Abs(sum-1) > 1e-5 {
			t.Errorf("vector %d has squared length %v, want 1", i, sum)
		}
	}
	if !slices.Equal(one.Embeddings[0], many.Embeddings[0]) {
		t.Error("the same text gave different vectors")
	}
	dot := func(a, b []float32) (s float32) {
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	if near, far := dot(many.Embeddings[0], many.Embeddings[1]), dot(many.Embeddings[0], many.Embeddings[2]); near <= far {
		t.Errorf("similarity of texts sharing words %v <= of unrelated texts %v", near, far)
	}

	for _, tc := range []struct {
		name, body string
		status     int
		error      string
	}{
		{"unknown model", `{"model":"gone","input":"x"}`, 404, `model "gone" not found, try pulling it first`},
		{"bad input", `{"model":"nomic-embed-text","input":[1]}`, 400, "invalid input type"},
		{"too long without truncation", `{"model":"nomic-embed-text","truncate":false,"input":"` + strings.Repeat("y", 40) + `"}`, 400, "the input length exceeds the context length"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, _, body := embed(tc.body)
			if status != tc.status || body != `{"error":"`+strings.ReplaceAll(tc.error, `"`, `\"`)+`"}` {
				t.Errorf("got %d %s, want %d %q", status, body, tc.status, tc.error)
			}
		})
	}
}

func TestPull(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	srv.AddPullable(ollamatest.Model{Name: "qwen3:4b", Size: 1000})

	resp := post(t, t.Context(), srv, "/api/pull", `{"model":"qwen3:4b"}`)
	defer resp.Body.Close()
	got, err := lines(resp.Body)
	if err != nil || resp.Header.Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("pull: %v, content type %q", err, resp.Header.Get("Content-Type"))
	}
	var steps []api.ProgressResponse
	for _, l := range got {
		var p api.ProgressResponse
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			t.Fatal(err)
		}
		steps = append(steps, p)
	}
	if steps[0].Status != "pulling manifest" || steps[len(steps)-1].Status != "success" {
		t.Errorf("pull went %q … %q", steps[0].Status, steps[len(steps)-1].Status)
	}
	var sawLayerDone bool
	for i, p := range steps {
		if p.Digest == "" {
			continue
		}
		if !strings.HasPrefix(p.Digest, "sha256:") || p.Status != "pulling "+p.Digest[7:19] || p.Completed > p.Total {
			t.Errorf("layer step %+v", p)
		}
		if p.Total == 1000 && p.Completed == 1000 {
			sawLayerDone = true
			hasKeys(t, keys(t, got[i]), "status", "digest", "total", "completed")
		}
	}
	if !sawLayerDone {
		t.Error("no step completed the model's layer")
	}

	// The pulled model is installed.
	resp = post(t, t.Context(), srv, "/api/show", `{"model":"qwen3:4b"}`)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("show after pull = %d", resp.StatusCode)
	}

	resp = post(t, t.Context(), srv, "/api/pull", `{"model":"nosuch"}`)
	defer resp.Body.Close()
	got, _ = lines(resp.Body)
	if !slices.Equal(got, []string{`{"status":"pulling manifest"}`, `{"error":"pull model manifest: file does not exist"}`}) {
		t.Errorf("pull of an unknown model = %q", got)
	}

	resp = post(t, t.Context(), srv, "/api/pull", `{"model":"qwen3:4b","stream":false}`)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if string(b) != `{"status":"success"}` {
		t.Errorf("unstreamed pull = %s", b)
	}
}

func TestTurnFromScriptJSON(t *testing.T) {
	t.Parallel()
	var turns []ollamatest.Turn
	err := json.Unmarshal([]byte(`[
		{"content":["a","b"],"thinking":["t"],"delay":"30ms","done_reason":"length",
		 "tool_calls":[{"name":"f","arguments":{"x":1}}],"prompt_eval_count":5,"eval_count":6},
		{"fail":{"kind":"drop","after":1}}
	]`), &turns)
	if err != nil {
		t.Fatal(err)
	}
	want := []ollamatest.Turn{
		{Content: []string{"a", "b"}, Thinking: []string{"t"}, Delay: 30 * time.Millisecond, DoneReason: "length",
			ToolCalls: []ollamatest.ToolCall{{Name: "f", Arguments: json.RawMessage(`{"x":1}`)}}, PromptEvalCount: 5, EvalCount: 6},
		{Fail: ollamatest.Failure{Kind: ollamatest.FailDrop, After: 1}},
	}
	if len(turns) != 2 || !slices.Equal(turns[0].Content, want[0].Content) || turns[0].Delay != want[0].Delay ||
		turns[0].DoneReason != "length" || string(turns[0].ToolCalls[0].Arguments) != `{"x":1}` ||
		turns[0].EvalCount != 6 || turns[1].Fail != want[1].Fail {
		t.Errorf("turns = %+v\nwant    %+v", turns, want)
	}

	for _, bad := range []string{`[{"delay":"soon"}]`, `[{"fail":{"kind":"explode"}}]`} {
		if err := json.Unmarshal([]byte(bad), &turns); err == nil {
			t.Errorf("%s decoded without error", bad)
		}
	}
}

func TestRepliesChosenByWhatTheUserSaid(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.WithReplies(func(last string) (ollamatest.Turn, bool) {
		if last == "fail" {
			return ollamatest.Turn{Fail: ollamatest.Failure{Kind: ollamatest.FailStatus, Status: 500, Message: "chosen failure"}}, true
		}
		return ollamatest.Turn{}, false
	}))
	srv.AddModel(ollamatest.DefaultModel())
	post := func(text string) (int, string) {
		body := `{"model":"qwen3:4b","stream":false,"think":false,"messages":[{"role":"user","content":"` + text + `"}]}`
		resp, err := http.Post(srv.URL()+"/api/chat", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if status, body := post("fail"); status != 500 || !strings.Contains(body, "chosen failure") {
		t.Fatalf("chosen reply: %d %s", status, body)
	}
	if status, body := post("hello"); status != 200 || !strings.Contains(body, "You said: hello") {
		t.Fatalf("echo: %d %s", status, body)
	}
}

// TestPromptEvalCountGrowsWithTheRequest: the fake reports prompt_eval_count
// as a tokenizer would, growing with the messages, their template wrapping
// and the tool declarations, and refuses exactly where that count passes
// num_ctx (with truncate:false) — so a client can calibrate against it.
func TestPromptEvalCountGrowsWithTheRequest(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	srv.AddModel(ollamatest.Model{Name: "plain", Capabilities: []string{"completion", "tools"}})
	count := func(body string) (int, int) {
		resp := post(t, t.Context(), srv, "/api/chat", body)
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return 0, resp.StatusCode
		}
		var final api.ChatResponse
		if err := json.NewDecoder(resp.Body).Decode(&final); err != nil {
			t.Fatal(err)
		}
		return final.PromptEvalCount, resp.StatusCode
	}
	msg := func(n int) string { return `{"role":"user","content":"` + strings.Repeat("a", n) + `"}` }
	tools := `"tools":[{"type":"function","function":{"name":"read_note","description":"Read a note","parameters":{"type":"object","properties":{}}}}],`
	for _, tc := range []struct {
		name   string
		body   string
		want   int
		status int
	}{
		{"one message: chars/4 + template", `{"model":"plain","stream":false,"messages":[` + msg(400) + `]}`, 100 + ollamatest.TemplateTokens, 200},
		{"two messages", `{"model":"plain","stream":false,"messages":[` + msg(400) + `,` + msg(400) + `]}`, 200 + 2*ollamatest.TemplateTokens, 200},
		{"exactly num_ctx fits", `{"model":"plain","stream":false,"truncate":false,"options":{"num_ctx":105},"messages":[` + msg(400) + `]}`, 105, 200},
		{"one token over is refused", `{"model":"plain","stream":false,"truncate":false,"options":{"num_ctx":104},"messages":[` + msg(400) + `]}`, 0, 400},
	} {
		got, status := count(tc.body)
		if status != tc.status || got != tc.want {
			t.Errorf("%s: got %d (HTTP %d), want %d (HTTP %d)", tc.name, got, status, tc.want, tc.status)
		}
	}
	plain, _ := count(`{"model":"plain","stream":false,"messages":[` + msg(40) + `]}`)
	withTools, _ := count(`{"model":"plain","stream":false,` + tools + `"messages":[` + msg(40) + `]}`)
	if withTools <= plain {
		t.Errorf("tool declarations must count: %d with tools, %d without", withTools, plain)
	}
}

// TestResponderSeesTheWholeRequest: WithResponder answers from the whole
// request (here its system message), before WithReplies; false falls
// through to it, and then to the echo; a scripted turn still comes first.
func TestResponderSeesTheWholeRequest(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t,
		ollamatest.WithResponder(func(req api.ChatRequest) (ollamatest.Turn, bool) {
			if req.Messages[0].Role == "system" && req.Messages[0].Content == "summarise" {
				return ollamatest.Turn{Content: []string{"a summary"}}, true
			}
			return ollamatest.Turn{}, false
		}),
		ollamatest.WithReplies(func(last string) (ollamatest.Turn, bool) {
			return ollamatest.Turn{Content: []string{"replied"}}, last == "reply"
		}))
	srv.AddModel(ollamatest.DefaultModel())
	post := func(msgs string) string {
		resp := post(t, t.Context(), srv, "/api/chat", `{"model":"qwen3:4b","stream":false,"think":false,"messages":[`+msgs+`]}`)
		defer resp.Body.Close()
		var r api.ChatResponse
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
			t.Fatal(err)
		}
		return r.Message.Content
	}
	for _, tc := range []struct{ msgs, want string }{
		{`{"role":"system","content":"summarise"},{"role":"user","content":"reply"}`, "a summary"},
		{`{"role":"system","content":"other"},{"role":"user","content":"reply"}`, "replied"},
		{`{"role":"system","content":"other"},{"role":"user","content":"hi"}`, "You said: hi"},
	} {
		if got := post(tc.msgs); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.msgs, got, tc.want)
		}
	}
	srv.Script(ollamatest.Turn{Content: []string{"scripted"}})
	if got := post(`{"role":"system","content":"summarise"},{"role":"user","content":"x"}`); got != "scripted" {
		t.Errorf("a scripted turn comes first, got %q", got)
	}
}

// TestAsideComesBeforeTheScript: a request WithAside claims is answered by
// it and leaves the scripted turns for the conversation they were written
// for; what it declines takes the next scripted turn.
func TestAsideComesBeforeTheScript(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t, ollamatest.WithAside(func(req api.ChatRequest) (ollamatest.Turn, bool) {
		return ollamatest.Turn{Content: []string{"a summary"}}, req.Messages[0].Content == "summarise"
	}))
	srv.AddModel(ollamatest.DefaultModel())
	srv.Script(ollamatest.Turn{Content: []string{"first"}}, ollamatest.Turn{Content: []string{"second"}})
	post := func(system string) string {
		resp := post(t, t.Context(), srv, "/api/chat", `{"model":"qwen3:4b","stream":false,"think":false,"messages":[{"role":"system","content":"`+system+`"},{"role":"user","content":"x"}]}`)
		defer resp.Body.Close()
		var r api.ChatResponse
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
			t.Fatal(err)
		}
		return r.Message.Content
	}
	for i, tc := range []struct{ system, want string }{
		{"chat", "first"}, {"summarise", "a summary"}, {"chat", "second"}, {"summarise", "a summary"},
	} {
		if got := post(tc.system); got != tc.want {
			t.Errorf("request %d (%s): got %q, want %q", i, tc.system, got, tc.want)
		}
	}
	if n := srv.Pending(); n != 0 {
		t.Errorf("%d scripted turns left, want 0", n)
	}
}

// TestChatHonoursNumPredict: a reply ends after num_predict pieces with
// done_reason "length" and eval_count num_predict, as Ollama's runner ends
// it; an endless reply (a looping model) never ends otherwise.
func TestChatHonoursNumPredict(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		turn       ollamatest.Turn
		options    string
		wantPieces int
		wantReason string
		wantEval   int
	}{
		{"endless stops at num_predict", ollamatest.Turn{Content: []string{"again ", "and "}, Endless: true}, `{"num_predict":7}`, 7, "length", 7},
		{"endless without a limit stops at the cap", ollamatest.Turn{Content: []string{"again "}, Endless: true}, `{}`, ollamatest.EndlessCap, "length", ollamatest.EndlessCap},
		{"short reply under the limit", ollamatest.Turn{Content: []string{"a", "b"}}, `{"num_predict":5}`, 2, "stop", 3},
		{"reply cut at the limit", ollamatest.Turn{Content: []string{"a", "b", "c"}}, `{"num_predict":2}`, 2, "length", 2},
		{"negative is no limit", ollamatest.Turn{Content: []string{"a", "b", "c"}}, `{"num_predict":-1}`, 3, "stop", 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := thinker(t)
			srv.Script(tt.turn)
			resp := post(t, t.Context(), srv, "/api/chat", `{"model":"qwen3:4b","think":false,"messages":[{"role":"user","content":"hi"}],"options":`+tt.options+`}`)
			defer resp.Body.Close()
			got, err := lines(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if len(got)-1 != tt.wantPieces {
				t.Fatalf("%d pieces, want %d", len(got)-1, tt.wantPieces)
			}
			var final api.ChatResponse
			if err := json.Unmarshal([]byte(got[len(got)-1]), &final); err != nil {
				t.Fatal(err)
			}
			if !final.Done || final.DoneReason != tt.wantReason || final.EvalCount != tt.wantEval {
				t.Errorf("final = done %v, reason %q, eval_count %d; want done, %q, %d", final.Done, final.DoneReason, final.EvalCount, tt.wantReason, tt.wantEval)
			}
		})
	}
}

// TestPsListsWhatChatAndEmbedLoaded: as in Ollama, a chat or an embed
// loads its model for the request's keep-alive (five minutes by default),
// /api/ps lists it until then, and a keep-alive of zero unloads it (issue
// 32: the fake's /api/ps stayed empty after a chat).
func TestPsListsWhatChatAndEmbedLoaded(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	pass := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	srv := ollamatest.New(t, ollamatest.WithClock(clock))
	srv.AddModel(ollamatest.DefaultModel())
	srv.AddModel(ollamatest.Model{Name: "nomic-embed-text", Capabilities: []string{"embedding"}})
	ps := func() []string {
		resp, err := http.Get(srv.URL() + "/api/ps")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var got api.ProcessResponse
		if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, m := range got.Models {
			names = append(names, m.Name)
		}
		return names
	}
	do := func(path, body string) {
		resp := post(t, t.Context(), srv, path, body)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if got := ps(); len(got) != 0 {
		t.Fatalf("loaded before any request: %v", got)
	}
	do("/api/chat", `{"model":"qwen3:4b","messages":[{"role":"user","content":"hi"}]}`)
	pass(time.Minute)
	do("/api/embed", `{"model":"nomic-embed-text","input":"a note"}`)
	if got := ps(); !slices.Equal(got, []string{"nomic-embed-text:latest", "qwen3:4b"}) {
		t.Fatalf("after a chat and an embed: %v; want both, the one that expires last first", got)
	}
	pass(4*time.Minute + 30*time.Second)
	if got := ps(); !slices.Equal(got, []string{"nomic-embed-text:latest"}) {
		t.Fatalf("five minutes after the chat: %v; want only the embedder", got)
	}
	do("/api/embed", `{"model":"nomic-embed-text","input":"x","keep_alive":0}`)
	if got := ps(); len(got) != 0 {
		t.Fatalf("after keep_alive 0: %v; want nothing loaded", got)
	}
}

// TestEvalCountOfAToolCall: a call is text the model writes token by
// token before the parser reads it, so a tool-call reply's eval_count is
// the tokens of that text, not one (issue 32).
func TestEvalCountOfAToolCall(t *testing.T) {
	t.Parallel()
	srv := thinker(t)
	call := ollamatest.ToolCall{ID: "c1", Name: "search_notes", Arguments: json.RawMessage(`{"query":"quarterly plan"}`)}
	srv.Script(ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{call}})
	resp := post(t, t.Context(), srv, "/api/chat", `{"model":"qwen3:4b","think":false,"messages":[{"role":"user","content":"hi"}],`+
		`"tools":[{"type":"function","function":{"name":"search_notes","parameters":{"type":"object","properties":{}}}}]}`)
	defer resp.Body.Close()
	got, err := lines(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var final api.ChatResponse
	if err := json.Unmarshal([]byte(got[len(got)-1]), &final); err != nil {
		t.Fatal(err)
	}
	text := "<tool_call>\n{\"name\": \"search_notes\", \"arguments\": {\"query\":\"quarterly plan\"}}\n</tool_call>"
	if want := ollamatest.TextTokens(text) + 1; final.EvalCount != want {
		t.Errorf("eval_count = %d, want %d (the call's %d tokens and the end token)", final.EvalCount, want, want-1)
	}
}
