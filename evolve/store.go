package evolve

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"quire/kernel/event"
	"quire/kernel/protocol"
)

// Log is what evolve reads of the event log.
type Log interface {
	Sessions(ctx context.Context) ([]event.SessionSummary, error)
	Events(ctx context.Context, session string, from int64) ([]event.Event, error)
	EventsOfType(ctx context.Context, session string, typ event.Type) ([]event.Event, error)
	// LastSeqOf is the seq of the session's last event of type typ in run
	// runID, -1 when there is none.
	LastSeqOf(ctx context.Context, session string, typ event.Type, runID string) (int64, error)
}

// Writer appends plain events to a session's log (the runtime's
// AppendPlain, so hosts following the session see them).
type Writer interface {
	AppendPlain(ctx context.Context, session string, drafts ...event.Draft) ([]event.Event, error)
}

// Opener creates the hidden session of kind evolution and returns its ID
// (the composition root sends the kernel's create-session command).
type Opener func(ctx context.Context) (string, error)

// Store is the candidates' state, a fold over the evolution session's
// events, and the only writer of those events. Writes are serialised, so
// a check (the state allows this step) and its event cannot interleave with
// another's. Safe for concurrent use.
type Store struct {
	log    Log
	writer atomic.Pointer[Writer]
	open   Opener
	folder func() string
	learn  atomic.Bool
	save   func(learn bool) error
	eval   atomic.Pointer[Evaluator]
	jobs   *jobs
	now    func() time.Time
	newID  func() string
	logger *slog.Logger
	runs   runSets // the active set each open run was sent (Fragments)

	wmu     sync.Mutex // serialises writes: a step's check and its event, and the session's creation
	mu      sync.Mutex // guards session
	session string     // the evolution session, once found or made
}

// Option configures a Store.
type Option func(*Store)

// WithClock sets the clock (tests).
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// WithIDs sets how candidate IDs are made (tests).
func WithIDs(newID func() string) Option { return func(s *Store) { s.newID = newID } }

// WithLogger sets the logger.
func WithLogger(l *slog.Logger) Option { return func(s *Store) { s.logger = l } }

// WithLearning sets whether the model is asked for candidates after a run
// (off by default, like memory's learning).
func WithLearning(on bool) Option { return func(s *Store) { s.learn.Store(on) } }

// WithLearningSaver sets where SetLearning saves the choice.
func WithLearningSaver(save func(learn bool) error) Option { return func(s *Store) { s.save = save } }

// New returns the store over log. folder is the notes folder now ("" for
// none): a folder-scoped activation applies to it.
func New(log Log, open Opener, folder func() string, opts ...Option) *Store {
	s := &Store{log: log, open: open, folder: folder, now: time.Now, logger: slog.Default(), newID: randomID, jobs: newJobs()}
	for _, o := range opts {
		o(s)
	}
	return s
}

func randomID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "c-" + hex.EncodeToString(b[:])
}

// SetWriter sets the writer (the runtime, made after the store).
func (s *Store) SetWriter(w Writer) { s.writer.Store(&w) }

// SetEvaluator sets what runs a candidate's isolated evaluation.
func (s *Store) SetEvaluator(e Evaluator) { s.eval.Store(&e) }

// Evaluate runs the candidate's isolated evaluation against the version of
// its name active now, and records the report; it returns when the
// evaluation ends (StartEvaluation runs it in the background).
func (s *Store) Evaluate(ctx context.Context, id string) (protocol.EvaluationReport, error) {
	e, c, active, err := s.evaluation(ctx, id)
	if err != nil {
		return protocol.EvaluationReport{}, err
	}
	return s.record(ctx, e, *c, active, nil)
}

