// Package protocol is the language every host (the Wails window, the HTTP
// server, the CLI) speaks to the kernel: session summaries and the events of
// a session as a host may see them.
//
// It owns only plain, JSON-tagged data. It must never import kernel/core,
// kernel/store, a model client, Wails, memory/, rag/ or tools/: hosts read
// these types and nothing deeper.
package protocol

import (
	"context"
	"encoding/json"
	"time"
)

// Version of the host protocol. A host whose major version differs is refused.
const Version = "1.0"

// Visibility says who may see an event.
type Visibility string

const (
	Public    Visibility = "public"    // every host shows it
	Internal  Visibility = "internal"  // kernel bookkeeping; hosts may show it in a trace view
	Sensitive Visibility = "sensitive" // never sent to a frontend unless it asks explicitly
)

// Event is one entry of a session's log as a host sees it. Seq is per session,
// from 0, without gaps: a host that has seen seq n asks for n+1 to resume.
type Event struct {
	Session    string          `json:"session"`
	Seq        int64           `json:"seq"`
	Type       string          `json:"type"`
	Time       time.Time       `json:"time"`
	RunID      string          `json:"runId,omitempty"`
	Visibility Visibility      `json:"visibility"`
	Sources    []int64         `json:"sources,omitempty"`
	Payload    json.RawMessage `json:"payload"`
}

// SessionWorker is the Kind of a task queue worker's session (Session.Kind).
const SessionWorker = "worker"

// Session is the summary a sessions list shows.
type Session struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	LastSeq   int64     `json:"lastSeq"`
	Running   bool      `json:"running"`
	// Status is whether the kernel has the session attached; RunStatus what
	// its run is doing (idle, streaming, awaiting-permission,
	// executing-tools, closing).
	Status    string `json:"status,omitempty"`
	RunStatus string `json:"runStatus,omitempty"`
	// A branch names the session and seq it forks from.
	Parent    string `json:"parent,omitempty"`
	ParentSeq int64  `json:"parentSeq,omitempty"`
	// Kind is SessionWorker for a task queue worker's session: a host
	// leaves it out of the user's chats (the list, the newest opened at
	// start) and shows it from the batch that made it. "" is a chat.
	Kind string `json:"kind,omitempty"`
	// Damaged says why the session's log cannot be read (an event that does
	// not decode), empty when it can. A damaged session is listed and may be
	// deleted, and every other command to it is refused (ErrDamaged); the
	// other sessions are not affected.
	Damaged string `json:"damaged,omitempty"`
}

// Update is what a host receives as the log grows: new events (one append's
// worth, in seq order) and, when the list changed, every session.
type Update struct {
	Events   []Event   `json:"events,omitempty"`
	Sessions []Session `json:"sessions,omitempty"`
}

// Kernel is what a host may ask of the kernel. Every host (window, HTTP, CLI)
// uses this and nothing deeper. Events carry their visibility; each host
// filters them for its audience with Filter.
type Kernel interface {
	// Execute carries out a command (see Command for idempotency).
	Execute(ctx context.Context, cmd Command) (json.RawMessage, error)
	Sessions(ctx context.Context) ([]Session, error)
	// Events returns a session's events with seq >= from.
	Events(ctx context.Context, session string, from int64) ([]Event, error)
	// Follow streams a session's events from seq from on, stored then live,
	// with no gap and no duplicate, until ctx ends; errp reports why it
	// stopped early (ErrLagging: the reader fell behind its bound and
	// follows again from the seq after its last one).
	Follow(ctx context.Context, session string, from int64) (events <-chan Event, errp func() error)
	// Watch delivers every later Update, in order, until ctx ends or the
	// reader lets too much wait; errp, read after the channel closed, is
	// then ErrLagging (nil when ctx ended): the host watches again and
	// reloads each session it shows from the seq after its last one.
	Watch(ctx context.Context) (updates <-chan Update, errp func() error)
}

// Audience says which events a host's reader may see. Public events reach
// everyone; internal ones only a trace view; sensitive ones only when asked
// for explicitly.
type Audience struct {
	Internal  bool
	Sensitive bool
}

// Sees reports whether the audience may see an event of visibility v. An
// unknown visibility is treated as sensitive.
func (a Audience) Sees(v Visibility) bool {
	switch v {
	case Public:
		return true
	case Internal:
		return a.Internal
	default:
		return a.Sensitive
	}
}

// Filter keeps the events the audience may see, in order.
func Filter(evs []Event, a Audience) []Event {
	out := make([]Event, 0, len(evs))
	for _, e := range evs {
		if a.Sees(e.Visibility) {
			out = append(out, e)
		}
	}
	return out
}

// Unavailable is the Kernel a host gets when the kernel could not start (a
// damaged or newer database): every call answers Err, so the host can still
// open and say what is wrong.
type Unavailable struct{ Err error }

func (u Unavailable) Execute(context.Context, Command) (json.RawMessage, error) { return nil, u.Err }
func (u Unavailable) Sessions(context.Context) ([]Session, error)               { return nil, u.Err }
func (u Unavailable) Events(context.Context, string, int64) ([]Event, error)    { return nil, u.Err }
func (u Unavailable) Follow(ctx context.Context, _ string, _ int64) (<-chan Event, func() error) {
	ch := make(chan Event)
	close(ch)
	return ch, func() error { return u.Err }
}
func (u Unavailable) Watch(ctx context.Context) (<-chan Update, func() error) {
	ch := make(chan Update)
	go func() { <-ctx.Done(); close(ch) }()
	return ch, func() error { return nil }
}
