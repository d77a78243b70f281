package export

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"quire/kernel/event"
	"quire/kernel/protocol"
)

func ev(seq int64, typ event.Type, vis protocol.Visibility, payload any) protocol.Event {
	b, err := json.Marshal(payload)
	if err != nil {
		panic(err)
	}
	return protocol.Event{Session: "s", Seq: seq, Type: string(typ), Time: time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC), Visibility: vis, Payload: b}
}

func TestMarkdownRendersEachKindOfEvent(t *testing.T) {
	hits := protocol.SearchResult{Hits: []protocol.Citation{
		{N: 1, Path: "/notes/a.md", StartLine: 3, EndLine: 9, Headings: []string{"Plan", "Budget"}},
		{N: 2, Path: "/notes/b.txt", StartLine: 4, EndLine: 4},
	}}
	evs := []protocol.Event{
		ev(0, event.SessionCreated, protocol.Public, event.SessionCreatedPayload{Title: "New chat"}),
		ev(1, event.UserMessage, protocol.Public, event.UserMessagePayload{Text: "What is the budget?"}),
		ev(2, event.ContextText, protocol.Internal, event.ContextTextPayload{}),
		ev(3, event.AssistantMessage, protocol.Public, event.AssistantMessagePayload{ToolCalls: []event.ToolCall{
			{ID: "c1", Name: "search_docs", Arguments: `{"query":"budget"}`}, {ID: "c2", Name: "write_note", Arguments: "{\"path\":\"x.md\",\n\"content\":\"`x`\"}"}}}),
		ev(4, event.ToolResult, protocol.Public, event.ToolResultPayload{CallID: "c1", Name: "search_docs", Status: "success", Data: hits}),
		ev(5, event.ToolRefused, protocol.Public, event.ToolRefusedPayload{CallID: "c2", Name: "write_note", Status: "denied", Reason: "the user said no"}),
		ev(6, event.AssistantMessage, protocol.Public, event.AssistantMessagePayload{Content: "It is 40 [1][2], again [1]; [3] is no passage.", Interrupted: true}),
		ev(7, event.RunFinished, protocol.Public, event.RunFinishedPayload{Reason: event.ReasonCancelled}),
		{Session: "s", Seq: 8, Type: string(event.UserMessage), Visibility: protocol.Public, Payload: json.RawMessage(`{"text": 3}`)},
	}
	got := string(Markdown(protocol.Session{ID: "s", Title: "Budget\nplans"}, evs))
	want := "# Budget plans\n\n" +
		"_Quire conversation `s`, started 2026-12-01 09:30 UTC._\n" +
		"\n## You\n\nWhat is the budget?\n" +
		"\n> Tool `search_docs` {\"query\":\"budget\"} — success: 2 passages\n" +
		"\n> Tool `write_note` {\"path\":\"x.md\", \"content\":\"'x'\"} — denied: the user said no\n" +
		"\n## Quire\n\nIt is 40 [^1][^2], again [^1]; [3] is no passage.\n" +
		"\n_(the reply was cut off here)_\n" +
		"\n_(stopped: cancelled)_\n" +
		"\n_(event 8, a user.message, could not be read)_\n" +
		"\n---\n\n" +
		"[^1]: /notes/a.md, lines 3–9 (Plan › Budget)\n" +
		"[^2]: /notes/b.txt, line 4\n"
	if got != want {
		t.Fatalf("Markdown:\n%s\nwant:\n%s", got, want)
	}
}

func TestALaterSearchNumbersTheCitationsAfresh(t *testing.T) {
	search := func(seq int64, path string) protocol.Event {
		return ev(seq, event.ToolResult, protocol.Public, event.ToolResultPayload{Name: "search_docs", Status: "success",
			Data: protocol.SearchResult{Hits: []protocol.Citation{{N: 1, Path: path, StartLine: 1, EndLine: 2}}}})
	}
	evs := []protocol.Event{
		search(1, "/first.md"),
		ev(2, event.AssistantMessage, protocol.Public, event.AssistantMessagePayload{Content: "One [1]."}),
		search(3, "/second.md"),
		ev(4, event.AssistantMessage, protocol.Public, event.AssistantMessagePayload{Content: "Two [1]."}),
	}
	got := string(Markdown(protocol.Session{ID: "s", Title: "t"}, evs))
	for _, w := range []string{"One [^1].", "Two [^2].", "[^1]: /first.md, lines 1–2\n", "[^2]: /second.md, lines 1–2\n"} {
		if !strings.Contains(got, w) {
			t.Errorf("lacks %q:\n%s", w, got)
		}
	}
}

func TestFileNameAndFormats(t *testing.T) {
	for _, c := range []struct{ title, want string }{
		{"Trip / plans", "Trip-plans.md"},
		{"  ", "conversation.md"},
		{"../../etc/passwd", "etc-passwd.md"},
		{"Café crème", "Café-crème.md"},
		{strings.Repeat("a", 90), strings.Repeat("a", 60) + ".md"},
	} {
		if got := FileName(protocol.Session{Title: c.title}, FormatMarkdown); got != c.want {
			t.Errorf("FileName(%q) = %q, want %q", c.title, got, c.want)
		}
	}
	if _, err := As("pdf", protocol.Session{}, nil); !errors.Is(err, ErrFormat) {
		t.Errorf("an unknown format: %v", err)
	}
}
