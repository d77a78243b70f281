package event

// Standing tasks (issue 33): every firing of a standing task is a step in
// the log. The events live in one hidden session of kind SessionStanding;
// they are plain and internal (no model message is made of them). The
// standing_* tables are the state a host reads; these events are the
// record of what fired, when and why.
const (
	StandingFiring Type = "standing.firing"
)

// SessionStanding holds the standing tasks' firings: never listed among the
// chats, never driven by a runtime.
const SessionStanding = "standing"

// The steps of a firing (StandingFiringPayload.Step).
const (
	FiringStarted     = "started"     // the firing is recorded; its batch is being made
	FiringProposed    = "proposed"    // its batch exists and waits for the user's review
	FiringFailed      = "failed"      // no batch was made (Error says why)
	FiringSkipped     = "skipped"     // it was due but a bound held it back (Error says which)
	FiringInterrupted = "interrupted" // Quire stopped between started and proposed, with no batch
)

// StandingFiringPayload is one step of a firing. Slot is the scheduled
// moment it answers (Unix ms); Missed counts the slots a closed Quire let
// pass, all answered by this one firing; Why says so for people.
type StandingFiringPayload struct {
	Task   string `json:"task"`
	Firing string `json:"firing"`
	Step   string `json:"step"`
	SlotMs int64  `json:"slotMs"`
	Missed int    `json:"missed,omitempty"`
	Why    string `json:"why,omitempty"`
	Batch  string `json:"batch,omitempty"`
	Error  string `json:"error,omitempty"`
}
