package evolve

import (
	"context"

	"quire/kernel/protocol"
)

// Evaluator runs a candidate's isolated evaluation: the eval set and the
// replays of its origin runs (their first user message), each with and
// without the candidate (without: with the version active now, if any), in
// a temporary data folder — never the user's notes. The composition root
// supplies it (issue 20 item 3).
type Evaluator interface {
	// progress, when not nil, is called after each scenario's two runs.
	Evaluate(ctx context.Context, c protocol.Candidate, active *protocol.Candidate, progress Progress) (protocol.EvaluationReport, error)
}

// Progress is how far an evaluation is: done of total scenarios, scenario
// the one that just finished.
type Progress func(done, total int, scenario string)
