package httpapi_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"

	"quire/host/httpapi"
	"quire/kernel/protocol"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

// asked records what the search route handed the port.
type asked struct {
	query string
	limit int
}

func (a *asked) Search(_ context.Context, q string, limit int) (protocol.MessageSearch, error) {
	a.query, a.limit = q, limit
	return protocol.MessageSearch{Query: q, Hits: []protocol.MessageHit{}}, nil
}

func TestConversationRoutes(t *testing.T) {
	k := testkit.New(t)
	k.Ollama.Script(ollamatest.Turn{Content: []string{"Pack the tent."}})
	port := &asked{}
	h := httpapi.New(httpapi.Backend{Kernel: k.Runtime, Conversations: port}, fstest.MapFS{}, slog.New(slog.DiscardHandler))
	srv := start(t, h)
	s, err := protocol.Run[protocol.Session](t.Context(), k.Runtime, "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "Trip / plans"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := protocol.Run[protocol.SendResult](t.Context(), k.Runtime, "", protocol.SendMessage, protocol.SendMessagePayload{Session: s.ID, Text: "what to pack"}); err != nil {
		t.Fatal(err)
	}
	k.WaitRuns(t, s.ID, 1)

	weird, _ := json.Marshal(`"tent* -(NEAR`)
	for _, c := range []struct {
		method, path, body string
		code               int
		says               string
		query              string
		limit              int
	}{
		{"POST", httpapi.OpPath + "Conversations.Search", `[` + string(weird) + `,0]`, 200, `"hits":[]`, `"tent* -(NEAR`, 0},
		{"POST", httpapi.OpPath + "Conversations.Search", `["tent",5]`, 200, `"query":"tent"`, "tent", 5},
		{"POST", httpapi.OpPath + "Conversations.Search", `["tent","5"]`, 400, "Conversations.Search argument 2", "", 0},
		{"GET", "/api/sessions/" + s.ID + "/export?format=pdf", "", 400, "md or jsonl", "", 0},
		{"GET", "/api/sessions/nope/export", "", 404, "no such session", "", 0},
	} {
		*port = asked{}
		code, body := srv.do(t, c.method, c.path, c.body)
		if code != c.code || !strings.Contains(body, c.says) || port.query != c.query || port.limit != c.limit {
			t.Errorf("%s %s %s: %d %s, asked %+v; want %d saying %q, asked %q/%d", c.method, c.path, c.body, code, body, *port, c.code, c.says, c.query, c.limit)
		}
	}

	res, err := http.DefaultClient.Do(srv.request(t, "GET", "/api/sessions/"+s.ID+"/export?format=md", ""))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if cd := res.Header.Get("Content-Disposition"); res.StatusCode != 200 || cd != `attachment; filename=Trip-plans.md` ||
		res.Header.Get("X-Quire-Filename") != "Trip-plans.md" || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/markdown") {
		t.Fatalf("export: %d %q %v", res.StatusCode, cd, res.Header)
	}

	bare := start(t, httpapi.New(httpapi.Backend{Kernel: k.Runtime}, fstest.MapFS{}, slog.New(slog.DiscardHandler)))
	if code, body := bare.do(t, "POST", httpapi.OpPath+"Conversations.Search", `["tent",5]`); code != http.StatusServiceUnavailable || !strings.Contains(body, "not available") {
		t.Fatalf("search with no port: %d %s", code, body)
	}
}
