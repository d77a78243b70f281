package queue

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"sync"
	"time"

	"quire/kernel/protocol"
	"quire/kernel/tool"
	"quire/tools/notes"
)

// Notes is the notes folder as the queue uses it: the note tools over the
// folder the user chose (their sandbox and write lock), with log as the
// change log their undo reads, and the sandbox's one confinement check.
// Tools is empty while no folder is chosen.
type Notes interface {
	Tools(log notes.ChangeLog) []tool.Tool
	Resolve(rel string) (string, error)
}

// Queue is the coordinator and its workers: host.Batches.
type Queue struct {
	t       *tables
	notes   Notes
	log     *slog.Logger
	newID   func() string
	workers int
	lease   time.Duration
	owner   string // this process's name on its claims

	kernel protocol.Kernel // the workers' kernel (Attach)
	base   context.Context
	stop   context.CancelCauseFunc
	wg     sync.WaitGroup
	wake   chan struct{}

	mu       sync.Mutex
	active   map[string]map[string]context.CancelCauseFunc // batch -> task -> its work's cancel
	sessions map[string]string                             // worker session -> its note (propose checks)
	watchers map[*watcher]struct{}
	applyMu  sync.Mutex // one Apply or Undo at a time
	pubMu    sync.Mutex // publish: one read-and-offer at a time
}

// Option configures a Queue.
type Option func(*Queue)

// WithWorkers sets how many workers claim tasks (the batch.workers
// setting), within BatchMinWorkers..BatchMaxWorkers.
func WithWorkers(n int) Option {
	return func(q *Queue) { q.workers = min(max(n, protocol.BatchMinWorkers), protocol.BatchMaxWorkers) }
}

// WithLease sets how long a claim holds a task before it returns to the
// queue unless renewed (a worker renews it every third of it).
func WithLease(d time.Duration) Option { return func(q *Queue) { q.lease = d } }

// WithClock sets the clock of leases and times.
func WithClock(now func() time.Time) Option { return func(q *Queue) { q.t.now = now } }

// WithIDs sets the source of batch and task ids.
func WithIDs(newID func() string) Option { return func(q *Queue) { q.newID = newID } }

// WithLogger sets the logger.
func WithLogger(l *slog.Logger) Option { return func(q *Queue) { q.log = l } }

// ErrStopped is the cause of the workers' end when the queue closes.
var ErrStopped = errors.New("the queue stopped")

// Open brings the queue tables up to date over the shared database. The
// workers start with Attach.
func Open(ctx context.Context, db *sql.DB, n Notes, opts ...Option) (*Queue, error) {
	if err := migrate(ctx, db); err != nil {
		return nil, err
	}
	q := &Queue{
		t: &tables{db: db, now: time.Now}, notes: n, log: slog.Default(), newID: randomID,
		workers: protocol.BatchWorkers, lease: 10 * time.Minute, owner: "proc_" + randomID(),
		active: map[string]map[string]context.CancelCauseFunc{}, sessions: map[string]string{}, watchers: map[*watcher]struct{}{},
	}
	for _, o := range opts {
		o(q)
	}
	q.wake = make(chan struct{}, q.workers)
	return q, nil
}

func randomID() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b[:])
}

// Propose is the workers' propose tool, for the composition root to put in
// their kernel's tools.
func (q *Queue) Propose() tool.Tool { return proposeTool{q} }

// Attach gives the queue its workers' kernel and starts them. The claims a
// stopped process left return to the queue first (this process owns the
// data folder, so it owns every claim in it), and a batch a stop caught
// while applying is put back as it was before. Then every batch not yet
// answered is told to the watchers as it now stands.
func (q *Queue) Attach(ctx context.Context, k protocol.Kernel) error {
	q.kernel = k
	if err := q.t.release(ctx, q.owner); err != nil {
		return fmt.Errorf("return the claims of a stopped Quire to the queue: %w", err)
	}
	if err := q.recoverApplying(ctx); err != nil {
		q.log.Error("a batch caught while applying could not be put back", "err", err)
	}
	if err := q.announce(ctx); err != nil {
		q.log.Error("the batches a stopped Quire left could not be told", "err", err)
	}
	q.base, q.stop = context.WithCancelCause(context.Background())
	for i := range q.workers {
		q.wg.Add(1)
		go q.work(fmt.Sprintf("%s/w%d", q.owner, i))
	}
	return nil
}

