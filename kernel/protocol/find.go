package protocol

import "time"

// MessageSearch is what a search over every conversation found: the
// messages (user messages and assistant replies; tool results are not
// searched) that hold every word of the query, best first (FTS5's bm25
// rank, newer first among equals). The query is read as plain words: no
// character of it is search syntax.
type MessageSearch struct {
	Query string       `json:"query"`
	Hits  []MessageHit `json:"hits"`
}

// Bounds of a search over the conversations: the query's length read
// (characters) and how many hits one search returns.
const (
	FindMaxQuery = 200
	FindMaxHits  = 50
)

// MessageHit is one message that matched: where it is (the session, its
// title now, the seq of the user.message or assistant.message event) and
// the part of it that matched.
type MessageHit struct {
	Session string    `json:"session"`
	Title   string    `json:"title"`
	Seq     int64     `json:"seq"`
	Role    string    `json:"role"` // "user" or "assistant"
	Time    time.Time `json:"time"`
	// Snippet is the matching part of the message as plain text in
	// pieces, each matched word a piece of its own with Match set, cut
	// with "…" where the message goes on. It is never markup: a page
	// shows each piece as text, highlighting those that match.
	Snippet []SnippetPart `json:"snippet"`
}

// SnippetPart is a piece of a snippet.
type SnippetPart struct {
	Text  string `json:"text"`
	Match bool   `json:"match,omitempty"`
}
