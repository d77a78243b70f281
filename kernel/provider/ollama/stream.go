package ollama

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/version"
)

// maxLine bounds one line of Ollama's NDJSON stream: the limit of Ollama's
// own client (api.maxBufferSize), so a reply Ollama's client reads, this
// reads too.
const maxLine = 8 * 1000 * 1000

// firstBuffer is where a stream's line buffer starts; it doubles up to
// maxLine only for a line that needs it (a chunk is a few hundred bytes).
const firstBuffer = 16 << 10

// chatStream posts chat to /api/chat and calls fn with each line of the
// reply, as api.Client.Chat does, byte for byte on the wire and error for
// error (api.StatusError, api.AuthorizationError, an {"error"} line as a
// plain error; a broken stream returns nil, as Ollama's client does, and
// `ended` tells it from a finished one).
//
// Why not api.Client.Chat: it gives every call a line buffer of maxLine
// (make([]byte, 0, 8 MB)), and the Go runtime clears a reused span before
// handing it out, so each model call made 8 MB of the heap resident — the
// window's process grew by tens of MB over a long conversation, most of it
// that buffer (docs/BENCHMARKS-NOTEBOOK.md, "PSS over 200 turns"). This one starts at
// firstBuffer and grows to the same bound only when a line needs it.
func (p *Provider) chatStream(ctx context.Context, chat *api.ChatRequest, fn func(api.ChatResponse) error) error {
	body, err := json.Marshal(chat)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.base.JoinPath("/api/chat").String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/x-ndjson")
	req.Header.Set("User-Agent", fmt.Sprintf("ollama/%s (%s %s) Go/%s", version.Version, runtime.GOARCH, runtime.GOOS, runtime.Version()))
	resp, err := p.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()

	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, firstBuffer), maxLine)
	for sc.Scan() {
		line := sc.Bytes()
		var e struct {
			Error     string `json:"error,omitempty"`
			SigninURL string `json:"signin_url,omitempty"`
		}
		if err := json.Unmarshal(line, &e); err != nil {
			if resp.StatusCode >= http.StatusBadRequest {
				return api.StatusError{StatusCode: resp.StatusCode, Status: resp.Status, ErrorMessage: string(line)}
			}
			return errors.New(string(line))
		}
		switch {
		case resp.StatusCode == http.StatusUnauthorized:
			return api.AuthorizationError{StatusCode: resp.StatusCode, Status: resp.Status, SigninURL: e.SigninURL}
		case resp.StatusCode >= http.StatusBadRequest:
			return api.StatusError{StatusCode: resp.StatusCode, Status: resp.Status, ErrorMessage: e.Error}
		case e.Error != "":
			return errors.New(e.Error)
		}
		var chunk api.ChatResponse
		if err := json.Unmarshal(line, &chunk); err != nil {
			return err
		}
		if err := fn(chunk); err != nil {
			return err
		}
	}
	return nil
}
