package store

import (
	"database/sql"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"quire/kernel/event"
)

func reply(text string) event.Draft {
	return event.Draft{Type: event.AssistantMessage, Time: t0, Payload: event.AssistantMessagePayload{Content: text, DoneReason: "stop"}}
}

func toolResult(text string) event.Draft {
	return event.Draft{Type: event.ToolResult, Time: t0, Payload: event.ToolResultPayload{Name: "read_note", Content: text}}
}

// hitKeys is "session/seq" of each hit, in order.
func hitKeys(hits []SaidHit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Session + "/" + strconv.FormatInt(h.Seq, 10)
	}
	return out
}

func TestSearchSaidFindsWhatWasSaid(t *testing.T) {
	s := open(t)
	ctx := t.Context()
	for _, id := range []string{"a", "b"} {
		if _, _, err := s.CreateSession(ctx, id, "Chat "+id, t0, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	// a: 1 user, 2 reply, 3 tool result; b: 1 user, 2 reply.
	if _, err := s.Append(ctx, "a", user("Where is the zeppelin budget?"), reply("The budget for the zeppelin is in plan.md."),
		toolResult("zeppelin zeppelin zeppelin in a note")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, "b", user("Café opening hours"), reply("Opening hours are \x01nine\x02 to five; naïve guess.")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, query string
		want        []string
		role        string
	}{
		{"a word in two messages, tool results left out", "zeppelin", []string{"a/1", "a/2"}, ""},
		{"every word must be there", "zeppelin plan", []string{"a/2"}, "assistant"},
		{"the last word is a prefix", "budg", []string{"a/1", "a/2"}, ""},
		{"case and accents do not matter", "CAFE", []string{"b/1"}, "user"},
		{"a word only a tool result holds", "note", nil, ""},
		{"quotes are words, never syntax", `"zeppelin`, []string{"a/1", "a/2"}, ""},
		{"star, minus and parentheses", `*plan* -(zeppelin`, []string{"a/2"}, ""},
		{"FTS5 operators are plain words", "zeppelin NOT budget", nil, ""},
		{"a column filter is a word", "text:zeppelin", nil, ""},
		{"nothing but punctuation", `"*-^:()`, nil, ""},
		{"empty", "", nil, ""},
		{"a marker typed by the user is no word", "\x01nine\x02", []string{"b/2"}, "assistant"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hits, err := s.SearchSaid(ctx, c.query, 0)
			if err != nil {
				t.Fatalf("%q: %v", c.query, err)
			}
			got := hitKeys(hits)
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Fatalf("%q found %v, want %v", c.query, got, c.want)
			}
			for _, h := range hits {
				if c.role != "" && h.Role != c.role {
					t.Errorf("hit %s/%d has role %q, want %q", h.Session, h.Seq, h.Role, c.role)
				}
				if h.Title != "Chat "+h.Session {
					t.Errorf("hit title %q", h.Title)
				}
				if !strings.Contains(h.Snippet, MarkOpen) || !strings.Contains(h.Snippet, MarkClose) {
					t.Errorf("snippet %q has no marked match", h.Snippet)
				}
			}
		})
	}
}

