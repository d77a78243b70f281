package compact

import "errors"

// Sentinel errors of the package.
var (
	// ErrNotSmaller: the strategy's replacement would not make the request
	// smaller, so it was discarded.
	ErrNotSmaller = errors.New("the compaction would not make the request smaller; it was discarded")
	// ErrEmptyReply: the model answered a summary or fact request with nothing.
	ErrEmptyReply = errors.New("the model gave an empty answer to the compaction request")
	// ErrBadFacts: the model's facts were not the JSON asked for.
	ErrBadFacts = errors.New("the model's facts are not the JSON object asked for")
)
