package eval

import "errors"

// Sentinel errors of the eval package.
var (
	// ErrScenario marks a scenario file that cannot be used: it does not
	// parse, names a field the format does not have, or breaks a rule of the
	// format. The message names the file (and the line or field).
	ErrScenario = errors.New("invalid scenario")
	// ErrNoScenarios is a directory or filter that selects nothing.
	ErrNoScenarios = errors.New("no scenarios")
	// ErrNotSettled is a conversation that did not come to rest in the
	// scenario's time limit.
	ErrNotSettled = errors.New("the conversation did not settle")
	// ErrNeverCame is a user's wait for an event that the conversation
	// came to rest without: no run is open, so it can no longer come.
	ErrNeverCame = errors.New("the conversation came to rest without it")
)

// Why a comparison (Compare) left scenarios out.
var (
	ErrCompareScenarios = errors.New("the evaluation runs no more scenarios than its bound")
	ErrCompareTokens    = errors.New("the evaluation's token budget is spent")
	ErrCompareTime      = errors.New("the evaluation's time is up")
)

// ErrReplay is a past run that cannot be replayed (Replayed): it has no
// user message, has not finished, or its log does not read.
var ErrReplay = errors.New("the run cannot be replayed")
