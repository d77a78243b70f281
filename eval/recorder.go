package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"

	"github.com/ollama/ollama/api"

	"quire/test/ollamatest"
)

// recorder stands between Quire and a real Ollama and keeps the body of
// every /api/chat request, so "what the model was sent" can be checked
// against a real model as against the fake server, and how each was
// answered, so a model that never answered is told from one that did.
type recorder struct {
	srv *http.Server
	ln  net.Listener

	mu      sync.Mutex
	bodies  [][]byte
	replies []*reply // one per /api/chat request, in the order of bodies
}

// reply is how Ollama answered one /api/chat request: its HTTP status and,
// for an error, the start of what it said.
type reply struct {
	status int
	said   string
}

// message is what an error reply said: Ollama's {"error": …} text, or the
// body as it came.
func (r reply) message() string {
	var e struct{ Error string }
	if json.Unmarshal([]byte(r.said), &e) == nil && e.Error != "" {
		return e.Error
	}
	return strings.TrimSpace(r.said)
}

// maxErrorText bounds the error text a reply keeps.
const maxErrorText = 300

// replyWriter notes the status and the start of an error body as the
// proxy writes them.
type replyWriter struct {
	http.ResponseWriter
	mu    *sync.Mutex
	reply *reply
}

func (w replyWriter) WriteHeader(status int) {
	w.mu.Lock()
	w.reply.status = status
	w.mu.Unlock()
	w.ResponseWriter.WriteHeader(status)
}

func (w replyWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	if w.reply.status == 0 {
		w.reply.status = http.StatusOK
	}
	if w.reply.status >= http.StatusBadRequest && len(w.reply.said) < maxErrorText {
		w.reply.said += string(b[:min(len(b), maxErrorText-len(w.reply.said))])
	}
	w.mu.Unlock()
	return w.ResponseWriter.Write(b)
}

// Flush passes the proxy's flushes on, so chunks still stream.
func (w replyWriter) Flush() { http.NewResponseController(w.ResponseWriter).Flush() }

func (w replyWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func newRecorder(host string) (*recorder, error) {
	if !strings.Contains(host, "://") {
		host = "http://" + host
	}
	target, err := url.Parse(host)
	if err != nil {
		return nil, fmt.Errorf("ollama host %q: %w", host, err)
	}
	if target.Port() == "" {
		target.Host = net.JoinHostPort(target.Hostname(), "11434") // as Quire's ParseHost does
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &recorder{ln: ln}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1 // stream each chunk as it comes
	r.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/api/chat" {
			body, err := io.ReadAll(req.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			rep := &reply{}
			r.mu.Lock()
			r.bodies = append(r.bodies, body)
			r.replies = append(r.replies, rep)
			r.mu.Unlock()
			req.Body = io.NopCloser(bytes.NewReader(body))
			w = replyWriter{ResponseWriter: w, mu: &r.mu, reply: rep}
		}
		proxy.ServeHTTP(w, req)
	})}
	go r.srv.Serve(ln)
	return r, nil
}

func (r *recorder) URL() string { return "http://" + r.ln.Addr().String() }
func (r *recorder) Close()      { r.srv.Close() }

// Requests are the recorded requests' texts.
func (r *recorder) Requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	reqs := make([]ollamatest.Request, len(r.bodies))
	for i, b := range r.bodies {
		json.Unmarshal(b, &reqs[i].Chat) // an undecodable body keeps no text, as the model read none
	}
	return requestTexts(reqs)
}

// Replies are how the recorded requests were answered so far.
func (r *recorder) Replies() []reply {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]reply, len(r.replies))
	for i, rep := range r.replies {
		out[i] = *rep
	}
	return out
}

// requestTexts flattens each request's messages (content, thinking, tool
// calls) into one text to search.
func requestTexts(reqs []ollamatest.Request) []string {
	out := make([]string, len(reqs))
	for i, r := range reqs {
		out[i] = messagesText(r.Chat.Messages)
	}
	return out
}

func messagesText(msgs []api.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "[%s] %s\n", m.Role, m.Content)
		if m.Thinking != "" {
			fmt.Fprintf(&b, "(thinking) %s\n", m.Thinking)
		}
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, "(call %s) %s\n", c.Function.Name, c.Function.Arguments.String())
		}
	}
	return b.String()
}