// announce publishes every batch still waiting for its workers or for the
// user's answer. A change is told only by the process that made it, after
// its commit, and only to the watchers it has: a stop between the two (the
// last task's result put, the batch reviewing, and a SIGKILL) loses the
// telling for good, and what release and recoverApplying change here is
// told by nothing else. Without it a restart that finds its batch already
// reviewing has no task left to claim and says nothing, so a watcher
// waits for a change that already happened.
func (q *Queue) announce(ctx context.Context) error {
	open, err := q.t.batches(ctx, "b.state IN (?, ?, ?)", protocol.BatchMaxNotes,
		protocol.BatchRunning, protocol.BatchPaused, protocol.BatchReviewing)
	if err != nil {
		return err
	}
	for _, b := range open {
		if _, err := q.publish(ctx, b.ID, ""); err != nil {
			return err
		}
	}
	return nil
}

// Close stops the workers: a task in hand goes back to the queue, its
// attempt not counted; the next start goes on from there.
func (q *Queue) Close() {
	if q.stop == nil {
		return
	}
	q.stop(ErrStopped)
	q.wg.Wait()
}

// notify wakes the idle workers: a batch started or resumed.
func (q *Queue) notify() {
	for range q.workers {
		select {
		case q.wake <- struct{}{}:
		default:
		}
	}
}

func (q *Queue) noteOf(session string) (string, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	n, ok := q.sessions[session]
	return n, ok
}

// Start enqueues one task per note directly in folder (relative to the
// notes root) and wakes the workers.
func (q *Queue) Start(ctx context.Context, folder string) (protocol.Batch, error) {
	return q.StartOrder(ctx, Order{Folder: folder})
}

// Order is a batch asked for by something other than the user's own
// command (a standing task): its id chosen by the asker ("" for a new
// one), an instruction every worker is given, and at most MaxNotes notes
// (0: no bound but the batch's own), the first in the folder's order.
// Like every batch it only proposes and waits for the user's review.
type Order struct {
	ID          string
	Folder      string
	Instruction string
	MaxNotes    int
}

// StartOrder starts the batch o asks for. Its tasks and the batch are
// made in one transaction: a batch is there whole or not at all.
func (q *Queue) StartOrder(ctx context.Context, o Order) (protocol.Batch, error) {
	folder := protocol.BatchFolder(o.Folder)
	list, err := q.notesIn(ctx, folder)
	if err != nil {
		return protocol.Batch{}, err
	}
	if o.MaxNotes > 0 && len(list) > o.MaxNotes {
		list = list[:o.MaxNotes]
	}
	name := folder
	if folder == "." {
		name = "the notes folder"
	}
	id := o.ID
	if id == "" {
		id = "batch_" + q.newID()
	}
	b := protocol.Batch{ID: id, Folder: folder, Title: fmt.Sprintf("Organise %s (%d notes)", name, len(list)),
		State: protocol.BatchRunning, Workers: q.workers}
	if err := q.t.create(ctx, b, list, o.Instruction, q.newID); err != nil {
		return protocol.Batch{}, err
	}
	q.notify()
	return q.publish(ctx, b.ID, "")
}

