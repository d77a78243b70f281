package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"quire/internal/sqlschema"
	"quire/kernel/protocol"
	"quire/tools/notes"
)

// MaxAttempts bounds the claims of one task: a task whose worker stopped
// (a crash, a lease that ran out) this many times fails with the reason,
// so one note that stops a worker cannot hold the batch.
const MaxAttempts = 3

// kindOrganise is the one task kind so far: propose where a note goes.
const kindOrganise = "organise-note"

// taskInput is a task's input, as stored.
type taskInput struct {
	Note string `json:"note"`
	// Instruction is what the batch's starter asked of every note (a
	// standing task's words), given to the worker with its task.
	Instruction string `json:"instruction,omitempty"`
}

// claim is one worker's hold on a task: its completion must name it, so a
// claim that ended (its lease ran out and another worker took the task)
// cannot put a result.
type claim struct {
	Task    string
	Batch   string
	Note    string
	Owner   string
	Attempt int
	// Instruction is the batch's words for every note ("" for none).
	Instruction string
	// Session is the worker session of the previous attempt ("" for the
	// first): a result it holds is taken rather than run again.
	Session string
}

// tables is the queue's SQL, over the shared handle.
type tables struct {
	db  *sql.DB
	now func() time.Time
}

func (t *tables) ns() int64 { return t.now().UnixNano() }

// write runs fn in one transaction, a full disk said as the log says it.
func (t *tables) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := t.db.BeginTx(ctx, nil)
	if err != nil {
		return sqlschema.NoSpace(err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return sqlschema.NoSpace(err)
	}
	return sqlschema.NoSpace(tx.Commit())
}

// create stores a batch and one queued task per note, in one transaction.
func (t *tables) create(ctx context.Context, b protocol.Batch, noteList []string, instruction string, newID func() string) error {
	at := t.ns()
	return t.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO queue_batches (id, folder, title, state, workers, created_ns, updated_ns)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, b.ID, b.Folder, b.Title, b.State, b.Workers, at, at); err != nil {
			return fmt.Errorf("store the batch: %w", err)
		}
		for i, n := range noteList {
			in, _ := json.Marshal(taskInput{Note: n, Instruction: instruction})
			if _, err := tx.ExecContext(ctx, `INSERT INTO queue_tasks (id, batch, n, kind, input, state, updated_ns)
				VALUES (?, ?, ?, ?, ?, ?, ?)`, "task_"+newID(), b.ID, i, kindOrganise, string(in), protocol.TaskQueued, at); err != nil {
				return fmt.Errorf("store a task: %w", err)
			}
		}
		return nil
	})
}

