package protocol

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Evolution (issue 20, seed 001 §9): Quire proposes improvements to how it
// works for this user — a prompt fragment, a skill or a workflow — each an
// immutable, versioned candidate with its origin (the runs and signals it
// came from), evaluated in isolation, approved and activated only by the
// user, scoped, monitored and rolled back. These are the shapes hosts see.
//
// No candidate can widen what tools may do or remove a question: the
// artifact shapes below have no field for a profile, grants, effects, tool
// lists or approvals, and decoding refuses unknown fields (evolve/).

// The kinds of candidate (Candidate.Kind).
const (
	CandidatePrompt   = "prompt"   // a bounded text added to the system text
	CandidateSkill    = "skill"    // a SKILL.md (issue 19's format), no grants
	CandidateWorkflow = "workflow" // a named, parameterised task
)

// Where a candidate stands (Candidate.State).
const (
	CandidateProposed   = "proposed"    // written, not yet evaluated
	CandidateEvaluated  = "evaluated"   // has an evaluation report
	CandidateApproved   = "approved"    // the user approved it, not active
	CandidateActive     = "active"      // in use, in its scope
	CandidateRolledBack = "rolled-back" // was active; rolled back
	CandidateRefused    = "refused"     // the user refused it
)

// Who wrote a candidate (Candidate.Author).
const (
	AuthorModel = "model" // proposed by the model from the signals (learning allowed)
	AuthorUser  = "user"  // written by the user
)

// Where an active candidate applies (Candidate.Scope).
const (
	ScopeFolder = "folder" // conversations over this notes folder (Candidate.Folder)
	ScopeAll    = "all"    // every conversation
)

// The kinds of signal the observer records (EvolutionSignal.Kind).
const (
	SignalDenied       = "denied"        // the user said no to a call (with the reason given)
	SignalUndone       = "undone"        // the user undid a change Quire made
	SignalCorrection   = "correction"    // the next user message corrects a write
	SignalFailedSearch = "failed-search" // the same search found nothing across runs
	SignalRestated     = "restated"      // a preference remembered again, near the same text
)

// Bounds of what a candidate holds.
const (
	MaxFragment      = 1000 // characters of a prompt fragment
	MaxSkill         = 8000 // characters of a skill's SKILL.md
	MaxWorkflowTask  = 2000 // characters of a workflow's task text
	MaxWorkflowParam = 8    // parameters of a workflow
	MaxCandidateName = 80   // characters of a candidate's name
	MaxSignalText    = 300  // characters of a signal's text
	MaxOrigin        = 50   // runs or signals an origin names
)

// EvolutionSignal is one observation of a finished run: what the user
// refused, undid, corrected, searched for in vain or said again. Seqs are
// the events of Session it was read from; Seq is the signal's own event
// (evolution.signal, in the same session). Versions are the candidate IDs
// that were active for the run, so monitoring counts it per version.
type EvolutionSignal struct {
	Kind     string    `json:"kind"`
	Session  string    `json:"session"`
	Run      string    `json:"run"`
	Seq      int64     `json:"seq"`
	Seqs     []int64   `json:"seqs"`
	Text     string    `json:"text"`
	Tool     string    `json:"tool,omitempty"`
	Versions []string  `json:"versions,omitempty"`
	At       time.Time `json:"at"`
}

// SignalRef names a signal by its event.
type SignalRef struct {
	Session string `json:"session"`
	Seq     int64  `json:"seq"`
}

// RunRef names a run of a session.
type RunRef struct {
	Session string `json:"session"`
	Run     string `json:"run"`
}

// CandidateOrigin is what a candidate came from: the runs it draws on (an
// evaluation replays their first user message) and the signals among them.
type CandidateOrigin struct {
	Runs    []RunRef    `json:"runs"`
	Signals []SignalRef `json:"signals"`
}

// PromptFragment is a bounded text that enters the system text while the
// candidate is active.
type PromptFragment struct {
	Text string `json:"text"`
}

// SkillArtifact is a skill as issue 19 writes it: one SKILL.md, whose
// front matter may not declare grants.
type SkillArtifact struct {
	SkillMD string `json:"skillMd"`
}

// WorkflowParam is one parameter of a workflow: {name} in its task text.
type WorkflowParam struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Default     string `json:"default,omitempty"`
}

