package evolve

import (
	"context"
	"slices"

	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/skills"
)

// applies reports whether an active candidate applies now: everywhere, or
// in the notes folder chosen now.
func (s *Store) applies(c *protocol.Candidate) bool {
	return c.Scope == protocol.ScopeAll || (c.Scope == protocol.ScopeFolder && c.Folder != "" && c.Folder == s.folder())
}

// applicable is the IDs of the active candidates that apply now.
func (s *Store) applicable(st *state) []string {
	var out []string
	for _, c := range st.activeNow() {
		if s.applies(c) {
			out = append(out, c.ID)
		}
	}
	return out
}

// observations reads every signal and run record of the sessions (the
// evolution log's aside), newest first, the signals bounded by
// maxSignals; it counts each version's runs and signals into st.
func (s *Store) observations(ctx context.Context, st *state) ([]protocol.EvolutionSignal, error) {
	all, err := s.log.Sessions(ctx)
	if err != nil {
		return nil, err
	}
	var out []protocol.EvolutionSignal
	for _, ss := range all {
		if ss.Kind == event.SessionEvolution {
			continue
		}
		sigs, err := s.log.EventsOfType(ctx, ss.ID, event.EvolutionSignal)
		if err != nil {
			return nil, err
		}
		for _, e := range sigs {
			p, err := event.As[event.EvolutionSignalPayload](e)
			if err != nil {
				continue
			}
			out = append(out, protocol.EvolutionSignal{Kind: p.Kind, Session: ss.ID, Run: e.RunID, Seq: e.Seq, Seqs: p.Seqs,
				Text: p.Text, Tool: p.Tool, Versions: p.Versions, At: e.Time.UTC()})
			for _, v := range p.Versions {
				if c, ok := st.byID[v]; ok {
					c.Monitor.Signals[p.Kind]++
				}
			}
		}
		runs, err := s.log.EventsOfType(ctx, ss.ID, event.EvolutionObserved)
		if err != nil {
			return nil, err
		}
		for _, e := range runs {
			if p, err := event.As[event.EvolutionObservedPayload](e); err == nil {
				for _, v := range p.Versions {
					if c, ok := st.byID[v]; ok {
						c.Monitor.Runs++
					}
				}
			}
		}
	}
	slices.SortStableFunc(out, func(a, b protocol.EvolutionSignal) int { return b.At.Compare(a.At) })
	return out, nil
}

// List is every candidate, newest first, with the latest signals.
func (s *Store) List(ctx context.Context) (protocol.EvolutionState, error) {
	st, err := s.read(ctx)
	if err != nil {
		return protocol.EvolutionState{}, err
	}
	sigs, err := s.observations(ctx, st)
	if err != nil {
		return protocol.EvolutionState{}, err
	}
	out := protocol.EvolutionState{Candidates: []protocol.Candidate{}, Signals: sigs[:min(len(sigs), protocol.MaxListedSignals)], Learn: s.Learning()}
	for _, id := range slices.Backward(st.order) {
		out.Candidates = append(out.Candidates, *st.byID[id])
	}
	return out, nil
}

// Signals are the latest signals, newest first, at most limit
// (1..protocol.MaxListedSignals, else the most).
func (s *Store) Signals(ctx context.Context, limit int) ([]protocol.EvolutionSignal, error) {
	if limit < 1 || limit > protocol.MaxListedSignals {
		limit = protocol.MaxListedSignals
	}
	st, err := s.read(ctx)
	if err != nil {
		return nil, err
	}
	sigs, err := s.observations(ctx, st)
	if err != nil {
		return nil, err
	}
	return sigs[:min(len(sigs), limit)], nil
}

// Show is one candidate, the version of its name active now (when another),
// the signals of its origin and those seen while it was active.
func (s *Store) Show(ctx context.Context, id string) (protocol.CandidateDetail, error) {
	st, err := s.read(ctx)
	if err != nil {
		return protocol.CandidateDetail{}, err
	}
	c, err := st.get(id)
	if err != nil {
		return protocol.CandidateDetail{}, err
	}
	sigs, err := s.observations(ctx, st)
	if err != nil {
		return protocol.CandidateDetail{}, err
	}
	out := protocol.CandidateDetail{Candidate: *c, Evidence: []protocol.EvolutionSignal{}, Since: []protocol.EvolutionSignal{}}
	if a := st.active(c.Name); a != nil && a.ID != c.ID {
		cp := *a
		out.Active = &cp
	}
	for _, sg := range sigs {
		if slices.Contains(c.Origin.Signals, protocol.SignalRef{Session: sg.Session, Seq: sg.Seq}) {
			out.Evidence = append(out.Evidence, sg)
		}
		if slices.Contains(sg.Versions, c.ID) {
			out.Since = append(out.Since, sg)
		}
	}
	return out, nil
}

// Active is the active candidates that apply now, in the order they were
// written (the evaluator's "without" side; the contributor's text).
func (s *Store) Active(ctx context.Context) ([]protocol.Candidate, error) {
	st, err := s.read(ctx)
	if err != nil {
		return nil, err
	}
	var out []protocol.Candidate
	for _, c := range st.activeNow() {
		if s.applies(c) {
			out = append(out, *c)
		}
	}
	return out, nil
}

// ActiveSkills are the skill candidates active now that apply here, read
// with issue 19's parser (skills.Evolved: the catalog lists them, so an
// activation reaches the next run and a rollback leaves it out). A stored
// SKILL.md was checked when proposed; one that no longer parses is logged
// and left out, never offered half-read.
func (s *Store) ActiveSkills(ctx context.Context) []skills.Skill {
	active, err := s.Active(ctx)
	if err != nil {
		s.logger.Warn("evolve: read the active skills", "err", err)
		return nil
	}
	var out []skills.Skill
	for _, c := range active {
		if c.Kind != protocol.CandidateSkill || c.Artifact.Skill == nil {
			continue
		}
		sk, err := skills.ParseFile([]byte(c.Artifact.Skill.SkillMD))
		if err != nil {
			s.logger.Warn("evolve: an active skill does not parse", "candidate", c.ID, "err", err)
			continue
		}
		out = append(out, sk)
	}
	return out
}
