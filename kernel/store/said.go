package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"quire/kernel/event"
)

// The search over what was said: every user message and assistant reply
// of every session, in an FTS5 table kept in the same transaction as the
// append that logs it (so the two never disagree), backfilled from the log
// by the migration that made it, and emptied of a session with its log.
//
// Tool results are left out on purpose: they are the text of notes and
// documents (search_docs passages, read_note bodies), which the documents
// index already searches, and a conversation would be buried under the
// copies of the passages it read. Compaction summaries are left out too:
// nobody said them, and the messages they replace stay indexed.
//
// `said` holds the rows (session, seq, role) and the text; said_fts is an
// external-content FTS5 index over it, kept by triggers, so a session's
// rows go with one indexed DELETE.
const saidSchema = `
	CREATE TABLE said (
		id      INTEGER PRIMARY KEY,
		session TEXT NOT NULL,
		seq     INTEGER NOT NULL,
		role    TEXT NOT NULL,
		time_ns INTEGER NOT NULL,
		text    TEXT NOT NULL,
		UNIQUE (session, seq)
	);
	CREATE VIRTUAL TABLE said_fts USING fts5(text, content='said', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
	CREATE TRIGGER said_ai AFTER INSERT ON said BEGIN
		INSERT INTO said_fts(rowid, text) VALUES (new.id, new.text);
	END;
	CREATE TRIGGER said_ad AFTER DELETE ON said BEGIN
		INSERT INTO said_fts(said_fts, rowid, text) VALUES ('delete', old.id, old.text);
	END;`

// saidBackfill indexes what an existing log holds. A payload that is not
// valid JSON (a damaged session) is skipped rather than failing the
// migration: the session stays readable as damaged, as before.
var saidBackfill = `
	INSERT INTO said (session, seq, role, time_ns, text)
	SELECT session, seq, role, time_ns, ` + saidClean("said_text") + ` FROM (
		SELECT session, seq, time_ns,
			CASE type WHEN 'user.message' THEN 'user' ELSE 'assistant' END AS role,
			CASE WHEN json_valid(CAST(payload AS TEXT)) THEN
				json_extract(CAST(payload AS TEXT), CASE type WHEN 'user.message' THEN '$.text' ELSE '$.content' END)
			END AS said_text
		FROM events WHERE type IN ('user.message', 'assistant.message'))
	WHERE typeof(said_text) = 'text' AND trim(said_text) != '';`

// saidClean is the SQL twin of cleanSaid: the markers out, the length cut.
func saidClean(col string) string {
	return fmt.Sprintf("substr(replace(replace(%s, char(1), ' '), char(2), ' '), 1, %d)", col, SaidMaxChars)
}

// SaidMaxChars bounds the text indexed per message: a reply longer than
// this is found by its first SaidMaxChars characters.
const SaidMaxChars = 65536

// The markers snippet() puts around each matched word. They are taken out
// of the indexed text (cleanSaid), so a marker in a snippet is always one
// the search put there.
const (
	MarkOpen  = "\x01"
	MarkClose = "\x02"
)

func cleanSaid(text string) string {
	text = strings.NewReplacer(MarkOpen, " ", MarkClose, " ").Replace(text)
	if utf8.RuneCountInString(text) > SaidMaxChars {
		text = string([]rune(text)[:SaidMaxChars])
	}
	return text
}

// saidOf is what an event adds to the search: the role and text of a user
// message or an assistant reply with words, else ok is false.
func saidOf(e event.Event) (role, text string, ok bool) {
	switch e.Type {
	case event.UserMessage:
		p, err := event.As[event.UserMessagePayload](e)
		role, text, ok = "user", p.Text, err == nil
	case event.AssistantMessage:
		p, err := event.As[event.AssistantMessagePayload](e)
		role, text, ok = "assistant", p.Content, err == nil
	}
	if !ok || strings.TrimSpace(text) == "" {
		return "", "", false
	}
	return role, cleanSaid(text), true
}

