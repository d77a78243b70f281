package standing

import (
	"context"
	"errors"

	"quire/kernel/event"
	"quire/kernel/protocol"
)

// RejectedInARow is how many of a task's batches in a row the user must
// have kept nothing of before the task is flagged: its proposals are not
// what the user wants, and it should be edited or removed.
const RejectedInARow = 3

// Summary is a task as a host shows it: its schedule, last and next
// firing, what its last batch proposed and what the user kept.
type Summary = protocol.StandingSummary

// List summarises every task.
func (r *Runner) List(ctx context.Context) ([]Summary, error) {
	tasks, err := r.st.Tasks(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Summary, 0, len(tasks))
	for _, t := range tasks {
		s, err := r.summary(ctx, t)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// Get summarises one task.
func (r *Runner) Get(ctx context.Context, id string) (Summary, error) {
	t, err := r.st.Task(ctx, id)
	if err != nil {
		return Summary{}, err
	}
	return r.summary(ctx, t)
}

func (r *Runner) summary(ctx context.Context, t Task) (Summary, error) {
	s := Summary{Task: t, Schedule: Describe(t.Schedule)}
	if next, ok := Next(t, r.now()); ok && !t.Paused {
		s.NextMs = next.UnixMilli()
	}
	recs, err := r.st.records(ctx, `task = ? AND step <> ? ORDER BY started_ms DESC, id DESC LIMIT 20`, t.ID, event.FiringSkipped)
	if err != nil {
		return Summary{}, err
	}
	rejected, ended := 0, true
	for i, rec := range recs {
		if i == 0 {
			s.Last = &recs[0]
		}
		if rec.Step != event.FiringProposed {
			continue
		}
		b, ok, err := r.prop.Batch(ctx, rec.Batch)
		if err != nil {
			return Summary{}, err
		}
		if !ok {
			continue
		}
		if s.Batch == nil {
			s.Batch, s.Proposed, s.Kept = &b, b.Done, b.Applied
			s.Waiting = b.State == protocol.BatchReviewing
		}
		if open(b.State) {
			continue
		}
		if ended && (b.Applied == 0 || b.State == protocol.BatchUndone) && b.Done > 0 {
			rejected++
		} else {
			ended = false
		}
	}
	s.Flagged = rejected >= RejectedInARow
	return s, nil
}

// Add stores a new task and summarises it.
func (r *Runner) Add(ctx context.Context, t Task) (Summary, error) {
	t, err := r.st.Add(ctx, t)
	if err != nil {
		return Summary{}, err
	}
	return r.summary(ctx, t)
}

// Edit changes a task at once: the next tick sees the new schedule.
func (r *Runner) Edit(ctx context.Context, t Task) (Summary, error) {
	t, err := r.st.Edit(ctx, t)
	if err != nil {
		return Summary{}, err
	}
	return r.summary(ctx, t)
}

// SetPaused pauses or resumes a task at once. A batch it already started
// stays, waiting for its review.
func (r *Runner) SetPaused(ctx context.Context, id string, paused bool) (Summary, error) {
	t, err := r.st.SetPaused(ctx, id, paused)
	if err != nil {
		return Summary{}, err
	}
	return r.summary(ctx, t)
}

// Remove deletes a task; a batch it started stays, for its review.
func (r *Runner) Remove(ctx context.Context, id string) error { return r.st.Remove(ctx, id) }

// Fired says which task's firing made batch id; false for a batch the
// user started.
func (r *Runner) Fired(ctx context.Context, batch string) (Task, bool, error) {
	recs, err := r.st.records(ctx, `batch = ? AND step = ? LIMIT 1`, batch, event.FiringProposed)
	if err != nil || len(recs) == 0 {
		return Task{}, false, err
	}
	t, err := r.st.Task(ctx, recs[0].Task)
	if errors.Is(err, ErrNotFound) {
		return Task{}, false, nil // removed since: its batch is the user's to review, unnamed
	}
	return t, err == nil, err
}
