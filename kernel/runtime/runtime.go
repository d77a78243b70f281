package runtime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"sync"
	"time"

	"quire/kernel/event"
	"quire/kernel/history"
	"quire/kernel/protocol"
	"quire/kernel/provider"
)

// Store is what the runtime needs of the event store.
type Store interface {
	event.Log
	history.Source
	CreateSession(ctx context.Context, id, title string, at time.Time, parent *event.BranchPoint, once *event.Once) ([]event.Event, *event.Done, error)
	AppendOnce(ctx context.Context, once event.Once, session string, drafts ...event.Draft) ([]event.Event, *event.Done, error)
	DeleteSession(ctx context.Context, id string, once *event.Once) (*event.Done, error)
	Sessions(ctx context.Context) ([]event.SessionSummary, error)
	Recall(ctx context.Context, key string) (fingerprint string, result []byte, found bool, err error)
}

// Sentinel errors, also used as cancellation causes so the reason a run
// stopped survives into its terminal event.
var (
	ErrSessionBusy     = errors.New("this conversation is still answering; wait for it or press Stop")
	ErrEmptyMessage    = errors.New("the message is empty")
	ErrCancelledByUser = errors.New("stopped by the user")
	ErrSessionDeleted  = errors.New("the conversation was deleted")
	ErrShutdown        = errors.New("Quire is shutting down")
)

// Settings are the model settings a run uses; they are read when it starts.
type Settings struct {
	Model  string
	NumCtx int
}

// Update is what subscribers receive (see protocol.Update).
type Update = protocol.Update

// Option configures a Runtime; tests use options to fix the clock and ids.
type Option func(*Runtime)

// WithClock sets the source of event times.
func WithClock(now func() time.Time) Option { return func(r *Runtime) { r.now = now } }

// WithIDs sets the generator of session and run ids.
func WithIDs(newID func() string) Option { return func(r *Runtime) { r.newID = newID } }

// WithFlushEvery sets how often streamed deltas are appended as one batch.
func WithFlushEvery(d time.Duration) Option { return func(r *Runtime) { r.flushEvery = d } }

// WithLogger sets the logger.
func WithLogger(l *slog.Logger) Option { return func(r *Runtime) { r.log = l } }

// Runtime drives the sessions of one database. It is safe for concurrent use.
type Runtime struct {
	store      Store
	feed       *event.Feed
	history    *history.Projector
	model      provider.Provider
	now        func() time.Time
	newID      func() string
	flushEvery time.Duration
	log        *slog.Logger

	base context.Context
	stop context.CancelCauseFunc
	wg   sync.WaitGroup

	mu       sync.Mutex
	settings Settings
	running  map[string]*activeRun // by session
}

// activeRun is a run in flight: done closes after its terminal event.
type activeRun struct {
	cancel context.CancelCauseFunc
	done   chan struct{}
}

// New returns a Runtime over a store and a model.
func New(st Store, model provider.Provider, settings Settings, opts ...Option) *Runtime {
	r := &Runtime{
		store: st, feed: event.NewFeed(st), history: history.NewProjector(st), model: model, settings: settings,
		now: time.Now, newID: randomID, flushEvery: 40 * time.Millisecond, log: slog.Default(),
		running: map[string]*activeRun{},
	}
	for _, o := range opts {
		o(r)
	}
	r.base, r.stop = context.WithCancelCause(context.Background())
	return r
}

func randomID() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b[:])
}

// SetSettings changes the model settings for runs that start later.
func (r *Runtime) SetSettings(s Settings) {
	r.mu.Lock()
	r.settings = s
	r.mu.Unlock()
}

// Recover closes runs that a crash left open: each gets a run.finished event
// with reason interrupted, so every run has exactly one terminal event.
func (r *Runtime) Recover(ctx context.Context) error {
	sessions, err := r.store.Sessions(ctx)
	if err != nil {
		return err
	}
	for _, s := range sessions {
		events, err := r.store.Events(ctx, s.ID, 0)
		if err != nil {
			return err
		}
		open := map[string]bool{}
		var order []string
		for _, e := range events {
			switch e.Type {
			case event.RunStarted:
				open[e.RunID] = true
				order = append(order, e.RunID)
			case event.RunFinished:
				delete(open, e.RunID)
			}
		}
		for _, run := range order {
			if !open[run] {
				continue
			}
			r.log.Info("closing a run left open by a crash", "session", s.ID, "run", run)
			if _, err := r.feed.Append(ctx, s.ID, event.Draft{Type: event.RunFinished, Time: r.now(), RunID: run,
				Payload: event.RunFinishedPayload{Reason: event.ReasonInterrupted, Error: "Quire stopped before this reply finished."}}); err != nil {
				return err
			}
		}
	}
	return nil
}

