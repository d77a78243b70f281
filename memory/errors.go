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

// inputError is a clear sentence for the user that still matches both its
// sentinel and its protocol class with errors.Is.
type inputError struct {
	msg             string
	sentinel, class error
}

func (e *inputError) Error() string   { return e.msg }
func (e *inputError) Unwrap() []error { return []error{e.sentinel, e.class} }

func badInput(sentinel error, msg string) error {
	return &inputError{msg: msg, sentinel: sentinel, class: protocol.ErrBadPayload}
}

func notFound(msg string) error {
	return &inputError{msg: msg, sentinel: ErrUnknownItem, class: protocol.ErrNotFound}
}

func conflict(sentinel error, msg string) error {
	return &inputError{msg: msg, sentinel: sentinel, class: protocol.ErrConflict}
}