// evaluation is the evaluator and what it is to run with, or why the
// candidate cannot be evaluated now.
func (s *Store) evaluation(ctx context.Context, id string) (Evaluator, *protocol.Candidate, *protocol.Candidate, error) {
	e := s.eval.Load()
	if e == nil {
		return nil, nil, nil, refuse(ErrNoEvaluator, protocol.ErrConflict, "this Quire has no evaluator to run candidates against the eval set; build it with the evaluation (lane evolveui) and try again")
	}
	st, err := s.read(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	c, err := st.get(id)
	if err != nil {
		return nil, nil, nil, err
	}
	if c.State != protocol.CandidateProposed && c.State != protocol.CandidateEvaluated {
		return nil, nil, nil, refuse(ErrState, protocol.ErrConflict, "%s v%d is %s; only a candidate not yet approved is evaluated", c.Name, c.Version, c.State)
	}
	var active *protocol.Candidate
	if a := st.active(c.Name); a != nil {
		cp := *a
		active = &cp
	}
	cp := *c
	return *e, &cp, active, nil
}

// record runs the evaluation and records its report (never one cut short:
// the evaluator refuses to make it).
func (s *Store) record(ctx context.Context, e Evaluator, c protocol.Candidate, active *protocol.Candidate, progress Progress) (protocol.EvaluationReport, error) {
	r, err := e.Evaluate(ctx, c, active, progress)
	if err != nil {
		return protocol.EvaluationReport{}, fmt.Errorf("evolve: evaluate %s: %w", c.ID, err)
	}
	r.Candidate = c.ID
	if _, err := s.RecordEvaluation(ctx, r); err != nil {
		return protocol.EvaluationReport{}, err
	}
	return r, nil
}

// SetLearning turns the model's proposals on or off, saved first through
// the settings saver (WithLearningSaver) so the next start reads the same.
func (s *Store) SetLearning(ctx context.Context, on bool) error {
	if s.save != nil {
		if err := s.save(on); err != nil {
			return fmt.Errorf("evolve: save the learning setting: %w", err)
		}
	}
	s.learn.Store(on)
	return nil
}

// Learning reports whether the model is asked for candidates.
func (s *Store) Learning() bool { return s.learn.Load() }

// state is the fold of the evolution session.
type state struct {
	byID  map[string]*protocol.Candidate
	order []string // candidates in log order
	// took is, per active candidate, the version its activation replaced
	// (restored by its rollback); activated the seq of that activation.
	took      map[string]string
	activated map[string]int64
}

func (st *state) active(name string) *protocol.Candidate {
	for _, id := range st.order {
		if c := st.byID[id]; c.Name == name && c.State == protocol.CandidateActive {
			return c
		}
	}
	return nil
}

// activeNow is every active candidate, in log order.
func (st *state) activeNow() []*protocol.Candidate {
	var out []*protocol.Candidate
	for _, id := range st.order {
		if c := st.byID[id]; c.State == protocol.CandidateActive {
			out = append(out, c)
		}
	}
	return out
}

// findSession is the evolution session's ID, "" when there is none yet.
func (s *Store) findSession(ctx context.Context) (string, error) {
	s.mu.Lock()
	id := s.session
	s.mu.Unlock()
	if id != "" {
		return id, nil
	}
	all, err := s.log.Sessions(ctx)
	if err != nil {
		return "", err
	}
	// The oldest, should two ever exist: the first one made is the one written.
	var found *event.SessionSummary
	for i := range all {
		if all[i].Kind == event.SessionEvolution && (found == nil || all[i].CreatedAt.Before(found.CreatedAt)) {
			found = &all[i]
		}
	}
	if found == nil {
		return "", nil
	}
	s.mu.Lock()
	s.session = found.ID
	s.mu.Unlock()
	return found.ID, nil
}

// read folds the evolution session.
func (s *Store) read(ctx context.Context) (*state, error) {
	st := &state{byID: map[string]*protocol.Candidate{}, took: map[string]string{}, activated: map[string]int64{}}
	id, err := s.findSession(ctx)
	if err != nil || id == "" {
		return st, err
	}
	evs, err := s.log.Events(ctx, id, 0)
	if err != nil {
		return nil, err
	}
	for _, e := range evs {
		if err := st.apply(e); err != nil {
			// The log is the truth; an event this fold cannot read is
			// skipped and said, never a reason to lose the others.
			s.logger.Warn("evolve: an evolution event could not be read", "seq", e.Seq, "type", e.Type, "err", err)
		}
	}
	return st, nil
}

func (st *state) apply(e event.Event) error {
	switch e.Type {
	case event.EvolutionCandidate:
		p, err := event.As[event.EvolutionCandidatePayload](e)
		if err != nil {
			return err
		}
		a, err := decodeArtifact(p.Artifact)
		if err != nil {
			return err
		}
		c := &protocol.Candidate{ID: p.ID, Name: p.Name, Kind: p.Kind, Version: p.Version, Replaces: p.Replaces, Artifact: a, Digest: a.Digest(),
			Why: p.Why, Author: p.Author, State: protocol.CandidateProposed, Seq: e.Seq, CreatedAt: e.Time.UTC(),
			Origin:  protocol.CandidateOrigin{Runs: []protocol.RunRef{}, Signals: []protocol.SignalRef{}},
			Monitor: protocol.VersionMonitor{Signals: map[string]int{}}}
		for _, r := range p.Runs {
			c.Origin.Runs = append(c.Origin.Runs, protocol.RunRef{Session: r.Session, Run: r.Run})
		}
		for _, r := range p.Signals {
			c.Origin.Signals = append(c.Origin.Signals, protocol.SignalRef{Session: r.Session, Seq: r.Seq})
		}
		st.byID[c.ID] = c
		st.order = append(st.order, c.ID)
	case event.EvolutionEvaluated:
		return on(st, e, func(p event.EvolutionEvaluatedPayload, c *protocol.Candidate) error {
			var r protocol.EvaluationReport
			if err := json.Unmarshal(p.Report, &r); err != nil {
				return err
			}
			c.Evaluation, c.State = &r, protocol.CandidateEvaluated
			return nil
		})
	case event.EvolutionApproved:
		return on(st, e, func(p event.EvolutionApprovedPayload, c *protocol.Candidate) error {
			c.Approval, c.State = &protocol.Approval{Accepted: p.Accepted}, protocol.CandidateApproved
			return nil
		})
	case event.EvolutionRefused:
		return on(st, e, func(_ event.EvolutionRefusedPayload, c *protocol.Candidate) error {
			c.State = protocol.CandidateRefused
			return nil
		})
	case event.EvolutionActivated:
		return on(st, e, func(p event.EvolutionActivatedPayload, c *protocol.Candidate) error {
			if old, ok := st.byID[p.Replaces]; ok && p.Replaces != "" {
				// Replaced, not lost: it stays approved, for rollback.
				old.State, old.Scope, old.Folder = protocol.CandidateApproved, "", ""
			}
			c.State, c.Scope, c.Folder = protocol.CandidateActive, p.Scope, p.Folder
			st.took[c.ID], st.activated[c.ID] = p.Replaces, e.Seq
			return nil
		})
	case event.EvolutionRolledBack:
		return on(st, e, func(p event.EvolutionRolledBackPayload, c *protocol.Candidate) error {
			if r, ok := st.byID[p.Restored]; ok && p.Restored != "" {
				r.State, r.Scope, r.Folder = protocol.CandidateActive, c.Scope, c.Folder
				st.activated[r.ID] = e.Seq
			}
			c.State, c.Scope, c.Folder = protocol.CandidateRolledBack, "", ""
			return nil
		})
	}
	return nil
}

// on reads a candidate step's payload and applies it to the candidate it
// names.
func on[T interface{ Candidate() string }](st *state, e event.Event, apply func(T, *protocol.Candidate) error) error {
	p, err := event.As[T](e)
	if err != nil {
		return err
	}
	c, ok := st.byID[p.Candidate()]
	if !ok {
		return ErrUnknown
	}
	return apply(p, c)
}

// get is the candidate id, or the refusal that says there is none.
func (st *state) get(id string) (*protocol.Candidate, error) {
	c, ok := st.byID[id]
	if !ok {
		return nil, unknown(id)
	}
	return c, nil
}

// append writes drafts to the evolution session, making it first when
// there is none. The caller holds s.wmu, so only one can make it.
func (s *Store) append(ctx context.Context, drafts ...event.Draft) error {
	w := s.writer.Load()
	if w == nil {
		return fmt.Errorf("evolve: %w", errNoWriter)
	}
	id, err := s.findSession(ctx)
	if err != nil {
		return err
	}
	if id == "" {
		if id, err = s.open(ctx); err != nil {
			return fmt.Errorf("evolve: make the evolution log: %w", err)
		}
		s.mu.Lock()
		s.session = id
		s.mu.Unlock()
	}
	for i := range drafts {
		drafts[i].Time = s.now()
	}
	_, err = (*w).AppendPlain(ctx, id, drafts...)
	return err
}

var errNoWriter = errors.New("nothing appends to the log yet")

// appendLocked appends drafts under the write lock, for an event no step
// checks (the proposer's model.consulted).
func (s *Store) appendLocked(ctx context.Context, drafts ...event.Draft) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.append(ctx, drafts...)
}