// WorkflowArtifact is a named task ("file inbox notes by my rules"): its
// text, with {param} placeholders, is sent as a chat task. It carries no
// tools and no approve mode: a run of it asks as any chat does.
type WorkflowArtifact struct {
	Task   string          `json:"task"`
	Params []WorkflowParam `json:"params,omitempty"`
}

// Fill is the workflow's task with its parameters filled (values, else
// each parameter's default): the text a chat run of it is sent. A missing
// value or a name the workflow has not is ErrBadPayload, said in words.
func (w WorkflowArtifact) Fill(values map[string]string) (string, error) {
	task := w.Task
	for _, p := range w.Params {
		v, ok := values[p.Name]
		if !ok {
			v = p.Default
		}
		if strings.TrimSpace(v) == "" {
			return "", Refusal(ErrBadPayload, ErrBadPayload, fmt.Sprintf("the workflow needs a value for {%s}: give it as %s=VALUE", p.Name, p.Name))
		}
		task = strings.ReplaceAll(task, "{"+p.Name+"}", v)
	}
	for k := range values {
		if !slices.ContainsFunc(w.Params, func(p WorkflowParam) bool { return p.Name == k }) {
			return "", Refusal(ErrBadPayload, ErrBadPayload, fmt.Sprintf("the workflow has no parameter %q", k))
		}
	}
	return task, nil
}

// Artifact is exactly one of the three kinds.
type Artifact struct {
	Prompt   *PromptFragment   `json:"prompt,omitempty"`
	Skill    *SkillArtifact    `json:"skill,omitempty"`
	Workflow *WorkflowArtifact `json:"workflow,omitempty"`
}

// CandidateDraft is a candidate as written (by the user, or by the model's
// proposal): Name groups the versions of one improvement; Replaces is the
// ID of the version it would replace (the active one, or "" for the first).
type CandidateDraft struct {
	Name     string   `json:"name"`
	Kind     string   `json:"kind"`
	Artifact Artifact `json:"artifact"`
	// Digest is Artifact.Digest, for the yes that names what it approves.
	Digest   string          `json:"digest"`
	Origin   CandidateOrigin `json:"origin"`
	Replaces string          `json:"replaces,omitempty"`
	// Why is the author's one-paragraph reason, shown with the evidence.
	Why string `json:"why,omitempty"`
}

// ScenarioRun is one side of a scenario: with or without the candidate.
type ScenarioRun struct {
	Passed  bool   `json:"passed"`
	Tokens  int    `json:"tokens"`
	Steps   int    `json:"steps"`
	Failure string `json:"failure,omitempty"`
}

// ScenarioResult is one scenario of an evaluation: an eval set scenario,
// or (Replay set) the replay of an origin run's first user message.
type ScenarioResult struct {
	Name   string  `json:"name"`
	Replay *RunRef `json:"replay,omitempty"`
	// Skipped says why the scenario did not run in this evaluation ("" when
	// it ran): listed so a report never looks complete when it is not.
	// Without and With are then zero, and it is never a regression.
	Skipped string      `json:"skipped,omitempty"`
	Without ScenarioRun `json:"without"`
	With    ScenarioRun `json:"with"`
}

// Regressed: passed without the candidate (against the active version),
// fails with it.
func (s ScenarioResult) Regressed() bool { return s.Without.Passed && !s.With.Passed }

// EvaluationReport is a candidate's isolated evaluation: every scenario run
// in a temporary data folder, never the user's notes, with and without it.
type EvaluationReport struct {
	Candidate string           `json:"candidate"`
	Scenarios []ScenarioResult `json:"scenarios"`
	Model     string           `json:"model,omitempty"`
	At        time.Time        `json:"at"`
}

// Regressions names the scenarios that passed without the candidate and
// fail with it: approval needs the user to have named each (Approval).
func (r EvaluationReport) Regressions() []string {
	var out []string
	for _, s := range r.Scenarios {
		if s.Regressed() {
			out = append(out, s.Name)
		}
	}
	return out
}

// Approval is the user's yes: Accepted names the regressions the user saw
// and accepts (each of the report's Regressions must be named).
type Approval struct {
	Accepted []string `json:"accepted,omitempty"`
	// Digest is the Candidate.Digest the user was shown: the port refuses
	// a yes whose digest is not the candidate's, so what is approved is
	// what was shown ("" from a host that showed the text whole itself).
	Digest string `json:"digest,omitempty"`
}