// release returns to the queue every claim of an owner other than owner:
// the process that owns the data folder owns every claim in it, so a claim
// it did not make was left by a process that stopped. A task claimed
// MaxAttempts times fails instead, and a batch that ended with it goes to
// reviewing (Attach then tells every open batch).
func (t *tables) release(ctx context.Context, owner string) error {
	at := t.ns()
	return t.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE queue_tasks SET state = ?, owner = '', lease_ns = 0, updated_ns = ?
			WHERE state = ? AND owner <> ? AND attempts < ?`, protocol.TaskQueued, at, protocol.TaskClaimed, owner, MaxAttempts); err != nil {
			return err
		}
		_, err := t.expire(ctx, tx, at, `owner <> ?`, owner)
		return err
	})
}

// expire fails the claimed tasks matching where (with args) that used up
// their attempts, and settles their batches, which it returns: their
// change is for the caller to tell once the transaction is committed.
func (t *tables) expire(ctx context.Context, tx *sql.Tx, at int64, where string, args ...any) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `UPDATE queue_tasks SET state = ?, owner = '', lease_ns = 0, updated_ns = ?,
		error = 'a worker stopped on this note '||attempts||' times; it was left as it is'
		WHERE state = ? AND attempts >= ? AND `+where+` RETURNING batch`,
		append([]any{protocol.TaskFailed, at, protocol.TaskClaimed, MaxAttempts}, args...)...)
	if err != nil {
		return nil, err
	}
	var batches []string
	for rows.Next() {
		var b string
		if err := rows.Scan(&b); err != nil {
			rows.Close()
			return nil, err
		}
		if !slices.Contains(batches, b) {
			batches = append(batches, b)
		}
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	for _, b := range batches {
		if err := settle(ctx, tx, b, at); err != nil {
			return nil, err
		}
	}
	return batches, nil
}

// claim takes the next task of a running batch (oldest batch first, notes
// in order) for owner until lease from now: a queued task, or one whose
// lease ran out. One UPDATE … RETURNING: SQLite runs it under the write
// lock, so no two workers get the same task. ok is false when no task is
// waiting. expired are the batches of the tasks whose last lease ran out
// meanwhile (failed, their batch maybe reviewing now): the caller tells them.
func (t *tables) claim(ctx context.Context, owner string, lease time.Duration) (c claim, ok bool, expired []string, err error) {
	at := t.ns()
	err = t.write(ctx, func(tx *sql.Tx) error {
		var err error
		if expired, err = t.expire(ctx, tx, at, `lease_ns < ?`, at); err != nil {
			return err
		}
		var input string
		err = tx.QueryRowContext(ctx, `UPDATE queue_tasks SET state = ?, owner = ?, lease_ns = ?, attempts = attempts + 1, updated_ns = ?
			WHERE rowid = (SELECT t.rowid FROM queue_tasks t JOIN queue_batches b ON b.id = t.batch
				WHERE b.state = ? AND (t.state = ? OR (t.state = ? AND t.lease_ns < ?)) AND t.attempts < ?
				ORDER BY b.created_ns, b.id, t.n LIMIT 1)
			RETURNING id, batch, input, attempts, session`,
			protocol.TaskClaimed, owner, at+int64(lease), at,
			protocol.BatchRunning, protocol.TaskQueued, protocol.TaskClaimed, at, MaxAttempts,
		).Scan(&c.Task, &c.Batch, &input, &c.Attempt, &c.Session)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		var in taskInput
		if err := json.Unmarshal([]byte(input), &in); err != nil {
			return fmt.Errorf("task %s: unreadable input: %w", c.Task, err)
		}
		c.Note, c.Instruction, c.Owner, ok = in.Note, in.Instruction, owner, true
		return nil
	})
	if err != nil {
		expired = nil // rolled back: nothing changed
	}
	return c, ok, expired, err
}

// held updates a task the claim still holds; ErrLeaseLost when it does not.
func (t *tables) held(ctx context.Context, tx *sql.Tx, c claim, set string, args ...any) error {
	res, err := tx.ExecContext(ctx, `UPDATE queue_tasks SET `+set+` WHERE id = ? AND state = ? AND owner = ? AND attempts = ?`,
		append(args, c.Task, protocol.TaskClaimed, c.Owner, c.Attempt)...)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("task %s (%s): %w", c.Task, c.Note, ErrLeaseLost)
	}
	return nil
}

// started records the worker session of the claim, before its run starts,
// so a restart can look in it for a result.
func (t *tables) started(ctx context.Context, c claim, session string) error {
	return t.write(ctx, func(tx *sql.Tx) error {
		return t.held(ctx, tx, c, `session = ?, updated_ns = ?`, session, t.ns())
	})
}

// renew extends the claim's lease.
func (t *tables) renew(ctx context.Context, c claim, lease time.Duration) error {
	at := t.ns()
	return t.write(ctx, func(tx *sql.Tx) error {
		return t.held(ctx, tx, c, `lease_ns = ?`, at+int64(lease))
	})
}

// finish ends the claim: done with the proposal, or failed with reason.
// Exactly once: it names the claim, and a claim is ended only from
// claimed. The batch goes to reviewing when it was the last open task.
func (t *tables) finish(ctx context.Context, c claim, p *protocol.Proposal, reason string) error {
	at := t.ns()
	return t.write(ctx, func(tx *sql.Tx) error {
		var err error
		if p != nil {
			raw, _ := json.Marshal(p)
			err = t.held(ctx, tx, c, `state = ?, result = ?, error = '', owner = '', lease_ns = 0, done_count = done_count + 1, updated_ns = ?`,
				protocol.TaskDone, string(raw), at)
		} else {
			err = t.held(ctx, tx, c, `state = ?, error = ?, owner = '', lease_ns = 0, updated_ns = ?`, protocol.TaskFailed, reason, at)
		}
		if err != nil {
			return err
		}
		return settle(ctx, tx, c.Batch, at)
	})
}

// settle moves a running or paused batch whose tasks have all ended to
// reviewing.
func settle(ctx context.Context, tx *sql.Tx, batch string, at int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE queue_batches SET state = ?, updated_ns = ?
		WHERE id = ? AND state IN (?, ?) AND NOT EXISTS (SELECT 1 FROM queue_tasks WHERE batch = ? AND state IN (?, ?))`,
		protocol.BatchReviewing, at, batch, protocol.BatchRunning, protocol.BatchPaused, batch, protocol.TaskQueued, protocol.TaskClaimed)
	return err
}

