package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Command is a request from a host. IdempotencyKey, when set, makes it safe
// to send again: the same key with the same type and payload returns the
// first result and has no second effect; the same key with anything else is
// ErrIdempotencyConflict. Keys are stored with the effect and survive restarts.
type Command struct {
	ID             string          `json:"commandId"`
	IdempotencyKey string          `json:"idempotencyKey,omitempty"`
	Type           string          `json:"type"`
	Payload        json.RawMessage `json:"payload"`
	Version        string          `json:"protocolVersion"`
}

// Command types and their payloads.
const (
	CreateSession = "session.create"    // CreateSessionPayload -> Session
	RenameSession = "session.rename"    // RenameSessionPayload -> Session
	DeleteSession = "session.delete"    // SessionRef -> {}
	SendMessage   = "message.send"      // SendMessagePayload -> SendResult
	CancelRun     = "run.cancel"        // SessionRef -> {}
	AnswerAsk     = "permission.answer" // AnswerPayload -> {}
)

type CreateSessionPayload struct {
	Title string `json:"title"`
	// Branch from another session: its history up to and including ParentSeq.
	Parent    string `json:"parent,omitempty"`
	ParentSeq int64  `json:"parentSeq,omitempty"`
	// Kind is SessionWorker for a task queue worker's session, else "".
	Kind string `json:"kind,omitempty"`
}

type RenameSessionPayload struct {
	Session string `json:"session"`
	Title   string `json:"title"`
}

type SessionRef struct {
	Session string `json:"session"`
}

// SendMessagePayload is a message from the user. Intent is when it is taken
// up: "follow_up" (the default: the next run, queued if one is going),
// "steer" (the next step of the run that is going) or "inject" (the next
// step whenever it comes, without starting one).
type SendMessagePayload struct {
	Session string `json:"session"`
	Text    string `json:"text"`
	Intent  string `json:"intent,omitempty"`
}

// AnswerPayload answers a permission question in-page (the window answers
// with a native dialog instead).
type AnswerPayload struct {
	Session  string   `json:"session"`
	CallIDs  []string `json:"callIds"`
	Allowed  bool     `json:"allowed"`
	Feedback string   `json:"feedback,omitempty"`
}

type SendResult struct {
	RunID string `json:"runId"`
}

// Sentinel errors of the protocol.
var (
	ErrIdempotencyConflict = errors.New("this idempotency key was already used for a different command")
	ErrIncompatible        = errors.New("incompatible protocol version")
	ErrUnknownCommand      = errors.New("unknown command type")
	ErrBadPayload          = errors.New("the command's payload is not what its type expects")
	// ErrNotFound and ErrConflict classify kernel errors for hosts (HTTP 404,
	// 409) without hosts knowing the kernel's own sentinels.
	ErrNotFound = errors.New("not found")
	ErrConflict = errors.New("conflicts with the current state")
	// ErrNoSpace classifies a command the disk had no room to record
	// (HTTP 507): nothing of it was saved; hosts say so in words and ask
	// the user to free some space, then try again.
	ErrNoSpace = errors.New("the disk is full")
	// ErrDamaged classifies a command refused because the session's log
	// cannot be read (Session.Damaged says why); HTTP 409 too, but a host
	// tells the user the conversation is damaged, not that it is busy.
	ErrDamaged = errors.New("the conversation's log is damaged")
	// ErrLagging ends a Watch or Follow whose reader fell too far behind to
	// be kept waiting; the host reloads from the last seq it saw.
	ErrLagging = errors.New("fell behind the log")
)

// Classify marks err as being of kind (one of the sentinels above) while
// keeping err's message and chain.
func Classify(kind, err error) error {
	if err == nil {
		return nil
	}
	return classified{err: err, kind: kind}
}

type classified struct{ err, kind error }

func (c classified) Error() string   { return c.err.Error() }
func (c classified) Unwrap() []error { return []error{c.err, c.kind} }

// Refusal is a sentence for the user, msg, that still matches its domain's
// sentinel and its protocol class (one of the sentinels above) with
// errors.Is — a refusal worded at the edge of a domain package (memory, the
// task queue) that hosts map to a status without a word of the sentinel's.
func Refusal(class, sentinel error, msg string) error {
	return refusal{msg: msg, sentinel: sentinel, class: class}
}

// Refusef is Refusal with the sentence formatted (fmt.Sprintf).
func Refusef(class, sentinel error, format string, args ...any) error {
	return Refusal(class, sentinel, fmt.Sprintf(format, args...))
}

type refusal struct {
	msg             string
	sentinel, class error
}

func (r refusal) Error() string   { return r.msg }
func (r refusal) Unwrap() []error { return []error{r.sentinel, r.class} }

// Compatible reports whether a peer speaking version v may talk to this
// kernel: the major versions must match. It is the handshake, and it comes
// before anything else a host accepts.
func Compatible(v string) error {
	peer, err := major(v)
	if err != nil {
		return fmt.Errorf("%w: %q is not a version like %q", ErrIncompatible, v, Version)
	}
	ours, _ := major(Version)
	if peer != ours {
		return fmt.Errorf("%w: this Quire speaks %s, the other side %s; update the older one", ErrIncompatible, Version, v)
	}
	return nil
}

func major(v string) (int, error) {
	m, _, _ := strings.Cut(v, ".")
	return strconv.Atoi(m)
}

// NewCommand builds a command of this protocol version.
func NewCommand(id, idempotencyKey, typ string, payload any) (Command, error) {
	b, err := json.Marshal(payload)
	if err != nil {
		return Command{}, fmt.Errorf("%w: %v", ErrBadPayload, err)
	}
	return Command{ID: id, IdempotencyKey: idempotencyKey, Type: typ, Payload: b, Version: Version}, nil
}

// Run builds and executes a command, decoding its result into T.
func Run[T any](ctx context.Context, k Kernel, idempotencyKey, typ string, payload any) (T, error) {
	var out T
	cmd, err := NewCommand("", idempotencyKey, typ, payload)
	if err != nil {
		return out, err
	}
	res, err := k.Execute(ctx, cmd)
	if err != nil {
		return out, err
	}
	if err := json.Unmarshal(res, &out); err != nil {
		return out, fmt.Errorf("result of %s: %w", typ, err)
	}
	return out, nil
}
