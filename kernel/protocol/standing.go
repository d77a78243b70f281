package protocol

// The standing tasks' shapes (issue 33): a task that starts an organise
// batch on a schedule, its firings, and the summary a host shows. The
// kernel does not produce these; the standing package does, and every
// host passes them through unchanged. A StandingTask has no field that
// could apply what its batch proposes: that is the user's, in the review.

// Kinds of schedule (StandingSchedule.Kind).
const (
	StandingDaily  = "daily"  // every day at At
	StandingWeekly = "weekly" // every Weekday at At
	StandingOver   = "over"   // when the task's folder holds more than More notes
	StandingLands  = "lands"  // when a note lands in the task's folder
)

// StandingSchedule is when a task fires, in the computer's local time.
type StandingSchedule struct {
	Kind    string `json:"kind"`
	At      string `json:"at,omitempty"`      // "HH:MM", for daily and weekly
	Weekday string `json:"weekday,omitempty"` // "monday".."sunday", for weekly
	More    int    `json:"more,omitempty"`    // for over: fires above this many notes
}

// StandingBudget bounds one firing: the batch takes only as many notes as
// the worst case of their workers fits in the model calls and tokens.
type StandingBudget struct {
	ModelCalls int `json:"modelCalls"`
	Tokens     int `json:"tokens"`
	Notes      int `json:"notes"`
}

// StandingTask is one standing task: an organise batch over Folder, each
// worker given Instruction, fired on Schedule.
type StandingTask struct {
	ID          string           `json:"id"`
	Name        string           `json:"name"`
	Folder      string           `json:"folder"`
	Instruction string           `json:"instruction,omitempty"`
	Schedule    StandingSchedule `json:"schedule"`
	Budget      StandingBudget   `json:"budget"`
	Paused      bool             `json:"paused,omitempty"`
	CreatedMs   int64            `json:"createdMs"`
}

// StandingFiring is one firing: Step is where it is (started, proposed,
// failed, skipped, interrupted); Batch the id its batch has or would have.
type StandingFiring struct {
	ID        string `json:"id"`
	Task      string `json:"task"`
	SlotMs    int64  `json:"slotMs"`           // the scheduled moment it answers
	Missed    int    `json:"missed,omitempty"` // slots a closed Quire let pass, all answered by this one
	Why       string `json:"why,omitempty"`    // for people: why it fired, or was held back
	Step      string `json:"step"`
	Batch     string `json:"batch,omitempty"`
	Error     string `json:"error,omitempty"`
	StartedMs int64  `json:"startedMs"`
	UpdatedMs int64  `json:"updatedMs"`
}

// StandingSummary is a task as a host shows it.
type StandingSummary struct {
	Task     StandingTask    `json:"task"`
	Schedule string          `json:"schedule"` // for people: "daily at 18:30"
	NextMs   int64           `json:"nextMs,omitempty"`
	Last     *StandingFiring `json:"last,omitempty"`
	Batch    *Batch          `json:"batch,omitempty"` // the last firing's batch as it stands
	Proposed int             `json:"proposed"`        // notes its last batch has a proposal for
	Kept     int             `json:"kept"`            // notes the user's answer changed
	Waiting  bool            `json:"waiting"`         // its batch waits for the user's review
	Flagged  bool            `json:"flagged"`         // the user kept nothing of its last few batches
}