func TestSearchSaidMarksTheMatchAndRanks(t *testing.T) {
	s := open(t)
	ctx := t.Context()
	if _, _, err := s.CreateSession(ctx, "a", "A", t0, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, "a", user("one mention of kites among many other words here and there"), reply("kites kites kites")); err != nil {
		t.Fatal(err)
	}
	hits, err := s.SearchSaid(ctx, "kites", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := hitKeys(hits); !slices.Equal(got, []string{"a/2", "a/1"}) {
		t.Fatalf("order %v, want the denser reply first (bm25)", got)
	}
	if want := MarkOpen + "kites" + MarkClose + " " + MarkOpen + "kites" + MarkClose + " " + MarkOpen + "kites" + MarkClose; hits[0].Snippet != want {
		t.Fatalf("snippet %q, want %q", hits[0].Snippet, want)
	}
	if one, err := s.SearchSaid(ctx, "kites", 1); err != nil || len(one) != 1 {
		t.Fatalf("limit 1 gave %d hits, %v", len(one), err)
	}
}

func TestSearchSaidForgetsADeletedSession(t *testing.T) {
	s := open(t)
	ctx := t.Context()
	for _, id := range []string{"gone", "kept"} {
		if _, _, err := s.CreateSession(ctx, id, id, t0, nil, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Append(ctx, id, user("marmalade recipe")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.DeleteSession(ctx, "gone", nil); err != nil {
		t.Fatal(err)
	}
	hits, err := s.SearchSaid(ctx, "marmalade", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := hitKeys(hits); !slices.Equal(got, []string{"kept/1"}) {
		t.Fatalf("after the delete the search finds %v", got)
	}
	var rows int
	if err := s.DB().QueryRow("SELECT count(*) FROM said WHERE session = 'gone'").Scan(&rows); err != nil || rows != 0 {
		t.Fatalf("%d rows of the deleted session left (%v)", rows, err)
	}
	// The FTS index agrees with its table (FTS5's own check).
	if _, err := s.DB().Exec("INSERT INTO said_fts(said_fts, rank) VALUES ('integrity-check', 1)"); err != nil {
		t.Fatalf("index out of step: %v", err)
	}
}

func TestSearchSaidIsBounded(t *testing.T) {
	s := open(t)
	ctx := t.Context()
	if _, _, err := s.CreateSession(ctx, "a", "A", t0, nil, nil); err != nil {
		t.Fatal(err)
	}
	var drafts []event.Draft
	for range SearchMaxHits + 5 {
		drafts = append(drafts, user("walrus"))
	}
	long := strings.Repeat("x ", SaidMaxChars) + "needle"
	drafts = append(drafts, user(long))
	if _, err := s.Append(ctx, "a", drafts...); err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int{-1, 0, SearchMaxHits + 1, 1000} {
		hits, err := s.SearchSaid(ctx, "walrus", limit)
		if err != nil || len(hits) != SearchMaxHits {
			t.Fatalf("limit %d: %d hits, %v; want %d", limit, len(hits), err, SearchMaxHits)
		}
	}
	if hits, _ := s.SearchSaid(ctx, "needle", 0); len(hits) != 0 {
		t.Fatalf("a word past the indexed length was found: %v", hitKeys(hits))
	}
	words := strings.Repeat("w ", SearchMaxWords+10)
	if q := MatchQuery(words); strings.Count(q, `"w"`) != SearchMaxWords {
		t.Fatalf("query %q keeps more than %d words", q, SearchMaxWords)
	}
	if q := MatchQuery(strings.Repeat("a", SearchMaxQuery+50)); q != `"`+strings.Repeat("a", SearchMaxQuery)+`"*` {
		t.Fatalf("long query not cut: %d chars", len(q))
	}
}

// A database written before the search existed gets it from its log.
func TestMigrationBackfillsTheSearchAndTitles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v1.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(migrations[0] + "; PRAGMA user_version = 1"); err != nil {
		t.Fatal(err)
	}
	ns := t0.UnixNano()
	insert := func(session string, seq int64, typ, payload string) {
		t.Helper()
		if _, err := db.Exec(`INSERT INTO events (session, seq, type, time_ns, ignorable, visibility, payload) VALUES (?, ?, ?, ?, 0, 'public', ?)`,
			session, seq, typ, ns+seq, []byte(payload)); err != nil {
			t.Fatal(err)
		}
	}
	for _, sess := range []struct{ id, title string }{{"old", "Old chat"}, {"named", "Named"}, {"bad", "Bad"}} {
		if _, err := db.Exec(`INSERT INTO sessions (id, title, created_ns, updated_ns, last_seq) VALUES (?, ?, ?, ?, 3)`, sess.id, sess.title, ns, ns); err != nil {
			t.Fatal(err)
		}
		insert(sess.id, 0, "session.created", `{"title":"New chat"}`)
	}
	insert("old", 1, "user.message", `{"text":"how do I brew kombucha"}`)
	insert("old", 2, "assistant.message", `{"content":"Kombucha needs a scoby.","doneReason":"stop","model":"m","usage":{}}`)
	insert("old", 3, "tool.result", `{"name":"read_note","content":"kombucha note"}`)
	insert("named", 1, "session.renamed", `{"title":"Named"}`)
	insert("named", 2, "assistant.message", `{"content":"","doneReason":"stop","model":"m","usage":{}}`)
	insert("bad", 1, "user.message", `{"text": kombucha`)
	db.Close()

	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	hits, err := s.SearchSaid(t.Context(), "kombucha", 0)
	if err != nil {
		t.Fatal(err)
	}
	got := hitKeys(hits)
	slices.Sort(got)
	if !slices.Equal(got, []string{"old/1", "old/2"}) {
		t.Fatalf("backfilled search finds %v, want old/1 and old/2", got)
	}
	for id, want := range map[string]string{"old": event.TitleCreated, "named": event.TitleUser} {
		sess, err := s.Session(t.Context(), id)
		if err != nil || sess.TitleSource != want {
			t.Fatalf("%s: title source %q (%v), want %q", id, sess.TitleSource, err, want)
		}
	}
	// New appends are indexed on top of the backfill.
	if _, err := s.Append(t.Context(), "old", user("more kombucha")); err != nil {
		t.Fatal(err)
	}
	if hits, _ := s.SearchSaid(t.Context(), "kombucha", 0); len(hits) != 3 {
		t.Fatalf("%d hits after an append, want 3", len(hits))
	}
}

func TestAnAutomaticTitleNeverReplacesTheUsers(t *testing.T) {
	rename := func(title string, auto bool) event.Draft {
		return event.Draft{Type: event.SessionRenamed, Time: t0.Add(time.Second), Payload: event.SessionRenamedPayload{Title: title, Auto: auto}}
	}
	cases := []struct {
		name       string
		drafts     []event.Draft
		together   bool
		title, src string
	}{
		{"nothing yet", nil, false, "New chat", event.TitleCreated},
		{"auto names a new chat", []event.Draft{rename("Kombucha", true)}, false, "Kombucha", event.TitleAuto},
		{"the user renames an auto title", []event.Draft{rename("Kombucha", true), rename("Mine", false)}, false, "Mine", event.TitleUser},
		{"auto after the user's", []event.Draft{rename("Mine", false), rename("Kombucha", true)}, false, "Mine", event.TitleUser},
		{"both in one append", []event.Draft{rename("Mine", false), rename("Kombucha", true), user("x")}, true, "Mine", event.TitleUser},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := open(t)
			if _, _, err := s.CreateSession(t.Context(), "a", "New chat", t0, nil, nil); err != nil {
				t.Fatal(err)
			}
			if c.together {
				if _, err := s.Append(t.Context(), "a", c.drafts...); err != nil {
					t.Fatal(err)
				}
			}
			for _, d := range c.drafts {
				if c.together {
					break
				}
				if _, err := s.Append(t.Context(), "a", d); err != nil {
					t.Fatal(err)
				}
			}
			sess, err := s.Session(t.Context(), "a")
			if err != nil || sess.Title != c.title || sess.TitleSource != c.src {
				t.Fatalf("title %q from %q (%v), want %q from %q", sess.Title, sess.TitleSource, err, c.title, c.src)
			}
		})
	}
}

// A worker's session is not one of the user's chats: Sessions gives its
// kind, and the search over what was said never finds it.
func TestWorkerSessionsAreKindedAndNotSearched(t *testing.T) {
	s := open(t)
	ctx := t.Context()
	if _, _, err := s.CreateSession(ctx, "chat", "Chat", t0, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.CreateSessionOf(ctx, "work", t0, event.SessionCreatedPayload{Title: "Organise inbox/a.md", Kind: event.SessionWorker}, nil); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"chat", "work"} {
		if _, err := s.Append(ctx, id, user("Organise the zeppelin note"), reply("The zeppelin note goes to travel/")); err != nil {
			t.Fatal(err)
		}
	}
	hits, err := s.SearchSaid(ctx, "zeppelin", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := hitKeys(hits); !slices.Equal(got, []string{"chat/1", "chat/2"}) && !slices.Equal(got, []string{"chat/2", "chat/1"}) {
		t.Fatalf("search found %v, want only the chat's two messages", got)
	}
	list, err := s.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, x := range list {
		kinds[x.ID] = x.Kind
	}
	if kinds["chat"] != event.SessionChat || kinds["work"] != event.SessionWorker || len(kinds) != 2 {
		t.Fatalf("kinds %v", kinds)
	}
	one, err := s.Session(ctx, "work")
	if err != nil || one.Kind != event.SessionWorker {
		t.Fatalf("Session(work) = %+v, %v", one, err)
	}
}
