package standing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"quire/kernel/event"
	"quire/kernel/protocol"
)

// Order is the one thing a standing task may ask for: a batch that only
// proposes, over Folder, taking at most MaxNotes of its notes, each worker
// told Instruction. ID is the batch's id, chosen before it is made.
type Order struct {
	ID          string
	Folder      string
	Instruction string
	MaxNotes    int
}

// Proposer starts the batches of standing tasks. It has no method that
// applies or answers a batch: that is the user's, in the batch's review,
// with its one undo (TestProposerCannotApply holds it so).
type Proposer interface {
	Propose(ctx context.Context, o Order) (protocol.Batch, error)
	// Batch is the batch id as it stands; false when there is none.
	Batch(ctx context.Context, id string) (protocol.Batch, bool, error)
}

// Journal records a firing's step in the log (a standing.firing event).
type Journal func(ctx context.Context, p event.StandingFiringPayload) error

// Power says how the computer is powered; known is false where the
// platform does not say (then no firing is held back for the battery).
type Power interface {
	Battery() (percent int, discharging, known bool)
}

// Chat says whether the user's conversation is using the model now: no
// firing starts then, so the workers never take the model from the user.
type Chat interface {
	Chatting() bool
}

// Runner fires due tasks: one tick at a time, one firing at a time per
// task, each within its budget, none while the user chats or on a battery
// below the user's threshold.
type Runner struct {
	st      *Store
	prop    Proposer
	journal Journal
	now     func() time.Time
	newID   func() string
	power   Power
	floor   func() int // battery percent below which nothing fires (0: off)
	chat    Chat
	vault   func(ctx context.Context, folders []string) (Vault, error)
	per     PerNote
	log     *slog.Logger

	tick    sync.Mutex    // one Tick or RunNow at a time
	wake    chan struct{} // Wake's, one held: wakes while a tick runs make one more tick
	mu      sync.Mutex
	skipped map[string]int64 // task -> the slot whose skip was told (-1: a condition's), so a held firing is told once
}

// RunnerOption configures a Runner.
type RunnerOption func(*Runner)

// WithClock sets the runner's clock.
func WithClock(now func() time.Time) RunnerOption { return func(r *Runner) { r.now = now } }

// WithIDs sets the source of firing ids.
func WithIDs(newID func() string) RunnerOption { return func(r *Runner) { r.newID = newID } }

// WithPower holds firings back on a battery below floor() percent.
func WithPower(p Power, floor func() int) RunnerOption {
	return func(r *Runner) { r.power, r.floor = p, floor }
}

// WithChat holds firings back while the user chats.
func WithChat(c Chat) RunnerOption { return func(r *Runner) { r.chat = c } }

// WithVault sets how the folders' conditions are seen.
func WithVault(v func(ctx context.Context, folders []string) (Vault, error)) RunnerOption {
	return func(r *Runner) { r.vault = v }
}

// WithPerNote sets what one note's worker may spend at most.
func WithPerNote(p PerNote) RunnerOption { return func(r *Runner) { r.per = p } }

// WithLogger sets the logger.
func WithLogger(l *slog.Logger) RunnerOption { return func(r *Runner) { r.log = l } }

// NewRunner is a runner over st that starts batches through p and records
// every step through j.
func NewRunner(st *Store, p Proposer, j Journal, opts ...RunnerOption) *Runner {
	r := &Runner{st: st, prop: p, journal: j, now: time.Now, newID: st.newID, log: slog.Default(), skipped: map[string]int64{},
		wake: make(chan struct{}, 1)}
	for _, o := range opts {
		o(r)
	}
	return r
}

// Store is the runner's tasks.
func (r *Runner) Store() *Store { return r.st }

// Recover settles the firings a stopped Quire left at their first step:
// one whose batch exists was proposed (the batch is made in one
// transaction, whole or not at all); one with none was interrupted, and
// its slot is answered again by the next tick, once.
func (r *Runner) Recover(ctx context.Context) error {
	r.tick.Lock()
	defer r.tick.Unlock()
	open, err := r.st.records(ctx, `step = ?`, event.FiringStarted)
	if err != nil {
		return err
	}
	for _, rec := range open {
		_, made, err := r.prop.Batch(ctx, rec.Batch)
		if err != nil {
			return err
		}
		if made {
			r.step(ctx, rec, event.FiringProposed, "")
		} else {
			r.step(ctx, rec, event.FiringInterrupted, "Quire stopped before the batch was made")
		}
	}
	return nil
}

