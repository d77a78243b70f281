package evolve

import (
	"errors"
	"fmt"

	"quire/kernel/protocol"
)

// Sentinel errors. Errors returned to people wrap one of these and the
// protocol class hosts map to a status, with a sentence that says what to do.
var (
	ErrUnknown     = errors.New("no candidate has that id")
	ErrState       = errors.New("the candidate is not in a state that allows this")
	ErrDigest      = errors.New("the yes names another text than the candidate's")
	ErrBadArtifact = errors.New("the candidate is not one Quire accepts")
	ErrRegressions = errors.New("the evaluation has regressions the approval does not name")
	ErrNoEvaluator = errors.New("no evaluator is set")
	ErrNoFolder    = errors.New("no notes folder is chosen")
	ErrReplaces    = errors.New("the activation does not name the version it replaces")
)

// refuse is a sentence for the user (protocol.Refusal) matching its sentinel and class.
func refuse(sentinel, class error, format string, args ...any) error {
	return protocol.Refusal(class, sentinel, fmt.Sprintf(format, args...))
}

func unknown(id string) error {
	return refuse(ErrUnknown, protocol.ErrNotFound, "no candidate has the id %q; `quire evolve list` shows which there are", id)
}

func bad(format string, args ...any) error {
	return refuse(ErrBadArtifact, protocol.ErrBadPayload, format, args...)
}