// Close cancels every run with ErrShutdown and waits for their terminal events.
func (r *Runtime) Close() {
	r.stop(ErrShutdown)
	r.wg.Wait()
}

// Subscribe registers fn for every later update; the returned func removes
// it. fn runs in the appending goroutine, in append order (event.Feed), and
// must not block.
func (r *Runtime) Subscribe(fn func(Update)) (unsubscribe func()) {
	return r.feed.Listen(func(ctx context.Context, evs []event.Event) {
		u := Update{Events: toProtocol(evs)}
		if sessionListChanges(evs) {
			list, err := r.Sessions(ctx)
			if err != nil {
				r.log.Warn("list sessions for subscribers", "err", err)
			} else if list == nil {
				list = []protocol.Session{}
			}
			u.Sessions = list
		}
		if len(u.Events) > 0 || u.Sessions != nil {
			fn(u)
		}
	})
}

// sessionListChanges says whether a sessions list shown to the user changes
// with these events; an announcement without events is a deletion.
func sessionListChanges(evs []event.Event) bool {
	if len(evs) == 0 {
		return true
	}
	for _, e := range evs {
		switch e.Type {
		case event.SessionCreated, event.SessionRenamed, event.RunStarted, event.RunFinished, event.UserMessage:
			return true
		}
	}
	return false
}

// Sessions lists sessions, most recently updated first.
func (r *Runtime) Sessions(ctx context.Context) ([]protocol.Session, error) {
	rows, err := r.store.Sessions(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]protocol.Session, len(rows))
	r.mu.Lock()
	for i, s := range rows {
		out[i] = r.sessionOf(s)
	}
	r.mu.Unlock()
	return out, nil
}

// sessionOf must be called with r.mu held.
func (r *Runtime) sessionOf(s event.SessionSummary) protocol.Session {
	_, running := r.running[s.ID]
	out := protocol.Session{ID: s.ID, Title: s.Title, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt, LastSeq: s.LastSeq, Running: running}
	if s.Parent != nil {
		out.Parent, out.ParentSeq = s.Parent.Session, s.Parent.Seq
	}
	return out
}

func (r *Runtime) session(ctx context.Context, id string) (protocol.Session, error) {
	s, err := r.store.Session(ctx, id)
	if err != nil {
		return protocol.Session{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sessionOf(s), nil
}

// Events returns a session's events from seq on, with their visibility; a
// host filters them for its audience (protocol.Filter).
func (r *Runtime) Events(ctx context.Context, id string, from int64) ([]protocol.Event, error) {
	evs, err := r.store.Events(ctx, id, from)
	if err != nil {
		return nil, err
	}
	if len(evs) == 0 {
		// Nothing new, or no such session: a host must be able to tell.
		if _, err := r.store.Session(ctx, id); err != nil {
			return nil, protocol.Classify(protocol.ErrNotFound, err)
		}
	}
	return toProtocol(evs), nil
}

func toProtocol(evs []event.Event) []protocol.Event {
	out := make([]protocol.Event, len(evs))
	for i, e := range evs {
		out[i] = protocol.Event{Session: e.Session, Seq: e.Seq, Type: string(e.Type), Time: e.Time,
			RunID: e.RunID, Visibility: protocol.Visibility(e.Visibility), Sources: e.Sources, Payload: e.Payload}
	}
	return out
}

// Follow streams a session's events from seq from on, first the stored ones
// then each new one, with no gap and no duplicate (event.Feed.Follow).
func (r *Runtime) Follow(ctx context.Context, id string, from int64) (<-chan protocol.Event, func() error) {
	in, errp := r.feed.Follow(ctx, id, from)
	out := make(chan protocol.Event)
	go func() {
		defer close(out)
		for e := range in {
			select {
			case out <- toProtocol([]event.Event{e})[0]:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, errp
}

var _ protocol.Kernel = (*Runtime)(nil)
