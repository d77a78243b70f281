package ollamatest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// handleChat answers POST /api/chat. Its checks come in the order of
// Ollama's ChatHandler, so that a request that is wrong in two ways gets the
// same error from the fake as from the real server.
func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	var req api.ChatRequest
	bad := parseBody(body, &req)
	rec := Request{Body: body}
	if bad == "" {
		rec.Chat = req
	}
	// Record before answering, so a test that has its answer sees the request.
	s.record(rec)
	out := newNDJSON(w)
	if bad != "" {
		out.reject(http.StatusBadRequest, bad)
		return
	}
	s.answer(r, &req, out, start)
}

// answer runs a decoded chat request, from either API, through the checks
// and the script, writing the reply in out's wire format.
func (s *Server) answer(r *http.Request, req *api.ChatRequest, out wire, start time.Time) {
	if req.TopLogprobs < 0 || req.TopLogprobs > 20 {
		out.reject(http.StatusBadRequest, "top_logprobs must be between 0 and 20")
		return
	}
	if !model.ParseName(req.Model).IsValid() {
		out.reject(http.StatusBadRequest, "model is required")
		return
	}
	m, ok := s.find(req.Model)
	if !ok {
		out.reject(http.StatusNotFound, fmt.Sprintf("model '%s' not found", req.Model))
		return
	}
	if len(req.Messages) == 0 && req.KeepAlive != nil && req.KeepAlive.Duration == 0 {
		s.loadFor(m, req.KeepAlive) // a keep-alive of zero unloads it
		out.whole(doneOnly(req.Model, "unload"))
		return
	}

	if m.has("thinking") {
		// Ollama turns thinking on for thinking models unless told not to.
		if req.Think == nil {
			req.Think = &api.ThinkValue{Value: true}
		}
	} else if req.Think.Bool() {
		out.reject(http.StatusBadRequest, fmt.Sprintf("%q does not support thinking", req.Model))
		return
	}
	if !m.has("completion") {
		out.reject(http.StatusBadRequest, fmt.Sprintf("%q does not support chat", req.Model))
		return
	}
	if len(req.Tools) > 0 && !m.has("tools") {
		out.reject(http.StatusBadRequest, m.name.String()+" does not support tools")
		return
	}
	numCtx, err := contextSize(req.Options, m)
	if err != nil {
		out.reject(http.StatusInternalServerError, err.Error())
		return
	}
	// Past its checks the request reaches the scheduler, which loads the
	// model and keeps it for the request's keep-alive (/api/ps lists it).
	s.loadFor(m, req.KeepAlive)
	if len(req.Messages) == 0 {
		out.whole(doneOnly(req.Model, "load"))
		return
	}
	// Without truncate:false Ollama silently drops the oldest messages to
	// fit; with it, the runner refuses the prompt.
	if req.Truncate != nil && !*req.Truncate && EstimateTokens(req) > numCtx {
		out.reject(http.StatusBadRequest, "the input length exceeds the context length")
		return
	}

	var turn Turn
	var scripted bool
	if s.aside != nil {
		turn, scripted = s.aside(*req)
	}
	if !scripted {
		turn, scripted = s.nextTurn()
	}
	if !scripted && s.respond != nil {
		turn, scripted = s.respond(*req)
	}
	if !scripted && s.reply != nil {
		turn, scripted = s.reply(lastUser(req))
	}
	if !scripted {
		turn = echo(req)
	}
	if turn.Fail.Kind == FailStatus {
		out.reject(turn.Fail.status(), turn.Fail.message())
		return
	}
	parts, produced, err := s.messages(turn, req.Think.Bool(), m.Parser != "", req.Tools)
	if err != nil {
		out.reject(http.StatusInternalServerError, err.Error())
		return
	}
	if turn.Endless && len(parts) == 0 {
		out.reject(http.StatusInternalServerError, "fake ollama: an endless turn needs content or thinking to repeat")
		return
	}
	limit, err := numPredict(req.Options)
	if err != nil {
		out.reject(http.StatusInternalServerError, err.Error())
		return
	}
	s.play(out, r, req, turn, parts, produced, limit, start)
}

