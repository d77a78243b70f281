package event

import "encoding/json"

// Evolution (issue 20): signals observed in finished runs, and the life of
// each candidate improvement. All are plain, internal events: no model
// message is made of them.
//
// A signal is appended to the session of the run it was read from (its
// Seqs are that session's). The candidates' events live in one hidden
// session of kind SessionEvolution, so the log is their truth: a candidate
// is immutable once written (evolution.candidate), and every step after —
// evaluated, approved, refused, activated, rolled back — is one more event.
const (
	EvolutionSignal     Type = "evolution.signal"
	EvolutionObserved   Type = "evolution.observed"
	EvolutionCandidate  Type = "evolution.candidate"
	EvolutionEvaluated  Type = "evolution.evaluated"
	EvolutionApproved   Type = "evolution.approved"
	EvolutionRefused    Type = "evolution.refused"
	EvolutionActivated  Type = "evolution.activated"
	EvolutionRolledBack Type = "evolution.rolledback"
)

// EvolutionSignalPayload is one observation of run RunID: Kind is one of
// protocol's Signal kinds, Seqs the events it was read from, Versions the
// candidates active for the run.
type EvolutionSignalPayload struct {
	Kind     string   `json:"kind"`
	Seqs     []int64  `json:"seqs"`
	Text     string   `json:"text"`
	Tool     string   `json:"tool,omitempty"`
	Versions []string `json:"versions,omitempty"`
}

// EvolutionObservedPayload records, in a finished run's session, the
// candidates that were active for it, so monitoring counts the runs of each
// version (its signals name the same Versions).
type EvolutionObservedPayload struct {
	Versions []string `json:"versions"`
}

// EvolutionRef names a run or a signal elsewhere in the log.
type EvolutionRef struct {
	Session string `json:"session"`
	Run     string `json:"run,omitempty"`
	Seq     int64  `json:"seq,omitempty"`
}

// EvolutionCandidatePayload is one immutable version. Artifact is the
// artifact as written; evolve decodes it refusing unknown fields, so a
// candidate can hold nothing but a fragment's text, a SKILL.md or a task.
type EvolutionCandidatePayload struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Kind     string          `json:"kind"`
	Version  int             `json:"version"`
	Replaces string          `json:"replaces,omitempty"`
	Artifact json.RawMessage `json:"artifact"`
	Runs     []EvolutionRef  `json:"runs,omitempty"`
	Signals  []EvolutionRef  `json:"signals,omitempty"`
	Why      string          `json:"why,omitempty"`
	Author   string          `json:"author"`
}

// EvolutionEvaluatedPayload records a candidate's evaluation report
// (protocol.EvaluationReport, as JSON).
type EvolutionEvaluatedPayload struct {
	ID     string          `json:"id"`
	Report json.RawMessage `json:"report"`
}

// EvolutionApprovedPayload is the user's yes, naming the regressions seen.
type EvolutionApprovedPayload struct {
	ID       string   `json:"id"`
	Accepted []string `json:"accepted,omitempty"`
}

// EvolutionRefusedPayload is the user's no.
type EvolutionRefusedPayload struct {
	ID     string `json:"id"`
	Reason string `json:"reason,omitempty"`
}

// EvolutionActivatedPayload makes an approved candidate active in Scope
// (Folder for the folder scope); Replaces is the version of the same name
// it takes over from, which stays for rollback.
type EvolutionActivatedPayload struct {
	ID       string `json:"id"`
	Scope    string `json:"scope"`
	Folder   string `json:"folder,omitempty"`
	Replaces string `json:"replaces,omitempty"`
}

// EvolutionRolledBackPayload ends ID's activation; Restored is the version
// made active again in its place ("" when there was none).
type EvolutionRolledBackPayload struct {
	ID       string `json:"id"`
	Restored string `json:"restored,omitempty"`
}