// states are each task's last counted firing and whether one is open: at
// its first step, or its batch not yet ended.
func (r *Runner) states(ctx context.Context, tasks []Task) (map[string]State, error) {
	out := map[string]State{}
	for _, t := range tasks {
		last, err := r.st.records(ctx, `task = ? AND `+counted+` ORDER BY started_ms DESC, id DESC LIMIT 1`, t.ID)
		if err != nil {
			return nil, err
		}
		if len(last) == 0 {
			continue
		}
		st := State{Last: time.UnixMilli(last[0].SlotMs)}
		switch last[0].Step {
		case event.FiringStarted:
			st.Open = true
		case event.FiringProposed:
			b, ok, err := r.prop.Batch(ctx, last[0].Batch)
			if err != nil {
				return nil, err
			}
			st.Open = ok && open(b.State)
		}
		out[t.ID] = st
	}
	return out, nil
}

// open: the batch has not ended, so its task waits for it.
func open(state string) bool {
	switch state {
	case protocol.BatchRunning, protocol.BatchPaused, protocol.BatchReviewing, protocol.BatchApplying:
		return true
	}
	return false
}

// Tick fires every due task, one after another, and returns their
// records (a held-back firing is not among them).
func (r *Runner) Tick(ctx context.Context) ([]Record, error) {
	r.tick.Lock()
	defer r.tick.Unlock()
	tasks, err := r.st.Tasks(ctx)
	if err != nil {
		return nil, err
	}
	states, err := r.states(ctx, tasks)
	if err != nil {
		return nil, err
	}
	v := Vault{}
	if r.vault != nil {
		var folders []string
		for _, t := range tasks {
			if t.Schedule.Kind == Over || t.Schedule.Kind == Lands {
				folders = append(folders, t.Folder)
			}
		}
		if len(folders) > 0 {
			if v, err = r.vault(ctx, folders); err != nil {
				r.log.Warn("the standing tasks' folders could not be looked at", "err", err)
			}
		}
	}
	byID := map[string]Task{}
	for _, t := range tasks {
		byID[t.ID] = t
	}
	var out []Record
	for _, f := range Due(tasks, states, r.now(), v) {
		if held := r.held(); held != "" {
			r.skip(ctx, byID[f.Task], f, held)
			continue
		}
		out = append(out, r.fire(ctx, byID[f.Task], f))
	}
	return out, nil
}

// RunNow fires a task at once, paused or not, unless a firing of it is
// open; the bounds of power and chat do not hold back what the user asked.
func (r *Runner) RunNow(ctx context.Context, id string) (Record, error) {
	r.tick.Lock()
	defer r.tick.Unlock()
	t, err := r.st.Task(ctx, id)
	if err != nil {
		return Record{}, err
	}
	states, err := r.states(ctx, []Task{t})
	if err != nil {
		return Record{}, err
	}
	if states[t.ID].Open {
		return Record{}, protocol.Refusef(protocol.ErrConflict, ErrBusy, "%s is already firing or its batch waits for your review; answer the batch first", t.Name)
	}
	rec := r.fire(ctx, t, Firing{Task: t.ID, Slot: r.now(), Missed: 1, Why: "run now by the user"})
	if rec.Step == event.FiringFailed {
		return rec, errors.New(rec.Error)
	}
	return rec, nil
}

// held says which bound holds firings back now, "" for none.
func (r *Runner) held() string {
	if r.chat != nil && r.chat.Chatting() {
		return "the user is chatting with the model"
	}
	if r.power != nil && r.floor != nil {
		if pct, discharging, known := r.power.Battery(); known && discharging && pct < r.floor() {
			return fmt.Sprintf("on battery at %d%%, below the %d%% set for standing tasks", pct, r.floor())
		}
	}
	return ""
}

