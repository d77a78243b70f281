package notes

import (
	"context"
	"errors"
	"fmt"

	"quire/kernel/tool"
)

// Sentinel errors. A tool's error carries one of these (match it with
// errors.Is) wrapped in a sentence the model can act on.
var (
	ErrOutsideRoot   = errors.New("the path is outside the notes folder")
	ErrBadPath       = errors.New("the path is not allowed")
	ErrNotFound      = errors.New("not found")
	ErrExists        = errors.New("already exists")
	ErrNoMatch       = errors.New("the text to replace was not found")
	ErrAmbiguous     = errors.New("the text to replace occurs more than once")
	ErrNotNote       = errors.New("not a note")
	ErrBinary        = errors.New("the file is binary, not text")
	ErrChanged       = errors.New("the note changed since")
	ErrFrontMatter   = errors.New("the front matter cannot be updated safely")
	ErrRequestReused = errors.New("the request id was used for a different request")
	ErrNoChange      = errors.New("the write would change nothing")
	ErrNotWrite      = errors.New("the tool does not change notes")
	ErrReadOnly      = errors.New("the note cannot be written")
	// ErrGraphNotReady is a Linker's answer while its graph has not read
	// the whole folder yet (a first index under way, a rescan after lost
	// events): the move is planned from a scan of the folder instead, so
	// no link a half-read graph does not know is left behind.
	ErrGraphNotReady = errors.New("the link graph has not read the whole folder yet")
	// ErrIndexNotReady is a Finder's answer while its index has not read
	// the whole folder: find_notes reads the files instead.
	ErrIndexNotReady = errors.New("the notes index has not read the whole folder yet")
)

// noteError is a sentence for the model that unwraps to a sentinel.
type noteError struct {
	msg  string
	kind error
}

func (e *noteError) Error() string { return e.msg }
func (e *noteError) Unwrap() error { return e.kind }

// fail builds an error whose text is the formatted sentence and which
// matches kind with errors.Is.
func fail(kind error, format string, args ...any) error {
	return &noteError{msg: fmt.Sprintf(format, args...), kind: kind}
}

// Failure is the Data of a failed result: a stable code for the UI and tests
// (the model reads the sentence in Content).
type Failure struct {
	Error string `json:"error"`
}

var codes = []struct {
	err  error
	code string
}{
	{ErrOutsideRoot, "outside_root"},
	{ErrBadPath, "bad_path"},
	{ErrNotFound, "not_found"},
	{ErrExists, "exists"},
	{ErrNoMatch, "no_match"},
	{ErrAmbiguous, "ambiguous"},
	{ErrNotNote, "not_note"},
	{ErrBinary, "binary"},
	{ErrChanged, "changed"},
	{ErrFrontMatter, "front_matter"},
	{ErrRequestReused, "request_reused"},
	{ErrNoChange, "no_change"},
	{ErrNotWrite, "not_write"},
	{ErrReadOnly, "read_only"},
	{tool.ErrInvalidArgs, "invalid_args"},
	{context.Canceled, "cancelled"},
	{context.DeadlineExceeded, "timeout"},
}

// code names err's sentinel, or "io" for an unexpected system error.
func code(err error) string {
	for _, c := range codes {
		if errors.Is(err, c.err) {
			return c.code
		}
	}
	return "io"
}
