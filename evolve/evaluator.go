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
	Evaluate(ctx context.Context, c protocol.Candidate, active *protocol.Candidate) (protocol.EvaluationReport, error)
}
