package ollamatest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"quire/test/ollamatest"
)

func postJSON(t *testing.T, url, body string) (int, []byte) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// TestOpenAIChatNotStreamed: a /v1 request without stream gets one
// chat.completion with the scripted text, its calls with arguments as
// JSON text, finish_reason tool_calls and the usage.
func TestOpenAIChatNotStreamed(t *testing.T) {
	srv := ollamatest.New(t)
	srv.AddModel(ollamatest.DefaultModel())
	srv.Script(ollamatest.Turn{Content: []string{"Filing it."}, PromptEvalCount: 12, EvalCount: 3,
		ToolCalls: []ollamatest.ToolCall{{ID: "call_1", Name: "create_note", Arguments: json.RawMessage(`{"path":"a.md"}`)}}})
	status, body := postJSON(t, srv.URL()+"/v1/chat/completions", `{"model":"qwen3:4b","messages":[{"role":"user","content":[{"type":"text","text":"file it"}]}],
		"tools":[{"type":"function","function":{"name":"create_note","parameters":{"type":"object","properties":{}}}}]}`)
	var got struct {
		Object  string
		Choices []struct {
			Message struct {
				Content   string
				ToolCalls []struct {
					ID       string
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			}
			FinishReason string `json:"finish_reason"`
		}
		Usage struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		}
	}
	if err := json.Unmarshal(body, &got); err != nil || status != http.StatusOK {
		t.Fatalf("%d %s: %v", status, body, err)
	}
	c := got.Choices[0]
	if got.Object != "chat.completion" || c.Message.Content != "Filing it." || c.FinishReason != "tool_calls" ||
		len(c.Message.ToolCalls) != 1 || c.Message.ToolCalls[0].Function.Arguments != `{"path":"a.md"}` ||
		got.Usage.PromptTokens != 12 || got.Usage.CompletionTokens != 3 {
		t.Fatalf("reply %s", body)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || !reqs[0].OpenAI || reqs[0].Chat.Messages[0].Content != "file it" {
		t.Fatalf("recorded %+v", reqs)
	}
}

// TestOpenAIErrorsModelsAndEmbeddings: the API's error object for a
// missing model, the models list with llama.cpp's meta, and embeddings in
// input order.
func TestOpenAIErrorsModelsAndEmbeddings(t *testing.T) {
	srv := ollamatest.New(t)
	srv.AddModel(ollamatest.DefaultModel())
	srv.AddModel(ollamatest.Model{Name: "nomic-embed-text", Capabilities: []string{"embedding"}, EmbeddingLength: 8})
	status, body := postJSON(t, srv.URL()+"/v1/chat/completions", `{"model":"absent:1b","messages":[{"role":"user","content":"hi"}]}`)
	var e struct {
		Error struct{ Message, Type string }
	}
	if json.Unmarshal(body, &e); status != http.StatusNotFound || e.Error.Type != "not_found_error" || !strings.Contains(e.Error.Message, "absent:1b") {
		t.Fatalf("missing model: %d %s", status, body)
	}
	resp, err := http.Get(srv.URL() + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(b, []byte(`"id":"qwen3:4b"`)) || !bytes.Contains(b, []byte(`"n_ctx_train":40960`)) {
		t.Fatalf("models %s", b)
	}
	status, body = postJSON(t, srv.URL()+"/v1/embeddings", `{"model":"nomic-embed-text","input":["a lamp","a desk"]}`)
	var emb struct {
		Data []struct {
			Index     int
			Embedding []float32
		}
	}
	if err := json.Unmarshal(body, &emb); err != nil || status != http.StatusOK || len(emb.Data) != 2 || emb.Data[1].Index != 1 ||
		len(emb.Data[1].Embedding) != 8 || emb.Data[1].Embedding[0] != ollamatest.Embedding("a desk", 8)[0] {
		t.Fatalf("embeddings %d %s", status, body)
	}
}