// EndlessCap is how many pieces the fake streams of an Endless turn when
// the request sets no num_predict.
const EndlessCap = 20_000

// numPredict is the request's num_predict: the most tokens the runner
// generates (each piece the fake streams is a token) before it ends the
// reply with done_reason "length"; 0 or below means no limit, as in
// Ollama (-1 is its default, "infinite").
func numPredict(opts map[string]any) (int, error) {
	v, ok := opts["num_predict"]
	if !ok || v == nil {
		return 0, nil
	}
	f, ok := v.(float64)
	if !ok {
		return 0, fmt.Errorf("option %q must be of type integer", "num_predict")
	}
	return max(int(f), 0), nil
}

// play sends the turn's messages, streamed or as one reply, and then the
// final chunk, unless the turn fails first.
func (s *Server) play(out wire, r *http.Request, req *api.ChatRequest, turn Turn, parts []api.Message, produced, limit int, start time.Time) {
	stream := req.Stream == nil || *req.Stream
	delay := cmp.Or(turn.Delay, s.delay)
	n := len(parts) // pieces the model generates before its end token
	if turn.Endless {
		n = EndlessCap
		if limit > 0 {
			n = limit
		}
	}
	reason := cmp.Or(turn.DoneReason, "stop")
	// A token per chunk generated, and the end-of-sequence token, which
	// Ollama's runner counts too (numPredicted grows before the EOS check).
	evalTokens := cmp.Or(turn.EvalCount, produced+1)
	if turn.Endless {
		reason, evalTokens = "length", n
	}
	if limit > 0 && n >= limit {
		// The runner ends the sequence once numPredicted reaches
		// num_predict, before it could sample an end token: the limit is
		// the count (runner/ollamarunner/runner.go, DoneReasonLength).
		n, reason, evalTokens = limit, "length", limit
	}
	failAt := -1 // the chunk index at which the reply fails; -1 for never
	if turn.Fail.Kind != "" && turn.Fail.Kind != FailStatus {
		failAt = min(turn.Fail.After, n)
	}
	evalStart := time.Now()
	whole := api.Message{Role: "assistant"}

	for i := 0; ; i++ {
		if i == failAt {
			s.failReply(r, out, turn.Fail, stream)
			return
		}
		if !s.wait(r, delay) {
			s.abandon(out)
			return
		}
		if i == n {
			break
		}
		part := parts[i%len(parts)]
		if !stream {
			whole.Content += part.Content
			whole.Thinking += part.Thinking
			whole.ToolCalls = append(whole.ToolCalls, part.ToolCalls...)
			continue
		}
		if out.piece(api.ChatResponse{Model: req.Model, CreatedAt: time.Now().UTC(), Message: part}) != nil {
			return
		}
	}

	final := doneOnly(req.Model, reason)
	promptTokens := cmp.Or(turn.PromptEvalCount, EstimateTokens(req))
	final.Metrics = api.Metrics{
		LoadDuration:       time.Millisecond,
		PromptEvalCount:    promptTokens,
		PromptEvalDuration: time.Duration(promptTokens) * 50 * time.Microsecond,
		EvalCount:          evalTokens,
		EvalDuration:       max(time.Since(evalStart), time.Microsecond),
	}
	final.TotalDuration = max(time.Since(start), final.LoadDuration+final.PromptEvalDuration+final.EvalDuration)
	if !stream {
		final.Message = whole
		out.whole(final)
		return
	}
	out.end(final)
}

func (s *Server) failReply(r *http.Request, out wire, f Failure, stream bool) {
	switch f.Kind {
	case FailErrorLine:
		if stream {
			out.fail(http.StatusInternalServerError, f.message())
		} else {
			// Ollama gathers a non-streamed reply first, so a runner error
			// becomes the whole answer.
			out.reject(http.StatusInternalServerError, f.message())
		}
	case FailDrop:
		out.drop()
	case FailHang:
		s.hang(r, out)
	}
}

