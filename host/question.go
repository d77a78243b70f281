package host

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"sync"
	"time"

	"quire/kernel/protocol"
)

// Questions holds the permission questions a host is asking, each with
// every call's whole description, so that a page that loads (or reloads)
// while one is open can show it. The window puts them to a native dialog;
// `quire serve` to the page's own card. Safe for concurrent use; the zero
// value is empty.
type Questions struct {
	mu   sync.Mutex
	next int
	open map[string]*OpenQuestion
	// changed is closed, and replaced, on every Add and Remove: a watcher
	// waits on it and reads the list again, so none of them can fall behind
	// or hold anything but the list as it is.
	changed chan struct{}
}

// OpenQuestion is a question on the board.
type OpenQuestion struct {
	q     protocol.Question
	shown chan struct{} // closed once the page has shown it
	once  sync.Once
}

// Shown is closed once the page has said it showed the question in full.
func (o *OpenQuestion) Shown() <-chan struct{} { return o.shown }

// ErrNoQuestion: the page named a question that is no longer open.
var ErrNoQuestion = errors.New("that question is no longer open (it was answered, or its request stopped); nothing to show")

// Add gives q its id (q1, q2, … for this host's life) and keeps it until
// Remove.
func (b *Questions) Add(q protocol.Question) (protocol.Question, *OpenQuestion) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.open == nil {
		b.open = map[string]*OpenQuestion{}
	}
	b.next++
	q.ID = "q" + strconv.Itoa(b.next)
	o := &OpenQuestion{q: q, shown: make(chan struct{})}
	b.open[q.ID] = o
	b.changedLocked()
	return q, o
}

// Remove lets the question id go (it closed).
func (b *Questions) Remove(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.open[id]; !ok {
		return
	}
	delete(b.open, id)
	b.changedLocked()
}

// Show records that the page has shown question id in full.
func (b *Questions) Show(id string) error {
	b.mu.Lock()
	o, ok := b.open[id]
	b.mu.Unlock()
	if !ok {
		return ErrNoQuestion
	}
	o.once.Do(func() { close(o.shown) })
	return nil
}

// List is every open question, oldest first.
func (b *Questions) List() []protocol.Question {
	list, _ := b.Watch()
	return list
}

// Watch is every open question, oldest first, and a channel closed at the
// next change of that list.
func (b *Questions) Watch() ([]protocol.Question, <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.changed == nil {
		b.changed = make(chan struct{})
	}
	out := make([]protocol.Question, 0, len(b.open))
	for _, o := range b.open {
		out = append(out, o.q)
	}
	slices.SortFunc(out, func(x, y protocol.Question) int { // q9 before q10
		if c := cmp.Compare(len(x.ID), len(y.ID)); c != 0 {
			return c
		}
		return cmp.Compare(x.ID, y.ID)
	})
	return out, b.changed
}

func (b *Questions) changedLocked() {
	if b.changed != nil {
		close(b.changed)
	}
	b.changed = make(chan struct{})
}

// QuestionEnd is how the log closed a question.
type QuestionEnd struct {
	Yes       bool // the user's own yes (permission.answered, allowed, not by default)
	Allowed   bool
	ByDefault bool // the deadline answered
}

// QuestionFate is a question as the run's log tells it: when it expires and
// how it closed. Both are read from the session's events, the one account
// of what happened, whichever host answered.
type QuestionFate struct {
	mu      sync.Mutex
	expires time.Time
	closed  chan struct{} // closed once end is set
	end     QuestionEnd
}

// Closed is closed once the log has closed the question.
func (f *QuestionFate) Closed() <-chan struct{} { return f.closed }

// End is how the question closed; meaningful once Closed is.
func (f *QuestionFate) End() QuestionEnd { return f.end }

// Deadline is when the question's deadline answers it, zero when it has
// none or the log has not said yet.
func (f *QuestionFate) Deadline() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.expires
}

// FollowQuestion reads q's session from its permission.requested on (the
// runtime logs it before it asks) until an event closes the question: a
// permission.answered for its calls, a refusal of one (the deadline, a
// stop), one of them starting, or the end of its run. It stops with ctx,
// or when the session cannot be read (the question then never closes from
// here; the run's own context still ends the asking).
func FollowQuestion(ctx context.Context, k protocol.Kernel, q protocol.Question) *QuestionFate {
	f := &QuestionFate{closed: make(chan struct{})}
	ids := make(map[string]bool, len(q.Calls))
	for _, c := range q.Calls {
		ids[c.ID] = true
	}
	ours := func(e protocol.Event) bool {
		if e.Type != "permission.requested" || e.RunID != q.RunID {
			return false
		}
		var p struct {
			Calls      []struct{ ID string } `json:"calls"`
			DeadlineNS int64                 `json:"deadlineNs"`
		}
		if json.Unmarshal(e.Payload, &p) != nil || len(p.Calls) != len(ids) {
			return false
		}
		for _, c := range p.Calls {
			if !ids[c.ID] {
				return false
			}
		}
		if p.DeadlineNS > 0 {
			f.mu.Lock()
			f.expires = time.Unix(0, p.DeadlineNS)
			f.mu.Unlock()
		}
		return true
	}
	// Start at the latest request for these calls already in the log: a
	// model that reuses call ids asked an earlier question about the same ones.
	var from int64
	if evs, err := k.Events(ctx, q.Session, 0); err == nil {
		for _, e := range evs {
			if ours(e) {
				from = e.Seq
			}
		}
	}
	go func() {
		seen := false
		for {
			evs, _ := k.Follow(ctx, q.Session, from)
			progressed := false
			for e := range evs {
				from, progressed = e.Seq+1, true
				if ours(e) {
					seen = true
					continue
				}
				if !seen {
					continue
				}
				if end, ok := closes(e, q.RunID, ids); ok {
					f.end = end
					close(f.closed)
					return
				}
			}
			// A stream that ended after some events (a slow reader cut off)
			// resumes where it was; one that gave nothing will not either.
			if ctx.Err() != nil || !progressed {
				return
			}
		}
	}()
	return f
}

// closes reports whether e closes a question about ids in run, and how.
func closes(e protocol.Event, run string, ids map[string]bool) (QuestionEnd, bool) {
	switch e.Type {
	case "permission.answered":
		var p struct {
			CallIDs   []string `json:"callIds"`
			Allowed   bool     `json:"allowed"`
			ByDefault bool     `json:"byDefault"`
		}
		if json.Unmarshal(e.Payload, &p) == nil && slices.ContainsFunc(p.CallIDs, func(id string) bool { return ids[id] }) {
			return QuestionEnd{Yes: p.Allowed && !p.ByDefault, Allowed: p.Allowed, ByDefault: p.ByDefault}, true
		}
	case "tool.refused", "tool.started":
		var p struct {
			CallID string `json:"callId"`
			Status string `json:"status"`
		}
		if json.Unmarshal(e.Payload, &p) == nil && ids[p.CallID] {
			// A refusal with no answer before it is the deadline's No (denied)
			// or a stop (cancelled); a call that starts was allowed by default.
			return QuestionEnd{ByDefault: p.Status == "denied" || e.Type == "tool.started", Allowed: e.Type == "tool.started"}, true
		}
	case "run.finished":
		if e.RunID == run {
			return QuestionEnd{}, true
		}
	}
	return QuestionEnd{}, false
}
