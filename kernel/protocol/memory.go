package protocol

import "time"

// MemoryItem is one thing the assistant remembers, as the memory panel shows
// it. Session and Seq link to the conversation (and event) it came from;
// Events are the seqs of the memory events that shaped it, Sources the
// events it was drawn from (all in Session).
type MemoryItem struct {
	ID        string    `json:"id"`
	Kind      string    `json:"kind"`           // working, fact, preference
	Note      string    `json:"note,omitempty"` // for working memory: conclusion, open, attempt
	Text      string    `json:"text"`
	Status    string    `json:"status"` // kept, pending
	Origin    string    `json:"origin"` // tool, proposal, auto, user, compaction
	Session   string    `json:"session"`
	Seq       int64     `json:"seq"`
	Events    []int64   `json:"events"`
	Sources   []int64   `json:"sources"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// MemoryList is every item and the memory settings: whether new long-term
// items wait for the user's approval, and whether the model is asked after
// each run for facts and preferences worth keeping (Learn).
type MemoryList struct {
	Items    []MemoryItem `json:"items"`
	Approval bool         `json:"approval"`
	Learn    bool         `json:"learn"`
}