// doneOnly is a final chunk with an empty assistant message.
func doneOnly(modelName, reason string) api.ChatResponse {
	return api.ChatResponse{
		Model:      modelName,
		CreatedAt:  time.Now().UTC(),
		Message:    api.Message{Role: "assistant"},
		Done:       true,
		DoneReason: reason,
	}
}

// messages turns a Turn into the message of each non-final chunk, as
// Ollama's template tool parser (tools.Parser, for models without a
// built-in parser, such as the qwen3 library models) hands them on: a call
// to a tool the request declares arrives as a tool call with a fresh id; a
// call to a tool it does not declare is swallowed (the parser waits for a
// known name that never comes, and at the end its buffer is dropped, so the
// reply has empty content); and with no tools declared there is no parser
// at all, so the model's <tool_call> text streams as content. A model with
// a built-in parser (builtin) hands every call on. produced is how many
// tokens the model generated, dropped calls included, for eval_count: a
// content or thinking chunk is one, a call the tokens of its text.
func (s *Server) messages(t Turn, thinking, builtin bool, declared []api.Tool) (out []api.Message, produced int, err error) {
	if thinking {
		for _, p := range t.Thinking {
			out = append(out, api.Message{Role: "assistant", Thinking: p})
		}
	}
	for _, p := range t.Content {
		out = append(out, api.Message{Role: "assistant", Content: p})
	}
	produced = len(out)
	index := 0 // the parser numbers the calls it hands on
	for _, tc := range t.ToolCalls {
		// The model writes the call as text its parser then reads: every
		// token of it counts in eval_count, as Ollama's runner counts
		// each token it samples.
		produced += TextTokens(rawToolCall(tc))
		args := api.NewToolCallFunctionArguments()
		if len(tc.Arguments) > 0 {
			if err := json.Unmarshal(tc.Arguments, &args); err != nil {
				return nil, 0, fmt.Errorf("fake ollama: scripted tool call %q: arguments are not a JSON object: %v", tc.Name, err)
			}
		}
		switch {
		case builtin:
		case len(declared) == 0:
			out = append(out, api.Message{Role: "assistant", Content: rawToolCall(tc)})
			continue
		case !slices.ContainsFunc(declared, func(d api.Tool) bool { return d.Function.Name == tc.Name }):
			continue
		}
		id := tc.ID
		if id == "" {
			id = s.callID()
		}
		out = append(out, api.Message{Role: "assistant", ToolCalls: []api.ToolCall{{
			ID:       id,
			Function: api.ToolCallFunction{Index: index, Name: tc.Name, Arguments: args},
		}}})
		index++
	}
	return out, produced, nil
}

// rawToolCall is a call as a Qwen-style model writes it, in the form its
// template asks for: <tool_call>\n{"name": …, "arguments": …}\n</tool_call>.
func rawToolCall(tc ToolCall) string {
	name, _ := json.Marshal(tc.Name)
	args := "{}"
	if len(tc.Arguments) > 0 {
		args = string(tc.Arguments)
	}
	return "<tool_call>\n{\"name\": " + string(name) + ", \"arguments\": " + args + "}\n</tool_call>"
}

// callID is a fresh tool-call id in Ollama's form (server/routes.go
// toolCallId): "call_" and 8 characters drawn from a-z0-9. Random, as the
// real server's are, unless WithCallIDSeed made the sequence repeatable.
func (s *Server) callID() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	s.mu.Lock()
	defer s.mu.Unlock()
	b := make([]byte, 8)
	for i := range b {
		b[i] = alphabet[s.ids.IntN(len(alphabet))]
	}
	return "call_" + string(b)
}

// echo is the reply when no turn is scripted: "You said: <last user
// message>", a word per chunk.
func echo(req *api.ChatRequest) Turn {
	return Turn{Content: splitWords("You said: " + lastUser(req))}
}

func lastUser(req *api.ChatRequest) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			return req.Messages[i].Content
		}
	}
	return ""
}