// write runs step against the current state and appends the event it
// returns, all under the write lock; then it returns the candidate step
// named as the log now folds it.
func (s *Store) write(ctx context.Context, step func(st *state) (string, event.Draft, error)) (protocol.Candidate, error) {
	s.wmu.Lock()
	st, err := s.read(ctx)
	if err != nil {
		s.wmu.Unlock()
		return protocol.Candidate{}, err
	}
	id, d, err := step(st)
	if err == nil {
		err = s.append(ctx, d)
	}
	s.wmu.Unlock()
	if err != nil {
		return protocol.Candidate{}, err
	}
	return s.candidate(ctx, id)
}

func (s *Store) candidate(ctx context.Context, id string) (protocol.Candidate, error) {
	st, err := s.read(ctx)
	if err != nil {
		return protocol.Candidate{}, err
	}
	c, err := st.get(id)
	if err != nil {
		return protocol.Candidate{}, err
	}
	return *c, nil
}

// Propose adds a candidate the user wrote.
func (s *Store) Propose(ctx context.Context, d protocol.CandidateDraft) (protocol.Candidate, error) {
	return s.add(ctx, d, protocol.AuthorUser)
}

// add adds a candidate: its version is one more than its name's latest,
// and it replaces the version of its name active now.
func (s *Store) add(ctx context.Context, d protocol.CandidateDraft, author string) (protocol.Candidate, error) {
	d.Name = strings.TrimSpace(d.Name)
	if err := checkDraft(d); err != nil {
		return protocol.Candidate{}, err
	}
	if author != protocol.AuthorModel && author != protocol.AuthorUser {
		return protocol.Candidate{}, bad("a candidate's author is the model or the user, not %q", author)
	}
	raw, err := json.Marshal(d.Artifact)
	if err != nil {
		return protocol.Candidate{}, err
	}
	id := s.newID()
	return s.write(ctx, func(st *state) (string, event.Draft, error) {
		version := 1
		for _, cid := range st.order {
			if c := st.byID[cid]; c.Name == d.Name {
				if c.Kind != d.Kind {
					return "", event.Draft{}, bad("%q is a %s; a new version of it is a %s too", d.Name, c.Kind, c.Kind)
				}
				version = max(version, c.Version+1)
			}
		}
		replaces := ""
		if a := st.active(d.Name); a != nil {
			replaces = a.ID
		}
		if d.Replaces != "" && d.Replaces != replaces {
			return "", event.Draft{}, refuse(ErrReplaces, protocol.ErrConflict, "the candidate says it replaces %q, but the version of %q active now is %q", d.Replaces, d.Name, cmp.Or(replaces, "none"))
		}
		p := event.EvolutionCandidatePayload{ID: id, Name: d.Name, Kind: d.Kind, Version: version, Replaces: replaces,
			Artifact: raw, Why: strings.TrimSpace(d.Why), Author: author}
		for _, r := range d.Origin.Runs {
			p.Runs = append(p.Runs, event.EvolutionRef{Session: r.Session, Run: r.Run})
		}
		for _, r := range d.Origin.Signals {
			p.Signals = append(p.Signals, event.EvolutionRef{Session: r.Session, Seq: r.Seq})
		}
		return id, event.Draft{Type: event.EvolutionCandidate, Payload: p}, nil
	})
}