// notesIn lists the notes directly in folder through list_notes (its
// sandbox and bounds): a listing it had to cut is more than a batch takes.
func (q *Queue) notesIn(ctx context.Context, folder string) ([]string, error) {
	list := findTool(q.notes.Tools(nil), "list_notes")
	if list == nil {
		return nil, refuse(ErrNoNotes, protocol.ErrConflict, "no notes folder is chosen; choose one in Settings, then organise a folder in it")
	}
	res, err := list.Run(ctx, tool.Call{Name: "list_notes", Arguments: []byte(fmt.Sprintf(`{"path":%q,"depth":1}`, folder))})
	if err != nil {
		return nil, err
	}
	l, ok := res.Data.(notes.Listing)
	if ok && (l.Truncated || len(l.Entries) > protocol.BatchMaxNotes) {
		// A cut listing comes back partial: said as the bound, not as
		// the listing the model would read.
		return nil, refuse(ErrTooMany, protocol.ErrBadPayload, "%s holds more than %d entries, more than one batch takes; organise a folder inside it, or move some notes out first", folder, protocol.BatchMaxNotes)
	}
	if res.Status != tool.Success && res.Status != tool.Empty {
		return nil, refuse(ErrBadFolder, protocol.ErrBadPayload, "%s", res.Content)
	}
	if !ok {
		return nil, fmt.Errorf("list_notes answered %T, not a listing", res.Data)
	}
	var out []string
	for _, e := range l.Entries {
		if !e.Folder && !e.Link && notes.IsNoteName(e.Path) && path.Dir(e.Path) == path.Clean(l.Path) {
			out = append(out, e.Path)
		}
	}
	if len(out) == 0 {
		return nil, refuse(ErrBadFolder, protocol.ErrBadPayload, "%s holds no notes (Markdown or text files) to organise; choose another folder", folder)
	}
	return out, nil
}

func findTool(ts []tool.Tool, name string) tool.Tool {
	for _, t := range ts {
		if t.Spec().Name == name {
			return t
		}
	}
	return nil
}

// List is every batch, newest first (at most 100).
func (q *Queue) List(ctx context.Context) ([]protocol.Batch, error) {
	return q.t.batches(ctx, "", 100)
}

// Get is a batch with its tasks and, once it is reviewing, its review list.
func (q *Queue) Get(ctx context.Context, id string) (protocol.BatchReview, error) {
	b, err := q.t.batch(ctx, id)
	if err != nil {
		return protocol.BatchReview{}, err
	}
	tasks, err := q.t.tasks(ctx, id)
	if err != nil {
		return protocol.BatchReview{}, err
	}
	r := protocol.BatchReview{Batch: b, Tasks: tasks, Items: []protocol.ReviewItem{}}
	if b.State != protocol.BatchRunning && b.State != protocol.BatchPaused {
		r.Items = reviewItems(tasks)
	}
	if r.Changes, err = q.appliedChanges(ctx, id); err != nil {
		return protocol.BatchReview{}, err
	}
	return r, nil
}

// reviewItems are the done tasks' proposals, each selected.
func reviewItems(tasks []protocol.BatchTask) []protocol.ReviewItem {
	out := []protocol.ReviewItem{}
	for _, k := range tasks {
		if k.State != protocol.TaskDone || k.Proposal == nil {
			continue
		}
		to := k.Proposal.Path
		if to == "" {
			to = k.Note
		}
		out = append(out, protocol.ReviewItem{Task: k.ID, From: k.Note, To: to, Tags: k.Proposal.Tags, Links: k.Proposal.Links,
			Reason: k.Proposal.Reason, Selected: true})
	}
	return out
}

// Pause stops new claims of a running batch; tasks in hand finish.
func (q *Queue) Pause(ctx context.Context, id string) (protocol.Batch, error) {
	if _, err := q.t.transition(ctx, id, []string{protocol.BatchRunning}, protocol.BatchPaused, ""); err != nil {
		return protocol.Batch{}, err
	}
	return q.publish(ctx, id, "")
}

// Resume lets a paused batch's tasks be claimed again.
func (q *Queue) Resume(ctx context.Context, id string) (protocol.Batch, error) {
	if _, err := q.t.transition(ctx, id, []string{protocol.BatchPaused}, protocol.BatchRunning, ""); err != nil {
		return protocol.Batch{}, err
	}
	q.notify()
	return q.publish(ctx, id, "")
}

// Cancel stops a batch that was not applied: no more claims, the runs of
// its tasks in hand are stopped, and it never applies.
func (q *Queue) Cancel(ctx context.Context, id string) (protocol.Batch, error) {
	if _, err := q.t.transition(ctx, id, []string{protocol.BatchRunning, protocol.BatchPaused, protocol.BatchReviewing},
		protocol.BatchCancelled, "cancelled by the user"); err != nil {
		return protocol.Batch{}, err
	}
	q.mu.Lock()
	for _, cancel := range q.active[id] {
		cancel(errCancelled)
	}
	q.mu.Unlock()
	return q.publish(ctx, id, "")
}

var errCancelled = errors.New("the batch was cancelled")