// indexSaid adds what evs said to the search, in the append's transaction.
func (s *Store) indexSaid(ctx context.Context, tx *sql.Tx, evs []event.Event) error {
	for _, e := range evs {
		role, text, ok := saidOf(e)
		if !ok {
			continue
		}
		st, err := s.txStmt(ctx, tx, `INSERT INTO said (session, seq, role, time_ns, text) VALUES (?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		if _, err := st.ExecContext(ctx, e.Session, e.Seq, role, e.Time.UnixNano(), text); err != nil {
			return fmt.Errorf("search index at %d: %w", e.Seq, err)
		}
	}
	return nil
}

// Bounds of a search over what was said.
const (
	// SearchMaxQuery is how much of a query is read (characters); the rest is ignored.
	SearchMaxQuery = 200
	// SearchMaxWords is how many of its words count.
	SearchMaxWords = 12
	// SearchMaxHits is the most hits one search returns.
	SearchMaxHits = 50
)

// SaidHit is a message that matched a search.
type SaidHit struct {
	Session string
	Title   string // the session's title now
	Seq     int64
	Role    string // "user" or "assistant"
	Time    time.Time
	// Snippet is the matching part of the text, each matched word between
	// MarkOpen and MarkClose, cut with "…" where the text goes on.
	Snippet string
}

// MatchQuery turns what a user typed into an FTS5 query of plain words:
// every run of letters and digits is a word, quoted (so FTS5's syntax —
// quotes, *, -, AND, NEAR, column filters — is never read from the user),
// all of them required, the last one also matching as a prefix (so a word
// still being typed finds). "" when there is no word.
func MatchQuery(q string) string {
	if utf8.RuneCountInString(q) > SearchMaxQuery {
		q = string([]rune(q)[:SearchMaxQuery])
	}
	words := strings.FieldsFunc(q, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r) })
	if len(words) > SearchMaxWords {
		words = words[:SearchMaxWords]
	}
	for i, w := range words {
		words[i] = `"` + w + `"`
	}
	if len(words) == 0 {
		return ""
	}
	words[len(words)-1] += "*"
	return strings.Join(words, " ")
}

// SearchSaid finds the messages of every chat (a worker's session is not
// the user's: event.SessionWorker) that hold all the words
// of query, best first by FTS5's bm25 rank, newer first among equals; at
// most limit (1..SearchMaxHits; other values mean SearchMaxHits). A query
// with no word finds nothing, with no error.
func (s *Store) SearchSaid(ctx context.Context, query string, limit int) ([]SaidHit, error) {
	match := MatchQuery(query)
	if match == "" {
		return nil, nil
	}
	if limit <= 0 || limit > SearchMaxHits {
		limit = SearchMaxHits
	}
	rows, err := s.db.QueryContext(ctx, `SELECT said.session, COALESCE(sessions.title, ''), said.seq, said.role, said.time_ns,
			snippet(said_fts, 0, char(1), char(2), '…', 16)
		FROM said_fts
		JOIN said ON said.id = said_fts.rowid
		LEFT JOIN sessions ON sessions.id = said.session
		WHERE said_fts MATCH ? AND `+kindOf("said.session")+` = ''
		ORDER BY said_fts.rank, said.time_ns DESC, said.id DESC
		LIMIT ?`, match, limit)
	if err != nil {
		return nil, fmt.Errorf("search the conversations: %w", err)
	}
	defer rows.Close()
	var out []SaidHit
	for rows.Next() {
		var h SaidHit
		var at int64
		if err := rows.Scan(&h.Session, &h.Title, &h.Seq, &h.Role, &at, &h.Snippet); err != nil {
			return nil, fmt.Errorf("search the conversations: %w", err)
		}
		h.Time = time.Unix(0, at).UTC()
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search the conversations: %w", err)
	}
	return out, nil
}
