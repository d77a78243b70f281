package event

// Memory writes (seed 002 decision 6): every change to what the assistant
// remembers is one of these plain events in the session it concerns, so the
// memory tables (memory/) are an index that can be rebuilt from the log.
// Their Sources name the events an item came from (the call that asked to
// remember it, the run a proposal was drawn from). They are internal: the
// memory panel shows the items, not the events.
const (
	MemoryRemember Type = "memory.remember"
	MemoryEdit     Type = "memory.edit"
	MemoryForget   Type = "memory.forget"
	MemoryReview   Type = "memory.review"
)

// MemoryRememberPayload adds an item. Kind is working, fact or preference;
// Note qualifies working memory (conclusion, open, attempt). Pending items
// wait for the user's approval before the model sees them. Origin says who
// wrote it: tool, proposal, auto, user or compaction. Approved says how the
// user let it in: asked (the user said yes to the question), unasked (kept
// without a question: "remember without asking", or Quire's own working
// notes); empty while pending (a review event then says). CallID is the
// tool call that wrote it, when a tool did.
type MemoryRememberPayload struct {
	ID       string `json:"id"`
	Kind     string `json:"kind"`
	Note     string `json:"note,omitempty"`
	Text     string `json:"text"`
	Origin   string `json:"origin"`
	Pending  bool   `json:"pending,omitempty"`
	Approved string `json:"approved,omitempty"`
	CallID   string `json:"callId,omitempty"`
}

// MemoryEditPayload replaces an item's text.
type MemoryEditPayload struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// MemoryForgetPayload removes an item from what the model sees; the events
// that made it stay in the log.
// CallID is the tool call that asked for it, when a tool did.
type MemoryForgetPayload struct {
	ID     string `json:"id"`
	Origin string `json:"origin"`
	CallID string `json:"callId,omitempty"`
}

// MemoryReviewPayload is the user's decision on a pending item.
type MemoryReviewPayload struct {
	ID       string `json:"id"`
	Approved bool   `json:"approved"`
}