// skip records a held-back firing once per slot; it is tried again at the
// next tick.
func (r *Runner) skip(ctx context.Context, t Task, f Firing, why string) {
	// A condition's slot is the moment it is seen, new at every tick: it
	// is told once while it stays held, a schedule's once per slot.
	key := int64(-1)
	if t.Schedule.Kind == Daily || t.Schedule.Kind == Weekly {
		key = f.Slot.UnixMilli()
	}
	r.mu.Lock()
	told := r.skipped[t.ID] == key
	r.skipped[t.ID] = key
	r.mu.Unlock()
	if told {
		return
	}
	at := r.now().UnixMilli()
	rec := Record{ID: "firing_" + r.newID(), Task: t.ID, SlotMs: f.Slot.UnixMilli(), Missed: f.Missed, Why: f.Why,
		Step: event.FiringSkipped, Error: why, StartedMs: at, UpdatedMs: at}
	if err := r.st.begin(ctx, rec); err != nil {
		r.log.Warn("a held-back firing was not stored", "task", t.ID, "err", err)
	}
	r.record(ctx, rec)
}

// fire records the firing, then has its batch made. The batch's id is in
// the record before the batch exists, so a kill between the two leaves a
// record Recover settles from whether that batch was made: never a half
// batch, never a batch no firing names.
func (r *Runner) fire(ctx context.Context, t Task, f Firing) Record {
	id := r.newID()
	at := r.now().UnixMilli()
	rec := Record{ID: "firing_" + id, Task: t.ID, SlotMs: f.Slot.UnixMilli(), Missed: f.Missed, Why: f.Why,
		Step: event.FiringStarted, Batch: "batch_" + id, StartedMs: at, UpdatedMs: at}
	if err := r.st.begin(ctx, rec); err != nil {
		r.log.Warn("a firing was not stored, so it did not start", "task", t.ID, "err", err)
		rec.Step, rec.Error = event.FiringFailed, err.Error()
		return rec
	}
	r.record(ctx, rec)
	r.mu.Lock()
	delete(r.skipped, t.ID) // held again later, it is told again
	r.mu.Unlock()
	_, err := r.prop.Propose(ctx, Order{ID: rec.Batch, Folder: t.Folder, Instruction: t.Instruction, MaxNotes: NotesWithin(t.Budget, r.per)})
	if err != nil {
		return r.step(ctx, rec, event.FiringFailed, err.Error())
	}
	return r.step(ctx, rec, event.FiringProposed, "")
}

// step moves rec to step, in the log then in the table: a kill between
// the two leaves the row at its first step, which the next start settles
// and logs again, so a firing's last event is always where its row stands.
func (r *Runner) step(ctx context.Context, rec Record, step, errText string) Record {
	done := context.WithoutCancel(ctx) // the step lands even as Quire stops
	rec.Step, rec.Error = step, errText
	r.record(done, rec)
	if err := r.st.settle(done, rec.ID, step, errText); err != nil {
		r.log.Warn("a firing's step was not stored", "firing", rec.ID, "step", step, "err", err)
	}
	return rec
}

func (r *Runner) record(ctx context.Context, rec Record) {
	if r.journal == nil {
		return
	}
	p := event.StandingFiringPayload{Task: rec.Task, Firing: rec.ID, Step: rec.Step, SlotMs: rec.SlotMs, Missed: rec.Missed,
		Why: rec.Why, Batch: rec.Batch, Error: rec.Error}
	if err := r.journal(ctx, p); err != nil {
		r.log.Warn("a firing's step was not logged", "firing", rec.ID, "step", rec.Step, "err", err)
	}
}

// Wake has Loop tick now rather than at its next interval: the vault
// changed under a condition (a note landed). It never blocks; wakes that
// come while a tick runs make one more tick after it, not one each.
func (r *Runner) Wake() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Loop ticks every interval, and when woken, until ctx ends: one tick at a
// time, so a task fires at most once at a time.
func (r *Runner) Loop(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if _, err := r.Tick(ctx); err != nil && ctx.Err() == nil {
			r.log.Warn("the standing tasks could not be checked", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-r.wake:
		}
	}
}
