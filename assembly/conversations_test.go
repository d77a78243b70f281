package assembly

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"quire/export"
	"quire/kernel/protocol"
	"quire/kernel/store"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

// A conversation that searched the documents exports as Markdown with the
// reply's "[1]" a footnote naming the file and lines search_docs cited,
// and as the public events in JSON lines; and the search over what was
// said finds its reply, in a Reader too.
func TestExportAndSearchARealConversation(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.Script(
		ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "c1", Name: "search_docs", Arguments: []byte(`{"query":"basil"}`)}}},
		ollamatest.Turn{Content: []string{"Water the basil every morning [1]. See also [9]."}},
	)
	dir := t.TempDir()
	p := openOwner(t, dir, fake.URL())
	indexGarden(t, p)
	sess, err := protocol.Run[protocol.Session](t.Context(), p.Kernel(), "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "Garden"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := protocol.Run[protocol.SendResult](t.Context(), p.Kernel(), "", protocol.SendMessage,
		protocol.SendMessagePayload{Session: sess.ID, Text: "How often should I water the basil?"}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitRuns(t, p.Kernel(), sess.ID, 1)
	evs, err := p.Kernel().Events(t.Context(), sess.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The passage search_docs really cited, from the log.
	var cited protocol.Citation
	for _, e := range evs {
		if e.Type != "tool.result" {
			continue
		}
		var r struct{ Data protocol.SearchResult }
		if err := json.Unmarshal(e.Payload, &r); err != nil || len(r.Data.Hits) == 0 {
			t.Fatalf("search_docs result %s: %v", e.Payload, err)
		}
		cited = r.Data.Hits[0]
	}
	if filepath.Base(cited.Path) != "garden.md" || cited.StartLine < 1 || cited.EndLine < cited.StartLine {
		t.Fatalf("search_docs cited %+v", cited)
	}

	md, err := export.As(export.FormatMarkdown, sess, evs)
	if err != nil {
		t.Fatal(err)
	}
	text := string(md.Body)
	lines := "lines " + itoa(cited.StartLine) + "–" + itoa(cited.EndLine)
	if cited.StartLine == cited.EndLine {
		lines = "line " + itoa(cited.StartLine)
	}
	for _, want := range []string{
		"# Garden\n",
		"## You\n\nHow often should I water the basil?\n",
		"> Tool `search_docs` {\"query\":\"basil\"} — success: 1 passage\n",
		"## Quire\n\nWater the basil every morning [^1]. See also [9].\n",
		"[^1]: " + cited.Path + ", " + lines + " (Garden)\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, text)
		}
	}
	if md.Name != "Garden.md" {
		t.Errorf("file name %q", md.Name)
	}

	jl, err := export.As(export.FormatJSONL, sess, evs)
	if err != nil {
		t.Fatal(err)
	}
	var back []protocol.Event
	for _, line := range bytes.Split(bytes.TrimSpace(jl.Body), []byte("\n")) {
		var e protocol.Event
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if e.Visibility != protocol.Public {
			t.Errorf("event %d (%s) is %s, not public", e.Seq, e.Type, e.Visibility)
		}
		back = append(back, e)
	}
	if want := protocol.Filter(evs, protocol.Audience{}); len(back) != len(want) || len(want) == len(evs) {
		t.Fatalf("%d lines for %d public of %d events", len(back), len(want), len(evs))
	}

	found, err := p.Conversations().Search(t.Context(), "water BASIL", 0)
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, h := range found.Hits {
		roles = append(roles, h.Role)
		if h.Session != sess.ID || h.Title != "Garden" {
			t.Errorf("hit %+v", h)
		}
	}
	slices.Sort(roles)
	if !slices.Equal(roles, []string{"assistant", "user"}) {
		t.Fatalf("search found %+v", found.Hits)
	}
	p.Close()

	// A Reader (another process owns the folder, or none does) searches too.
	r, err := Open(t.Context(), p.settings, p.log, Reader)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	again, err := r.Conversations().Search(t.Context(), "basil", 0)
	if err != nil || len(again.Hits) != 2 {
		t.Fatalf("a Reader found %d hits, %v", len(again.Hits), err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// A search answers with the query as it was read: at most
// store.SearchMaxQuery characters, whatever was sent.
func TestSearchEchoesOnlyWhatItRead(t *testing.T) {
	p := openOwner(t, t.TempDir(), ollamatest.New(t).URL())
	long := strings.Repeat("é", store.SearchMaxQuery) + strings.Repeat("x", 100_000)
	got, err := p.Conversations().Search(t.Context(), long, 5)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Repeat("é", store.SearchMaxQuery); got.Query != want {
		t.Fatalf("echoed %d bytes, want the %d characters read", len(got.Query), store.SearchMaxQuery)
	}
}

func TestSnippetParts(t *testing.T) {
	o, c := store.MarkOpen, store.MarkClose
	cases := []struct {
		in   string
		want []protocol.SnippetPart
	}{
		{"", nil},
		{"plain", []protocol.SnippetPart{{Text: "plain"}}},
		{"a " + o + "b" + c + " c", []protocol.SnippetPart{{Text: "a "}, {Text: "b", Match: true}, {Text: " c"}}},
		{o + "b" + c + o + "c" + c, []protocol.SnippetPart{{Text: "b", Match: true}, {Text: "c", Match: true}}},
		{"…x " + o + "<b>" + c, []protocol.SnippetPart{{Text: "…x "}, {Text: "<b>", Match: true}}},
		{"cut " + o + "open", []protocol.SnippetPart{{Text: "cut "}, {Text: "open", Match: true}}},
	}
	for _, tc := range cases {
		if got := snippetParts(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("snippetParts(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
	if store.SearchMaxHits != protocol.FindMaxHits || store.SearchMaxQuery != protocol.FindMaxQuery {
		t.Errorf("the store's bounds (%d hits, %d chars) are not the protocol's (%d, %d)",
			store.SearchMaxHits, store.SearchMaxQuery, protocol.FindMaxHits, protocol.FindMaxQuery)
	}
}