// transition moves a batch from one of from to to (with errText as its
// Error), or says why it cannot.
func (t *tables) transition(ctx context.Context, id string, from []string, to, errText string) (protocol.Batch, error) {
	err := t.write(ctx, func(tx *sql.Tx) error {
		args := []any{to, errText, t.ns(), id}
		for _, f := range from {
			args = append(args, f)
		}
		res, err := tx.ExecContext(ctx, `UPDATE queue_batches SET state = ?, error = ?, updated_ns = ? WHERE id = ? AND state IN (`+marks(len(from))+`)`, args...)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			if to == protocol.BatchRunning {
				return settle(ctx, tx, id, t.ns()) // resumed with nothing left to do
			}
			return nil
		}
		var state string
		switch err := tx.QueryRowContext(ctx, `SELECT state FROM queue_batches WHERE id = ?`, id).Scan(&state); {
		case errors.Is(err, sql.ErrNoRows):
			return unknown(id)
		case err != nil:
			return err
		}
		return refuse(ErrState, protocol.ErrConflict, "the batch is %s, so it cannot be %s", state, verbOf(to))
	})
	if err != nil {
		return protocol.Batch{}, err
	}
	return t.batch(ctx, id)
}

func verbOf(state string) string {
	switch state {
	case protocol.BatchPaused:
		return "paused (only a running batch can)"
	case protocol.BatchRunning:
		return "resumed (only a paused batch can)"
	case protocol.BatchCancelled:
		return "cancelled (only a batch not yet applied can)"
	case protocol.BatchApplying:
		return "applied (only a batch waiting for review can)"
	case protocol.BatchUndone:
		return "undone (only an applied batch can)"
	}
	return "moved to " + state
}

func marks(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }

const batchColumns = `b.id, b.folder, b.title, b.state, b.workers, b.applied, b.error, b.created_ns, b.updated_ns,
	(SELECT COUNT(*) FROM queue_tasks t WHERE t.batch = b.id),
	(SELECT COUNT(*) FROM queue_tasks t WHERE t.batch = b.id AND t.state = 'done'),
	(SELECT COUNT(*) FROM queue_tasks t WHERE t.batch = b.id AND t.state = 'failed')`

func scanBatch(row interface{ Scan(...any) error }) (protocol.Batch, error) {
	var b protocol.Batch
	var created, updated int64
	err := row.Scan(&b.ID, &b.Folder, &b.Title, &b.State, &b.Workers, &b.Applied, &b.Error, &created, &updated, &b.Total, &b.Done, &b.Failed)
	b.CreatedMs, b.UpdatedMs = created/1e6, updated/1e6
	return b, err
}

