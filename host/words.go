package host

import (
	"errors"

	"quire/kernel/protocol"
)

// DiskFull is what the page says, in the window and in `quire serve`
// alike, when the disk had no room for a command (protocol.ErrNoSpace).
// The page is one, so its sentence is one: both hosts make it here, at
// their edge, and the kernel's error strings stay lowercase facts.
const DiskFull = "the disk is full, so Quire could not save this. Free some space on the disk that holds Quire's data folder, then try again."

// Spoken is err with the page's words for the kernel's error classes that
// need them (a full disk): its message is the sentence, and errors.Is
// still finds the class and the cause. Any other error already says what
// happened and comes back as it is; nil stays nil.
func Spoken(err error) error {
	if errors.Is(err, protocol.ErrNoSpace) {
		return sentence{text: DiskFull, cause: err}
	}
	return err
}

// sentence is an error whose message is the page's words for its cause.
type sentence struct {
	text  string
	cause error
}

func (e sentence) Error() string { return e.text }
func (e sentence) Unwrap() error { return e.cause }
