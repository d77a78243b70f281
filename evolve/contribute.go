package evolve

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"quire/kernel/prompt"
	"quire/kernel/protocol"
)

// Fragments is the ContextContributor of the active prompt fragments: the
// ones the user approved and activated for this notes folder or for every
// conversation. The set is resolved once per run, when the run opens
// (prompt.Run names it), and every later step's refreshed context of that
// run gets the same set: an activation or a rollback made mid-reply
// changes the runs after it only, as the dialogs and the README say. The
// runtime freezes the text into the run's context.text, so `quire replay
// -request N` of any run rebuilds its request with what was active then.
type Fragments struct{ s *Store }

// Contributor returns the active fragments' contributor.
func (s *Store) Contributor() Fragments { return Fragments{s} }

// Name names the part; the runtime puts it above the text.
func (Fragments) Name() string { return "Evolution" }

// maxContribution bounds the whole text (characters): a handful of
// fragments, never a document. What is cut is counted.
const maxContribution = 4 * protocol.MaxFragment

// Contribute renders the fragments active when the run opened (Render),
// each with its name and version so the inspector shows which version the
// model saw.
func (f Fragments) Contribute(ctx context.Context, session string) (string, error) {
	active, err := f.s.activeFor(ctx, prompt.Run(ctx))
	if err != nil {
		return "", err
	}
	return Render(active), nil
}

// maxRuns bounds the runs whose active set is held: a run's entry goes when
// the observer sees it finish, and a run that never reports its end (a
// worker's runtime, which has no observer; a process stopped mid-run) is
// dropped oldest first past this many.
const maxRuns = 256

// runSets is the active set each open run was resolved with, by run id.
type runSets struct {
	mu    sync.Mutex
	sets  map[string][]protocol.Candidate
	order []string
}

func (r *runSets) get(run string) ([]protocol.Candidate, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	set, ok := r.sets[run]
	return set, ok
}

// put keeps set for run unless one is held already (two steps resolving
// the same run at once keep the first), and returns the one held.
func (r *runSets) put(run string, set []protocol.Candidate) []protocol.Candidate {
	r.mu.Lock()
	defer r.mu.Unlock()
	if held, ok := r.sets[run]; ok {
		return held
	}
	if r.sets == nil {
		r.sets = map[string][]protocol.Candidate{}
	}
	if len(r.order) >= maxRuns {
		delete(r.sets, r.order[0])
		r.order = r.order[1:]
	}
	r.sets[run] = set
	r.order = append(r.order, run)
	return set
}

// take removes run's set and says whether one was held.
func (r *runSets) take(run string) ([]protocol.Candidate, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	set, ok := r.sets[run]
	if ok {
		delete(r.sets, run)
		r.order = slices.DeleteFunc(r.order, func(id string) bool { return id == run })
	}
	return set, ok
}

// activeFor is the active set of run: resolved now the first time run
// asks, the same ever after. With no run (an assembly outside a run) it is
// what is active now.
func (s *Store) activeFor(ctx context.Context, run string) ([]protocol.Candidate, error) {
	if run == "" {
		return s.Active(ctx)
	}
	if set, ok := s.runs.get(run); ok {
		return set, nil
	}
	active, err := s.Active(ctx)
	if err != nil {
		return nil, err
	}
	if active == nil {
		active = []protocol.Candidate{} // none active is a set too: an activation mid-run adds nothing
	}
	return s.runs.put(run, active), nil
}

// versionsOf are the ids of the candidates the run was sent, when its set
// was resolved in this process (ok false otherwise), and forgets the run.
func (s *Store) versionsOf(run string) (ids []string, ok bool) {
	set, ok := s.runs.take(run)
	for _, c := range set {
		ids = append(ids, c.ID)
	}
	return ids, ok
}

// Render is the text the model is told of these candidates' prompt
// fragments (others are skipped), as a run with them active is: the
// isolated evaluation renders a candidate with it too, so what it measures
// is what activation sends.
func Render(active []protocol.Candidate) string {
	var b strings.Builder
	cut := 0
	for _, c := range active {
		if c.Kind != protocol.CandidatePrompt || c.Artifact.Prompt == nil {
			continue
		}
		line := fmt.Sprintf("- %s (v%d, %s): %s\n", c.Name, c.Version, c.ID, strings.TrimSpace(c.Artifact.Prompt.Text))
		if b.Len()+len(line) > maxContribution {
			cut++
			continue
		}
		if b.Len() == 0 {
			b.WriteString("How this user wants things done (rules the user approved):\n")
		}
		b.WriteString(line)
	}
	if cut > 0 {
		fmt.Fprintf(&b, "(%d more approved rules did not fit.)\n", cut)
	}
	return strings.TrimRight(b.String(), "\n")
}