func (t *tables) batch(ctx context.Context, id string) (protocol.Batch, error) {
	b, err := scanBatch(t.db.QueryRowContext(ctx, `SELECT `+batchColumns+` FROM queue_batches b WHERE b.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return b, unknown(id)
	}
	return b, err
}

// batches are every batch, newest first, at most limit.
func (t *tables) batches(ctx context.Context, where string, limit int, args ...any) ([]protocol.Batch, error) {
	q := `SELECT ` + batchColumns + ` FROM queue_batches b`
	if where != "" {
		q += ` WHERE ` + where
	}
	rows, err := t.db.QueryContext(ctx, q+` ORDER BY b.created_ns DESC, b.id LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []protocol.Batch{}
	for rows.Next() {
		b, err := scanBatch(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

func (t *tables) tasks(ctx context.Context, batch string) ([]protocol.BatchTask, error) {
	rows, err := t.db.QueryContext(ctx, `SELECT id, input, state, attempts, error, session, result FROM queue_tasks WHERE batch = ? ORDER BY n`, batch)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []protocol.BatchTask{}
	for rows.Next() {
		var k protocol.BatchTask
		var input, result string
		if err := rows.Scan(&k.ID, &input, &k.State, &k.Attempts, &k.Error, &k.Session, &result); err != nil {
			return nil, err
		}
		var in taskInput
		if err := json.Unmarshal([]byte(input), &in); err != nil {
			return nil, fmt.Errorf("task %s: unreadable input: %w", k.ID, err)
		}
		k.Note = in.Note
		if result != "" {
			k.Proposal = &protocol.Proposal{}
			if err := json.Unmarshal([]byte(result), k.Proposal); err != nil {
				return nil, fmt.Errorf("task %s: unreadable result: %w", k.ID, err)
			}
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// task is one task as the stream shows it.
func (t *tables) task(ctx context.Context, id string) (protocol.BatchTask, error) {
	var batch string
	if err := t.db.QueryRowContext(ctx, `SELECT batch FROM queue_tasks WHERE id = ?`, id).Scan(&batch); err != nil {
		return protocol.BatchTask{}, err
	}
	all, err := t.tasks(ctx, batch)
	if err != nil {
		return protocol.BatchTask{}, err
	}
	for _, k := range all {
		if k.ID == id {
			return k, nil
		}
	}
	return protocol.BatchTask{}, sql.ErrNoRows
}

// record keeps a change Apply or Undo made, in order.
func (t *tables) record(ctx context.Context, batch string, c notes.Change, undo bool) error {
	raw, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return t.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO queue_changes (batch, n, id, undo, change)
			VALUES (?, (SELECT COALESCE(MAX(n), -1) + 1 FROM queue_changes WHERE batch = ?), ?, ?, ?)`, batch, batch, c.ID, undo, string(raw))
		return err
	})
}

// changes are the changes of a batch's apply (undo false) or undo, in order.
func (t *tables) changes(ctx context.Context, batch string, undo bool) ([]notes.Change, error) {
	rows, err := t.db.QueryContext(ctx, `SELECT change FROM queue_changes WHERE batch = ? AND undo = ? ORDER BY n`, batch, undo)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []notes.Change
	for rows.Next() {
		var raw string
		if err := rows.Scan(&raw); err != nil {
			return nil, err
		}
		var c notes.Change
		if err := json.Unmarshal([]byte(raw), &c); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Change is the queue's notes.ChangeLog: undo finds a batch's change here.
func (t *tables) Change(ctx context.Context, id string) (notes.Change, error) {
	var raw string
	err := t.db.QueryRowContext(ctx, `SELECT change FROM queue_changes WHERE id = ?`, id).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return notes.Change{}, fmt.Errorf("change %s: %w", id, notes.ErrNotFound)
	}
	if err != nil {
		return notes.Change{}, err
	}
	var c notes.Change
	return c, json.Unmarshal([]byte(raw), &c)
}

// setApplied records how many notes Apply changed.
func (t *tables) setApplied(ctx context.Context, id string, n int, state, errText string) error {
	return t.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE queue_batches SET applied = ?, state = ?, error = ?, updated_ns = ? WHERE id = ?`, n, state, errText, t.ns(), id)
		return err
	})
}

// doneCounts is, per task of a batch, how many times it was completed:
// the crash tests read it to see every task done exactly once.
func (t *tables) doneCounts(ctx context.Context, batch string) (map[string]int, error) {
	rows, err := t.db.QueryContext(ctx, `SELECT id, done_count FROM queue_tasks WHERE batch = ?`, batch)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, err
		}
		out[id] = n
	}
	return out, rows.Err()
}
