package standing

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"quire/internal/sqlschema"
	"quire/kernel/protocol"
)

// migrations[i] brings the standing tables from version i to i+1. They are
// the state hosts read; the log holds each firing's steps as events.
var migrations = []string{
	`CREATE TABLE standing_tasks (
		id          TEXT PRIMARY KEY,
		name        TEXT NOT NULL,
		folder      TEXT NOT NULL,
		instruction TEXT NOT NULL,
		schedule    TEXT NOT NULL,
		budget      TEXT NOT NULL,
		paused      INTEGER NOT NULL DEFAULT 0,
		created_ms  INTEGER NOT NULL
	) WITHOUT ROWID;
	CREATE TABLE standing_firings (
		id         TEXT PRIMARY KEY,
		task       TEXT NOT NULL,
		slot_ms    INTEGER NOT NULL,
		missed     INTEGER NOT NULL,
		why        TEXT NOT NULL,
		step       TEXT NOT NULL,
		batch      TEXT NOT NULL,
		error      TEXT NOT NULL DEFAULT '',
		started_ms INTEGER NOT NULL,
		updated_ms INTEGER NOT NULL
	) WITHOUT ROWID;
	CREATE INDEX standing_firings_task ON standing_firings(task, started_ms);
	CREATE INDEX standing_firings_step ON standing_firings(step);`,
}

// Record is one firing as stored: Step is one of event's Firing* steps;
// Batch is the id its batch has or would have (chosen before it is made,
// so a firing a crash cut off can be told from the batch it left or not).
type Record = protocol.StandingFiring

// Store is the standing tables over the shared database. Safe for
// concurrent use (SQLite serialises the writes).
type Store struct {
	db    *sql.DB
	now   func() time.Time
	newID func() string
}

// Open brings the standing tables up to date.
func Open(ctx context.Context, db *sql.DB, now func() time.Time, newID func() string) (*Store, error) {
	if err := sqlschema.Migrate(ctx, db, "standing", migrations, ErrNewerSchema); err != nil {
		return nil, err
	}
	return &Store{db: db, now: now, newID: newID}, nil
}

// Add stores a new task, checked, with its id and creation time.
func (s *Store) Add(ctx context.Context, t Task) (Task, error) {
	if t.Budget == (Budget{}) {
		t.Budget = DefaultBudget
	}
	if err := Check(t); err != nil {
		return Task{}, err
	}
	t.ID, t.CreatedMs = "task_"+s.newID(), s.now().UnixMilli()
	sched, _ := json.Marshal(t.Schedule)
	budget, _ := json.Marshal(t.Budget)
	_, err := s.db.ExecContext(ctx, `INSERT INTO standing_tasks (id, name, folder, instruction, schedule, budget, paused, created_ms)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, t.ID, t.Name, t.Folder, t.Instruction, string(sched), string(budget), t.Paused, t.CreatedMs)
	return t, sqlschema.NoSpace(err)
}

// Edit replaces a task's name, folder, instruction, schedule, budget and
// pause; its id and creation stay.
func (s *Store) Edit(ctx context.Context, t Task) (Task, error) {
	if err := Check(t); err != nil {
		return Task{}, err
	}
	sched, _ := json.Marshal(t.Schedule)
	budget, _ := json.Marshal(t.Budget)
	return s.change(ctx, t.ID, `UPDATE standing_tasks SET name = ?, folder = ?, instruction = ?, schedule = ?, budget = ?, paused = ? WHERE id = ?`,
		t.Name, t.Folder, t.Instruction, string(sched), string(budget), t.Paused, t.ID)
}

// SetPaused pauses or resumes a task.
func (s *Store) SetPaused(ctx context.Context, id string, paused bool) (Task, error) {
	return s.change(ctx, id, `UPDATE standing_tasks SET paused = ? WHERE id = ?`, paused, id)
}

func (s *Store) change(ctx context.Context, id, query string, args ...any) (Task, error) {
	res, err := s.db.ExecContext(ctx, query, args...)
	if err != nil {
		return Task{}, sqlschema.NoSpace(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Task{}, unknown(id)
	}
	return s.Task(ctx, id)
}

// Remove deletes a task; its firings stay, as its events do.
func (s *Store) Remove(ctx context.Context, id string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM standing_tasks WHERE id = ?`, id)
	if err != nil {
		return sqlschema.NoSpace(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return unknown(id)
	}
	return nil
}

const taskColumns = `id, name, folder, instruction, schedule, budget, paused, created_ms`

func scanTask(row interface{ Scan(...any) error }) (Task, error) {
	var t Task
	var sched, budget string
	if err := row.Scan(&t.ID, &t.Name, &t.Folder, &t.Instruction, &sched, &budget, &t.Paused, &t.CreatedMs); err != nil {
		return Task{}, err
	}
	if err := errors.Join(json.Unmarshal([]byte(sched), &t.Schedule), json.Unmarshal([]byte(budget), &t.Budget)); err != nil {
		return Task{}, fmt.Errorf("task %s as stored: %w", t.ID, err)
	}
	return t, nil
}

// Task is one task.
func (s *Store) Task(ctx context.Context, id string) (Task, error) {
	t, err := scanTask(s.db.QueryRowContext(ctx, `SELECT `+taskColumns+` FROM standing_tasks WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Task{}, unknown(id)
	}
	return t, err
}

// Tasks are every task, oldest first.
func (s *Store) Tasks(ctx context.Context) ([]Task, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+taskColumns+` FROM standing_tasks ORDER BY created_ms, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Task{}
	for rows.Next() {
		t, err := scanTask(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// begin stores a firing at its first step.
func (s *Store) begin(ctx context.Context, r Record) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO standing_firings (id, task, slot_ms, missed, why, step, batch, error, started_ms, updated_ms)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, r.ID, r.Task, r.SlotMs, r.Missed, r.Why, r.Step, r.Batch, r.Error, r.StartedMs, r.UpdatedMs)
	return sqlschema.NoSpace(err)
}

// settle moves a firing to its next step.
func (s *Store) settle(ctx context.Context, id, step, errText string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE standing_firings SET step = ?, error = ?, updated_ms = ? WHERE id = ?`,
		step, errText, s.now().UnixMilli(), id)
	return sqlschema.NoSpace(err)
}

const recordColumns = `id, task, slot_ms, missed, why, step, batch, error, started_ms, updated_ms`

func (s *Store) records(ctx context.Context, where string, args ...any) ([]Record, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+recordColumns+` FROM standing_firings WHERE `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Record{}
	for rows.Next() {
		var r Record
		if err := rows.Scan(&r.ID, &r.Task, &r.SlotMs, &r.Missed, &r.Why, &r.Step, &r.Batch, &r.Error, &r.StartedMs, &r.UpdatedMs); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Firings are a task's firings, newest first, at most limit.
func (s *Store) Firings(ctx context.Context, task string, limit int) ([]Record, error) {
	return s.records(ctx, `task = ? ORDER BY started_ms DESC, id DESC LIMIT ?`, task, limit)
}

// counted are the steps whose slot counts as answered: a firing that was
// skipped or cut off before its batch answers nothing.
const counted = `step IN ('started', 'proposed', 'failed')`