// maxScenarios bounds an evaluation report.
const maxScenarios = 500

// RecordEvaluation records a report for its candidate, which must not be
// approved, active or refused yet (a new evaluation after approval would
// change what the user said yes to).
func (s *Store) RecordEvaluation(ctx context.Context, r protocol.EvaluationReport) (protocol.Candidate, error) {
	if len(r.Scenarios) == 0 || len(r.Scenarios) > maxScenarios {
		return protocol.Candidate{}, bad("an evaluation report has 1 to %d scenarios", maxScenarios)
	}
	if r.At.IsZero() {
		r.At = s.now().UTC()
	}
	raw, err := json.Marshal(r)
	if err != nil {
		return protocol.Candidate{}, err
	}
	return s.write(ctx, func(st *state) (string, event.Draft, error) {
		c, err := st.get(r.Candidate)
		if err != nil {
			return "", event.Draft{}, err
		}
		if c.State != protocol.CandidateProposed && c.State != protocol.CandidateEvaluated {
			return "", event.Draft{}, refuse(ErrState, protocol.ErrConflict, "%s v%d is %s; only a candidate not yet approved is evaluated", c.Name, c.Version, c.State)
		}
		return c.ID, event.Draft{Type: event.EvolutionEvaluated, Payload: event.EvolutionEvaluatedPayload{ID: c.ID, Report: raw}}, nil
	})
}

