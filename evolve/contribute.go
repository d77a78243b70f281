package evolve

import (
	"context"
	"fmt"
	"strings"

	"quire/kernel/protocol"
)

// Fragments is the ContextContributor of the active prompt fragments: the
// ones the user approved and activated for this notes folder or for every
// conversation, evaluated when a run starts. The runtime freezes the text
// into the run's context.text, so `quire replay -request N` of any run
// rebuilds its request with what was active then, and a rollback changes
// only the runs after it.
type Fragments struct{ s *Store }

// Contributor returns the active fragments' contributor.
func (s *Store) Contributor() Fragments { return Fragments{s} }

// Name names the part; the runtime puts it above the text.
func (Fragments) Name() string { return "Evolution" }

// maxContribution bounds the whole text (characters): a handful of
// fragments, never a document. What is cut is counted.
const maxContribution = 4 * protocol.MaxFragment

// Contribute renders the active fragments (Render), each with its name and
// version so the inspector shows which version the model saw.
func (f Fragments) Contribute(ctx context.Context, session string) (string, error) {
	active, err := f.s.Active(ctx)
	if err != nil {
		return "", err
	}
	return Render(active), nil
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
