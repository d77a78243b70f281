package protocol

// Commands that fork or resume a conversation. Each is one command, not a
// composition of create and send by the host, so every host (the window,
// the browser, the terminal) gets the same meaning and one idempotency key
// covers the whole action: a repeat after a lost answer returns the first
// branch and run instead of making a second branch.
const (
	EditMessage = "message.edit"       // EditMessagePayload -> BranchResult
	Regenerate  = "message.regenerate" // RegeneratePayload -> BranchResult
	ContinueRun = "run.continue"       // SessionRef -> SendResult
)

// EditMessagePayload resends the user message at Seq of Session with Text
// instead: a new branch of Session from just before that message, whose
// first input is Text. The original stays as it was.
type EditMessagePayload struct {
	Session string `json:"session"`
	Seq     int64  `json:"seq"`
	Text    string `json:"text"`
}

// RegeneratePayload asks again for the reply at Seq of Session (an event
// of its run: its start, a delta, the assistant message, a tool's event):
// a new branch from just before the user message that opened that run,
// sending the same text again.
type RegeneratePayload struct {
	Session string `json:"session"`
	Seq     int64  `json:"seq"`
}

// BranchResult is the branch an edit or a regenerate made, and the run its
// first input opened.
type BranchResult struct {
	Session Session `json:"session"`
	RunID   string  `json:"runId"`
}