// Approve is the user's yes. It needs an evaluation, and every regression
// of it (a scenario that passed without the candidate and fails with it)
// named in a.Accepted: the user approves only what they saw.
func (s *Store) Approve(ctx context.Context, id string, a protocol.Approval) (protocol.Candidate, error) {
	return s.write(ctx, func(st *state) (string, event.Draft, error) {
		c, err := st.get(id)
		if err != nil {
			return "", event.Draft{}, err
		}
		if c.State == protocol.CandidateProposed {
			return "", event.Draft{}, refuse(ErrState, protocol.ErrConflict, "%s v%d has no evaluation yet; evaluate it first (`quire evolve eval %s`)", c.Name, c.Version, id)
		}
		if c.State != protocol.CandidateEvaluated {
			return "", event.Draft{}, refuse(ErrState, protocol.ErrConflict, "%s v%d is %s; only an evaluated candidate is approved", c.Name, c.Version, c.State)
		}
		if err := shown(c, a.Digest); err != nil {
			return "", event.Draft{}, err
		}
		var missing []string
		for _, r := range c.Evaluation.Regressions() {
			if !slices.Contains(a.Accepted, r) {
				missing = append(missing, r)
			}
		}
		if len(missing) > 0 {
			return "", event.Draft{}, refuse(ErrRegressions, protocol.ErrConflict, "with %s v%d these scenarios fail that passed without it: %s; look at them, and approve naming each if you accept it", c.Name, c.Version, strings.Join(missing, ", "))
		}
		return id, event.Draft{Type: event.EvolutionApproved, Payload: event.EvolutionApprovedPayload{ID: id, Accepted: a.Accepted}}, nil
	})
}

// shown refuses a yes that names another artifact than c's: what the user
// was shown (digest) is what is approved or activated. "" names none.
func shown(c *protocol.Candidate, digest string) error {
	if digest != "" && digest != c.Digest {
		return refuse(ErrDigest, protocol.ErrConflict, "the text you said yes to (%s) is not %s v%d's (%s); look at it again and answer again", digest, c.Name, c.Version, c.Digest)
	}
	return nil
}

