package event

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"
)

// Type names a kind of event. Its string is what is stored, so a registered
// name is never renamed.
type Type string

// Visibility says who may see an event outside the kernel.
type Visibility string

const (
	Public    Visibility = "public"
	Internal  Visibility = "internal"
	Sensitive Visibility = "sensitive"
)

// Event is one stored entry of a session's log. Payload holds the bytes that
// were validated and stored; Decode returns a fresh value from them, so no
// reader can change what another reader sees.
type Event struct {
	Session    string
	Seq        int64
	Type       Type
	Time       time.Time
	RunID      string
	Ignorable  bool
	Visibility Visibility
	Sources    []int64
	Payload    json.RawMessage
}

// Draft is an event not yet in the log: the log gives it its session and seq.
type Draft struct {
	Type    Type
	Time    time.Time
	RunID   string
	Sources []int64
	Payload any
}

// Sentinel errors of the codec.
var (
	ErrUnknownType    = errors.New("unknown event type")
	ErrWrongPayload   = errors.New("payload has the wrong type for its event type")
	ErrUnserializable = errors.New("payload cannot be stored as JSON")
	ErrNoTime         = errors.New("event has no time")
	ErrBadReference   = errors.New("event refers to seqs that are not earlier in its session")
)

// Encoded is a draft after validation: its payload bytes are final.
type Encoded struct {
	Type       Type
	Time       time.Time
	RunID      string
	Ignorable  bool
	Visibility Visibility
	Sources    []int64
	Payload    json.RawMessage

	// refs are the seqs of its own session the event refers to (sources, a
	// replaced range); the log checks them against the seq it assigns.
	refs []int64
}

// CheckRefs reports whether every seq the event refers to is earlier than
// seq, the position the log is about to give it: history can only point back.
func (e Encoded) CheckRefs(seq int64) error {
	for _, r := range e.refs {
		if r >= seq {
			return fmt.Errorf("%s at %d refers to %d: %w", e.Type, seq, r, ErrBadReference)
		}
	}
	return nil
}

// Encode validates a draft and produces the bytes to store, in one pass: the
// bytes that were checked are the bytes that are kept (seed 000 §2), so a
// payload cannot look valid while being checked and differ when stored.
func Encode(d Draft) (Encoded, error) {
	spec, ok := specs[d.Type]
	if !ok {
		return Encoded{}, fmt.Errorf("%w %q", ErrUnknownType, d.Type)
	}
	if d.Time.IsZero() {
		return Encoded{}, fmt.Errorf("%s: %w", d.Type, ErrNoTime)
	}
	if got := reflect.TypeOf(d.Payload); got != spec.payload {
		return Encoded{}, fmt.Errorf("%s: %w: got %v, want %v", d.Type, ErrWrongPayload, got, spec.payload)
	}
	payload, err := json.Marshal(d.Payload)
	if err != nil {
		return Encoded{}, fmt.Errorf("%s: %w: %v", d.Type, ErrUnserializable, err)
	}
	refs := append([]int64(nil), d.Sources...)
	if r, ok := d.Payload.(HistoryReplacePayload); ok {
		if r.From > r.To {
			return Encoded{}, fmt.Errorf("%s: range %d..%d is backwards: %w", d.Type, r.From, r.To, ErrBadReference)
		}
		refs = append(refs, r.From, r.To)
	}
	for _, r := range refs {
		if r < 0 {
			return Encoded{}, fmt.Errorf("%s: seq %d: %w", d.Type, r, ErrBadReference)
		}
	}
	return Encoded{
		refs:       refs,
		Type:       d.Type,
		Time:       d.Time.UTC(),
		RunID:      d.RunID,
		Ignorable:  spec.ignorable,
		Visibility: spec.visibility,
		Sources:    append([]int64(nil), d.Sources...),
		Payload:    payload,
	}, nil
}

// ErrNewerEvent reports an event this version of Quire does not understand
// and may not skip: the log was written by a newer Quire.
type ErrNewerEvent struct {
	Session string
	Seq     int64
	Type    Type
}

func (e *ErrNewerEvent) Error() string {
	return fmt.Sprintf("session %s, event %d has type %q, which this version of Quire does not know (written by a newer Quire?); update Quire to open this session", e.Session, e.Seq, e.Type)
}

func (e *ErrNewerEvent) Unwrap() error { return ErrUnknownType }

// Known reports whether a stored event can be read by this version. An
// unknown ignorable event is skipped by readers; an unknown one that is not
// ignorable is an error, because skipping it could silently change what the
// model sees (seed 000 §2: fail loudly rather than compute wrongly).
func Known(e Event) (bool, error) {
	if _, ok := specs[e.Type]; ok {
		return true, nil
	}
	if e.Ignorable {
		return false, nil
	}
	return false, &ErrNewerEvent{Session: e.Session, Seq: e.Seq, Type: e.Type}
}

// ErrUndecodable: a stored payload is not JSON, or is JSON of another shape
// than its type's payload (the file was damaged, or something other than
// Quire wrote it).
var ErrUndecodable = errors.New("payload does not decode")

// Decode returns a fresh copy of the event's payload as its registered Go
// type (a value, not a pointer).
func Decode(e Event) (any, error) {
	spec, ok := specs[e.Type]
	if !ok {
		_, err := Known(e)
		if err == nil {
			err = fmt.Errorf("%w %q", ErrUnknownType, e.Type)
		}
		return nil, err
	}
	// A decoder stops after the first value: bytes after it would pass
	// unseen here and make the payload a host sends on invalid.
	if !json.Valid(e.Payload) {
		return nil, fmt.Errorf("session %s, event %d (%s): %w: it is not JSON", e.Session, e.Seq, e.Type, ErrUndecodable)
	}
	ptr := reflect.New(spec.payload)
	dec := json.NewDecoder(bytes.NewReader(e.Payload))
	if err := dec.Decode(ptr.Interface()); err != nil {
		return nil, fmt.Errorf("session %s, event %d (%s): %w: %w", e.Session, e.Seq, e.Type, ErrUndecodable, err)
	}
	return ptr.Elem().Interface(), nil
}

// Check is the one rule for whether this version can read a stored event:
// its type is known and its payload decodes into that type's payload (an
// unknown ignorable event passes: every reader skips it). The fold, the
// replay of a request and the hosts' reads all apply it to every event, so
// a session one of them cannot read is one none of them shows or drives —
// a record the fold does not need must not be a payload the replay chokes on.
func Check(e Event) error {
	if known, err := Known(e); !known {
		return err
	}
	_, err := Decode(e)
	return err
}

// As decodes an event's payload into T, failing if T is not its registered type.
func As[T any](e Event) (T, error) {
	var zero T
	v, err := Decode(e)
	if err != nil {
		return zero, err
	}
	t, ok := v.(T)
	if !ok {
		return zero, fmt.Errorf("%s: %w: want %T", e.Type, ErrWrongPayload, zero)
	}
	return t, nil
}
