package memory

import (
	"errors"

	"quire/kernel/protocol"
)

// Sentinel errors. Errors returned to people wrap one of these and the
// protocol class hosts map to a status, with a sentence that says what to do.
var (
	ErrUnknownItem = errors.New("no memory item has that id")
	ErrEmptyText   = errors.New("the memory text is empty")
	ErrTooLong     = errors.New("the memory text is too long")
	ErrBadKind     = errors.New("unknown kind of memory")
	ErrNotPending  = errors.New("the memory item is not waiting for approval")
	ErrNoWriter    = errors.New("memory is read-only: it is not attached to the runtime")
	ErrNewerSchema = errors.New("the memory tables were written by a newer Quire")
)

func badInput(sentinel error, msg string) error {
	return protocol.Refusal(protocol.ErrBadPayload, sentinel, msg)
}

func notFound(msg string) error {
	return protocol.Refusal(protocol.ErrNotFound, ErrUnknownItem, msg)
}

func conflict(sentinel error, msg string) error {
	return protocol.Refusal(protocol.ErrConflict, sentinel, msg)
}