// Refuse is the user's no.
func (s *Store) Refuse(ctx context.Context, id, reason string) (protocol.Candidate, error) {
	if len(reason) > protocol.MaxFragment {
		return protocol.Candidate{}, bad("a reason is at most %d characters", protocol.MaxFragment)
	}
	return s.write(ctx, func(st *state) (string, event.Draft, error) {
		c, err := st.get(id)
		if err != nil {
			return "", event.Draft{}, err
		}
		switch c.State {
		case protocol.CandidateProposed, protocol.CandidateEvaluated, protocol.CandidateApproved:
		default:
			return "", event.Draft{}, refuse(ErrState, protocol.ErrConflict, "%s v%d is %s; roll it back instead", c.Name, c.Version, c.State)
		}
		return id, event.Draft{Type: event.EvolutionRefused, Payload: event.EvolutionRefusedPayload{ID: id, Reason: reason}}, nil
	})
}

// Activate makes an approved candidate active in a's scope. When another
// version of its name is active, a.Replaces must name it: a version is
// never replaced silently, and the one replaced stays for rollback.
func (s *Store) Activate(ctx context.Context, id string, a protocol.Activation) (protocol.Candidate, error) {
	var folder string
	switch a.Scope {
	case protocol.ScopeAll:
	case protocol.ScopeFolder:
		if folder = s.folder(); folder == "" {
			return protocol.Candidate{}, refuse(ErrNoFolder, protocol.ErrConflict, "no notes folder is chosen, so a candidate cannot be activated for it; choose one in Settings, or activate it for every conversation")
		}
	default:
		return protocol.Candidate{}, bad("a candidate is activated for this notes folder (folder) or every conversation (all), not %q", a.Scope)
	}
	return s.write(ctx, func(st *state) (string, event.Draft, error) {
		c, err := st.get(id)
		if err != nil {
			return "", event.Draft{}, err
		}
		if c.State != protocol.CandidateApproved {
			return "", event.Draft{}, refuse(ErrState, protocol.ErrConflict, "%s v%d is %s; only a candidate you approved is activated", c.Name, c.Version, c.State)
		}
		if err := shown(c, a.Digest); err != nil {
			return "", event.Draft{}, err
		}
		now := ""
		if cur := st.active(c.Name); cur != nil {
			now = cur.ID
		}
		if a.Replaces != now {
			if now == "" {
				return "", event.Draft{}, refuse(ErrReplaces, protocol.ErrConflict, "no version of %q is active, so this one replaces none", c.Name)
			}
			cur := st.byID[now]
			return "", event.Draft{}, refuse(ErrReplaces, protocol.ErrConflict, "%s v%d is active; activating v%d replaces it, so say so (replaces %s)", cur.Name, cur.Version, c.Version, now)
		}
		return id, event.Draft{Type: event.EvolutionActivated, Payload: event.EvolutionActivatedPayload{ID: id, Scope: a.Scope, Folder: folder, Replaces: now}}, nil
	})
}

// Rollback ends id's activation ("": the latest activation still in
// force) and makes the version that activation replaced active again, in
// one event.
func (s *Store) Rollback(ctx context.Context, id string) (protocol.Candidate, error) {
	return s.write(ctx, func(st *state) (string, event.Draft, error) {
		if id == "" {
			for _, c := range st.activeNow() {
				if id == "" || st.activated[c.ID] > st.activated[id] {
					id = c.ID
				}
			}
			if id == "" {
				return "", event.Draft{}, refuse(ErrState, protocol.ErrConflict, "no candidate is active, so there is nothing to roll back")
			}
		}
		c, err := st.get(id)
		if err != nil {
			return "", event.Draft{}, err
		}
		if c.State != protocol.CandidateActive {
			return "", event.Draft{}, refuse(ErrState, protocol.ErrConflict, "%s v%d is %s, not active; nothing to roll back", c.Name, c.Version, c.State)
		}
		restored := ""
		if r, ok := st.byID[st.took[id]]; ok && r.State == protocol.CandidateApproved {
			restored = r.ID
		}
		return id, event.Draft{Type: event.EvolutionRolledBack, Payload: event.EvolutionRolledBackPayload{ID: id, Restored: restored}}, nil
	})
}
