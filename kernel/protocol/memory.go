package protocol

import "time"

// MemoryItem is one thing the assistant remembers, as the memory panel shows
// it. Session and Seq link to the conversation (and event) it came from;
// Events are the seqs of the memory events that shaped it, Sources the
// events it was drawn from (all in Session).
type MemoryItem struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`           // working, fact, preference
	Note   string `json:"note,omitempty"` // for working memory: conclusion, open, attempt
	Text   string `json:"text"`
	Status string `json:"status"` // kept, pending
	Origin string `json:"origin"` // tool, proposal, auto, user, compaction
	// Approved is how the user let it in: asked (said yes to the question),
	// panel (kept it in the memory panel), user (wrote its text), unasked
	// (kept without a question), own (Quire's own working note: a search
	// it tried, what a compaction drew out); empty while pending.
	Approved  string    `json:"approved,omitempty"`
	Session   string    `json:"session"`
	Seq       int64     `json:"seq"`
	Events    []int64   `json:"events"`
	Sources   []int64   `json:"sources"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// MemoryList is every item and the memory settings: whether what the
// assistant remembers needs the user's approval (Approval: a question for
// remember and forget, the panel for proposals; off is "remember without
// asking"), and whether the model is asked after each run for facts and
// preferences worth keeping (Learn).
type MemoryList struct {
	Items    []MemoryItem `json:"items"`
	Approval bool         `json:"approval"`
	Learn    bool         `json:"learn"`
}
