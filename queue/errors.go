package queue

import (
	"errors"
	"fmt"

	"quire/kernel/protocol"
)

// Sentinel errors. Errors returned to people wrap one of these and the
// protocol class hosts map to a status, with a sentence that says what to do.
var (
	ErrUnknownBatch = errors.New("no batch has that id")
	ErrState        = errors.New("the batch is not in a state that allows this")
	ErrBadFolder    = errors.New("the folder cannot be organised")
	ErrTooMany      = errors.New("the folder holds more notes than one batch takes")
	ErrBadDecision  = errors.New("the answer names an item the batch does not hold")
	ErrLeaseLost    = errors.New("the task's claim ended before its result was put")
	ErrNoNotes      = errors.New("no notes folder is chosen")
	ErrNewerSchema  = errors.New("the queue tables were written by a newer Quire")
)

// refuse is a sentence for the user (protocol.Refusal) matching its sentinel and class.
func refuse(sentinel, class error, format string, args ...any) error {
	return protocol.Refusal(class, sentinel, fmt.Sprintf(format, args...))
}

func unknown(id string) error {
	return refuse(ErrUnknownBatch, protocol.ErrNotFound, "no batch has the id %q; list the batches to see which there are", id)
}