// Activation is where an approved candidate is to apply: Scope ScopeFolder
// (the current notes folder) or ScopeAll. Replaces must name the version of
// the same Name that is active now ("" when none): activating v2 over v1 is
// never silent.
type Activation struct {
	Scope    string `json:"scope"`
	Replaces string `json:"replaces,omitempty"`
	// Digest: as Approval's.
	Digest string `json:"digest,omitempty"`
}

// VersionMonitor counts what happened while a version was active: the runs
// it was active for and the signals of each kind in them.
type VersionMonitor struct {
	Runs    int            `json:"runs"`
	Signals map[string]int `json:"signals"`
}

// Candidate is one immutable version of an improvement and where it stands.
type Candidate struct {
	ID       string   `json:"id"`
	Name     string   `json:"name"`
	Kind     string   `json:"kind"`
	Version  int      `json:"version"`
	Replaces string   `json:"replaces,omitempty"`
	Artifact Artifact `json:"artifact"`
	// Digest is Artifact.Digest, for the yes that names what it approves.
	Digest string          `json:"digest"`
	Origin CandidateOrigin `json:"origin"`
	Why    string          `json:"why,omitempty"`
	Author string          `json:"author"`
	State  string          `json:"state"`
	// Seq is the candidate's event in the evolution log.
	Seq        int64             `json:"seq"`
	CreatedAt  time.Time         `json:"createdAt"`
	Evaluation *EvaluationReport `json:"evaluation,omitempty"`
	Approval   *Approval         `json:"approval,omitempty"`
	// Scope and Folder say where it is active (State active).
	Scope   string         `json:"scope,omitempty"`
	Folder  string         `json:"folder,omitempty"`
	Monitor VersionMonitor `json:"monitor"`
}

// CandidateDetail is a candidate with what the panel shows beside it: the
// version active now of the same Name (the diff's other side), the signals
// of its origin, and the signals seen while it was active.
type CandidateDetail struct {
	Candidate Candidate         `json:"candidate"`
	Active    *Candidate        `json:"active,omitempty"`
	Evidence  []EvolutionSignal `json:"evidence"`
	Since     []EvolutionSignal `json:"since"`
}

// EvolutionState is every candidate (newest first), the latest signals
// (at most MaxListedSignals) and whether the model may propose (Learn).
type EvolutionState struct {
	Candidates []Candidate       `json:"candidates"`
	Signals    []EvolutionSignal `json:"signals"`
	Learn      bool              `json:"learn"`
}

// MaxListedSignals bounds EvolutionState.Signals.
const MaxListedSignals = 200

// SessionEvolution is the Kind of the hidden session that holds the
// candidates' events (never one of the user's chats).
const SessionEvolution = "evolution"

// SessionStanding is the Kind of the hidden session that holds the
// standing tasks' firings (never one of the user's chats).
const SessionStanding = "standing"

// The states of an evaluation job (EvaluationJob.State).
const (
	EvaluationRunning   = "running"
	EvaluationDone      = "done"      // Report holds what was recorded
	EvaluationFailed    = "failed"    // Error says why; nothing recorded
	EvaluationCancelled = "cancelled" // the user stopped it; nothing recorded
)

// EvaluationJob is a candidate's isolated evaluation running in the
// background (issue 20): it can outlast a request, so a host starts it,
// watches or polls it, and may cancel it. Done of Total are the scenarios
// (eval set and origin replays) whose two runs have finished, Scenario the
// last of them. A report cut short is never recorded: only a done job has
// one.
type EvaluationJob struct {
	Candidate string            `json:"candidate"`
	State     string            `json:"state"`
	Done      int               `json:"done"`
	Total     int               `json:"total"`
	Scenario  string            `json:"scenario,omitempty"`
	Error     string            `json:"error,omitempty"`
	Report    *EvaluationReport `json:"report,omitempty"`
	Started   time.Time         `json:"started"`
}

// Ended reports whether the job is over (done, failed or cancelled).
func (j EvaluationJob) Ended() bool { return j.State != EvaluationRunning }

// Digest is a short hash of what an artifact says: the first 12 hex digits
// of the SHA-256 of its JSON. A dialog that cannot quote a long artifact
// (a skill of 8,000 characters) names it by this, and the yes carries it.
func (a Artifact) Digest() string {
	b, err := json.Marshal(a)
	if err != nil {
		return "" // the shapes are strings and slices of them: never
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}
