package event

import (
	"context"
	"errors"
	"sync"
)

// Log is the port the kernel writes its history through. Append is the one
// write path: it validates (Encode), assigns consecutive seqs and stores a
// batch atomically, or stores nothing.
type Log interface {
	Append(ctx context.Context, session string, drafts ...Draft) ([]Event, error)
	Events(ctx context.Context, session string, from int64) ([]Event, error)
}

// Errors of the log port; stores return them (wrapped) so the kernel can act
// on them without knowing the store.
var (
	ErrNoSession     = errors.New("no such session")
	ErrSessionExists = errors.New("a session with that id already exists")
	// ErrBadBranch: a branch names a parent session or seq that does not exist.
	ErrBadBranch = errors.New("a branch must start from an existing event of an existing session")
	// ErrHasBranches: a session other sessions branch from cannot be
	// deleted, since their histories begin with its events.
	ErrHasBranches = errors.New("other conversations branch from this one")
	// ErrKeyReused: an idempotency key was used before with a different request.
	ErrKeyReused = errors.New("this idempotency key was already used for a different request")
	// ErrNoSpace: the log could not grow (the disk is full, or the file
	// reached its size limit); nothing of that append was stored, and a
	// later one may succeed once space is freed.
	ErrNoSpace = errors.New("the disk is full")
)

// Once makes a write idempotent: the key is stored with the write, in the same
// transaction, so a retry with the same key and fingerprint has no second
// effect and gets Result back; the same key with another fingerprint is
// ErrKeyReused. Keys survive restarts.
type Once struct {
	Key         string
	Fingerprint string
	Result      []byte
}

// Done is returned with a nil error when a write was skipped because its key
// was seen before; Result is the first write's result.
type Done struct{ Result []byte }

// ErrReentrantAppend: a listener tried to append while being told about an
// append. Allowing it would interleave seq assignment with notification order
// (seed 000 §2), so it is refused rather than debugged later.
var ErrReentrantAppend = errors.New("append from inside an event notification")

type notifyingKey struct{}

// Notifying reports whether ctx is the context of a listener's notification.
func Notifying(ctx context.Context) bool { return ctx.Value(notifyingKey{}) != nil }

// Listener is told about every append, after it committed. ctx marks the
// notification: an Append made with it (or a context derived from it) is
// refused with ErrReentrantAppend. A listener must return quickly; hosts that
// forward events over slow links queue them (see Follow).
type Listener func(ctx context.Context, events []Event)

// Feed wraps a Log so that every append through it is announced to
// listeners. Ordering contract: listeners see the events of each session in
// seq order, each once, with no gap, because notification happens while the
// feed still holds its write turn. Appends made directly on the underlying
// Log bypass listeners; the kernel appends only through its Feed.
type Feed struct {
	log   Log
	bound Bound // of each Follow's queue

	mu        sync.Mutex // serialises append+notify, so notifications keep append order
	listenMu  sync.Mutex
	listeners map[int]Listener
	next      int
}

// FeedOption configures a Feed.
type FeedOption func(*Feed)

// WithBound sets how much each Follow may queue for a reader that has not
// taken it yet (DefaultBound without it).
func WithBound(b Bound) FeedOption { return func(f *Feed) { f.bound = b } }

// NewFeed returns a Feed over log.
func NewFeed(log Log, opts ...FeedOption) *Feed {
	f := &Feed{log: log, bound: DefaultBound, listeners: map[int]Listener{}}
	for _, o := range opts {
		o(f)
	}
	return f
}

// Size is what an event costs a queue: its payload and the envelope's
// fields (session, type, run id, sources), roughly.
func Size(e Event) int {
	return len(e.Payload) + len(e.Session) + len(e.Type) + len(e.RunID) + 8*len(e.Sources) + 96
}

// Listen registers l; the returned func removes it.
func (f *Feed) Listen(l Listener) (stop func()) {
	f.listenMu.Lock()
	id := f.next
	f.next++
	f.listeners[id] = l
	f.listenMu.Unlock()
	return func() {
		f.listenMu.Lock()
		delete(f.listeners, id)
		f.listenMu.Unlock()
	}
}

// Append appends through the underlying log and notifies listeners.
func (f *Feed) Append(ctx context.Context, session string, drafts ...Draft) ([]Event, error) {
	return f.AppendWith(ctx, func(ctx context.Context) ([]Event, error) { return f.log.Append(ctx, session, drafts...) })
}

// AppendWith runs write — any write on the underlying store that returns the
// events it appended, such as creating a session or an idempotent append —
// in the feed's write turn and notifies listeners of its events.
func (f *Feed) AppendWith(ctx context.Context, write func(ctx context.Context) ([]Event, error)) ([]Event, error) {
	if Notifying(ctx) {
		return nil, ErrReentrantAppend
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	evs, err := write(ctx)
	if err != nil || len(evs) == 0 {
		return evs, err
	}
	f.notify(context.WithValue(context.WithoutCancel(ctx), notifyingKey{}, true), evs)
	return evs, nil
}

// Announce notifies listeners of a change that appended nothing (a deleted
// session), in the same order as appends.
func (f *Feed) Announce(ctx context.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.notify(context.WithValue(context.WithoutCancel(ctx), notifyingKey{}, true), nil)
}

func (f *Feed) notify(ctx context.Context, evs []Event) {
	f.listenMu.Lock()
	ls := make([]Listener, 0, len(f.listeners))
	for _, l := range f.listeners {
		ls = append(ls, l)
	}
	f.listenMu.Unlock()
	for _, l := range ls {
		l(ctx, evs)
	}
}

// Events reads from the underlying log.
func (f *Feed) Events(ctx context.Context, session string, from int64) ([]Event, error) {
	return f.log.Events(ctx, session, from)
}

// Follow streams a session's events from seq from on: first what is already
// in the log, then every later append, with no gap and no duplicate however
// appends interleave with the catch-up read. The channel closes when ctx
// ends, when a read fails, or when the reader let more than the feed's
// Bound of live events wait (ErrLagging: it resumes with a new Follow from
// the seq after the last one it got); errp then says which, and is nil
// when ctx ended.
func (f *Feed) Follow(ctx context.Context, session string, from int64) (events <-chan Event, errp func() error) {
	out := make(chan Event)
	var (
		mu      sync.Mutex
		failure error
	)
	fail := func(err error) {
		mu.Lock()
		failure = err
		mu.Unlock()
	}
	pending := NewQueue(f.bound, Size)
	stop := f.Listen(func(_ context.Context, evs []Event) {
		mine := make([]Event, 0, len(evs))
		for _, e := range evs {
			if e.Session == session {
				mine = append(mine, e)
			}
		}
		if len(mine) > 0 {
			pending.Push(mine...)
		}
	})
	go func() {
		defer close(out)
		defer stop()
		next := from
		send := func(e Event) bool {
			if e.Seq < next {
				return true // already sent by the catch-up read
			}
			select {
			case out <- e:
				next = e.Seq + 1
				return true
			case <-ctx.Done():
				return false
			}
		}
		// Listening began before this read, so anything appended after the
		// read started is queued; the seq check drops the overlap.
		past, err := f.log.Events(ctx, session, from)
		if err != nil {
			fail(err)
			return
		}
		for _, e := range past {
			if !send(e) {
				return
			}
		}
		for {
			batch, err := pending.Take(ctx)
			if errors.Is(err, ErrLagging) {
				fail(err)
			}
			if err != nil {
				return
			}
			for _, e := range batch {
				if !send(e) {
					return
				}
			}
		}
	}()
	return out, func() error {
		mu.Lock()
		defer mu.Unlock()
		return failure
	}
}