// EstimateTokens is the fake's stand-in for a tokenizer and chat template:
// TextTokens of every message's content, thinking and tool-call
// arguments, plus TemplateTokens per message for the role markers a
// template wraps each message in, plus ToolTokens for the tool
// declarations. The fake compares it with num_ctx, and reports it as
// prompt_eval_count unless the turn says otherwise, so the count grows with
// the request as a real one does.
func EstimateTokens(req *api.ChatRequest) int {
	var ascii, other int
	for _, m := range req.Messages {
		a, o := textCounts(m.Content)
		ascii, other = ascii+a, other+o
		a, o = textCounts(m.Thinking)
		ascii, other = ascii+a, other+o
		for _, tc := range m.ToolCalls {
			a, o = textCounts(tc.Function.Name + tc.Function.Arguments.String())
			ascii, other = ascii+a, other+o
		}
	}
	return (ascii+3)/4 + other + TemplateTokens*len(req.Messages) + ToolTokens(req.Tools)
}

// TextTokens is how the fake's tokenizer counts text, as a byte-level
// byte-pair tokenizer (Qwen's, Llama 3's) does to within a little: ASCII
// prose at about four characters a token, and every character outside
// ASCII a token of its own (a Chinese character, an accented letter; their
// UTF-8 bytes rarely merge with a neighbour's). Real counts of Chinese run
// from about 0.7 to 1.5 tokens a character; one is the middle.
func TextTokens(text string) int {
	ascii, other := textCounts(text)
	return (ascii+3)/4 + other
}

func textCounts(text string) (ascii, other int) {
	for _, r := range text {
		if r < utf8.RuneSelf {
			ascii++
		} else {
			other++
		}
	}
	return ascii, other
}

// TemplateTokens is what the fake's template adds per message
// ("<|im_start|>role\n" ... "<|im_end|>\n" in Qwen's).
const TemplateTokens = 5

// ToolsPreambleTokens is the fixed text Qwen3's template puts around the
// declarations ("# Tools … <tools>" before, "</tools> … </tool_call>"
// after; Ollama's model/renderers/qwen3vl.go writes the same text as the
// qwen3 library template): 401 bytes that Qwen2's pre-tokenizer splits
// into 93 pieces, rounded up for the special tokens.
const ToolsPreambleTokens = 100

// ToolTokens is what declaring tools adds to a prompt: ToolsPreambleTokens,
// then each tool as the template renders it — a new line and the tool's
// JSON with a space after every ':' and ',' (marshalWithSpaces) — at 2.5
// bytes a token, rounded up.
//
// The ratio is calibrated on the one measurement against a real Ollama
// 0.17.4 (issue 16): Quire's 16 tools, 10.5 KB of JSON (10,484 bytes as
// rendered), made a model with a 4,096-token context refuse the first
// message, a 242-byte system prompt and a one-line question. That needs at
// most 2.65 bytes a token for the declarations; 2.5 leaves a margin and is
// what punctuation-dense JSON gets from byte-pair tokenizers. (Prose, at
// 4 characters a token, is the messages' ratio above.)
func ToolTokens(tools []api.Tool) int {
	if len(tools) == 0 {
		return 0
	}
	n := 0
	for _, t := range tools {
		b, err := json.Marshal(t)
		if err != nil {
			continue
		}
		n += 1 + spacedLen(b)
	}
	return ToolsPreambleTokens + (2*n+4)/5
}

// spacedLen is the length of compact JSON b once a space follows every ':'
// and ',' outside strings, as Ollama's marshalWithSpaces writes it.
func spacedLen(b []byte) int {
	n := len(b)
	inString, escaped := false, false
	for _, c := range b {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ':' || c == ','):
			n++
		}
	}
	return n
}

// contextSize is the num_ctx the request runs with: the requested one, or
// Ollama's default of 4096 for small machines, capped at what the model was
// trained for as Ollama caps it.
func contextSize(opts map[string]any, m installed) (int, error) {
	n := defaultNumCtx
	if v, ok := opts["num_ctx"]; ok && v != nil {
		f, ok := v.(float64)
		if !ok {
			return 0, fmt.Errorf("option %q must be of type integer", "num_ctx")
		}
		n = int(f)
	}
	return max(min(n, m.ContextLength), 4), nil
}
