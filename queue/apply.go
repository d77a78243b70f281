package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"quire/kernel/protocol"
	"quire/kernel/tool"
	"quire/tools/notes"
)

// step is one note change of an Apply: a call of a note tool.
type step struct {
	tool string
	args map[string]any
}

// Apply is the user's one answer for a reviewing batch: the selected
// items' moves, then their tags and links (on the notes' new paths), run
// through the note tools as one change — if any step is refused, every
// step already made is undone and the batch waits for review again, with
// the refusal in its Error. None selected ends it with nothing changed.
func (q *Queue) Apply(ctx context.Context, id string, d protocol.BatchDecision) (protocol.Batch, error) {
	q.applyMu.Lock()
	defer q.applyMu.Unlock()
	b, err := q.t.batch(ctx, id)
	if err != nil {
		return b, err
	}
	if b.State != protocol.BatchReviewing {
		return b, refuse(ErrState, protocol.ErrConflict, "the batch is %s, so it cannot be %s", b.State, verbOf(protocol.BatchApplying))
	}
	tasks, err := q.t.tasks(ctx, id)
	if err != nil {
		return b, err
	}
	steps, notesChanged, err := q.plan(tasks, d)
	if err != nil {
		return b, err
	}
	if _, err := q.t.transition(ctx, id, []string{protocol.BatchReviewing}, protocol.BatchApplying, ""); err != nil {
		return b, err
	}
	q.publish(ctx, id, "")
	done := context.WithoutCancel(ctx) // once begun, the change is made or put back whole
	if err := q.run(done, id, steps); err != nil {
		sentence := fmt.Sprintf("nothing was changed: %v", err)
		if uerr := q.undoAll(done, id); uerr != nil {
			sentence = fmt.Sprintf("%v; and putting back what was done failed: %v", err, uerr)
		}
		q.t.setApplied(done, id, 0, protocol.BatchReviewing, sentence)
		q.publish(done, id, "")
		return protocol.Batch{}, refuse(ErrState, protocol.ErrConflict, "the batch could not be applied, %s; change the list and apply again", sentence)
	}
	if err := q.t.setApplied(done, id, notesChanged, protocol.BatchDone, ""); err != nil {
		return protocol.Batch{}, err
	}
	return q.publish(done, id, "")
}

// plan checks the decision against the batch and turns the selected items
// into steps: every move first, then tags and links on the new paths (a
// link to a note the batch moves follows it).
func (q *Queue) plan(tasks []protocol.BatchTask, d protocol.BatchDecision) ([]step, int, error) {
	byID := map[string]protocol.BatchTask{}
	for _, k := range tasks {
		byID[k.ID] = k
	}
	bad := func(format string, args ...any) error {
		return refuse(ErrBadDecision, protocol.ErrBadPayload, format, args...)
	}
	if len(d.Items) > len(tasks) {
		return nil, 0, bad("the answer has %d items, and the batch only %d tasks", len(d.Items), len(tasks))
	}
	seen := map[string]bool{}
	dest := map[string]string{} // new path -> the note going there
	moved := map[string]string{}
	var picked []protocol.ReviewItem
	for _, it := range d.Items {
		k, ok := byID[it.Task]
		switch {
		case !ok:
			return nil, 0, bad("the batch has no task %q", it.Task)
		case seen[it.Task]:
			return nil, 0, bad("the task %q is in the answer twice", it.Task)
		case k.State != protocol.TaskDone:
			return nil, 0, bad("the task of %s has no proposal (%s)", k.Note, k.State)
		case it.From != k.Note:
			return nil, 0, bad("the item of task %q names %s, and the task is about %s", it.Task, it.From, k.Note)
		}
		seen[it.Task] = true
		if !it.Selected {
			continue
		}
		p := protocol.Proposal{Path: it.To, Tags: it.Tags, Links: it.Links, Reason: "the user's choice"}
		if problem := q.check(k.Note, &p); problem != "" {
			return nil, 0, bad("%s: %s", k.Note, strings.TrimSuffix(problem, "."))
		}
		if p.Path != "" {
			if other, ok := dest[p.Path]; ok {
				return nil, 0, bad("%s and %s would both move to %s; give one of them another name", other, k.Note, p.Path)
			}
			dest[p.Path] = k.Note
			moved[k.Note] = p.Path
		}
		it.To, it.Tags, it.Links = p.Path, p.Tags, p.Links
		picked = append(picked, it)
	}
	var moves, edits []step
	for _, it := range picked {
		at := it.From
		if it.To != "" {
			moves = append(moves, step{"move_note", map[string]any{"from": it.From, "to": it.To}})
			at = it.To
		}
		if len(it.Tags) > 0 {
			edits = append(edits, step{"set_tags", map[string]any{"path": at, "tags": it.Tags}})
		}
		for _, l := range it.Links {
			if to, ok := moved[l]; ok {
				l = to
			}
			edits = append(edits, step{"link_notes", map[string]any{"from": at, "to": l}})
		}
	}
	return append(moves, edits...), len(picked), nil
}

// run makes the steps through the note tools, recording each change as it
// lands; it stops at the first refusal.
func (q *Queue) run(ctx context.Context, id string, steps []step) error {
	ts := q.notes.Tools(q.t)
	for _, s := range steps {
		t := findTool(ts, s.tool)
		if t == nil {
			return refuse(ErrNoNotes, protocol.ErrConflict, "no notes folder is chosen; choose one in Settings")
		}
		args, _ := json.Marshal(s.args)
		res, err := t.Run(ctx, tool.Call{ID: "batch_" + q.newID(), Name: s.tool, Arguments: args})
		if err != nil {
			return err
		}
		if res.Status != tool.Success {
			return errors.New(strings.TrimSuffix(res.Content, "."))
		}
		if c, ok := notes.DecodeChange(res.Data); ok {
			if err := q.t.record(ctx, id, c, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// Undo reverts an applied batch's change as one, newest step first. A
// note changed since is refused by the note tools' undo: the batch then
// stays applied, with what was and was not undone in its Error.
func (q *Queue) Undo(ctx context.Context, id string) (protocol.Batch, error) {
	q.applyMu.Lock()
	defer q.applyMu.Unlock()
	b, err := q.t.batch(ctx, id)
	if err != nil {
		return b, err
	}
	if b.State != protocol.BatchDone || b.Applied == 0 {
		return b, refuse(ErrState, protocol.ErrConflict, "the batch is %s with nothing applied, so it cannot be %s", b.State, verbOf(protocol.BatchUndone))
	}
	done := context.WithoutCancel(ctx)
	if err := q.undoAll(done, id); err != nil {
		q.t.setApplied(done, id, b.Applied, protocol.BatchDone, "undo stopped: "+err.Error())
		q.publish(done, id, "")
		return protocol.Batch{}, refuse(ErrState, protocol.ErrConflict, "the batch could not be undone whole: %v", err)
	}
	if err := q.t.setApplied(done, id, b.Applied, protocol.BatchUndone, ""); err != nil {
		return protocol.Batch{}, err
	}
	return q.publish(done, id, "")
}

// undoAll undoes the batch's applied changes that no undo reverted yet,
// newest first, through the note tools' undo (which refuses a note that
// changed since); each undo is recorded.
func (q *Queue) undoAll(ctx context.Context, id string) error {
	applied, err := q.t.changes(ctx, id, false)
	if err != nil {
		return err
	}
	undone, err := q.t.changes(ctx, id, true)
	if err != nil {
		return err
	}
	reverted := map[string]bool{}
	for _, c := range undone {
		reverted[c.Undoes] = true
	}
	undo := findTool(q.notes.Tools(q.t), "undo")
	if undo == nil {
		return refuse(ErrNoNotes, protocol.ErrConflict, "no notes folder is chosen; choose the one the batch changed in Settings")
	}
	for _, c := range slices.Backward(applied) {
		if reverted[c.ID] {
			continue
		}
		args, _ := json.Marshal(map[string]string{"changeId": c.ID})
		res, err := undo.Run(ctx, tool.Call{ID: "batch_" + q.newID(), Name: "undo", Arguments: args})
		if err != nil {
			return err
		}
		if res.Status != tool.Success {
			return fmt.Errorf("%s: %s", describe(c), strings.TrimSuffix(res.Content, "."))
		}
		if u, ok := notes.DecodeChange(res.Data); ok {
			if err := q.t.record(ctx, id, u, true); err != nil {
				return err
			}
		}
	}
	return nil
}

func describe(c notes.Change) string {
	if c.Kind == notes.KindMove {
		return fmt.Sprintf("moving %s back from %s", c.From, c.Path)
	}
	return fmt.Sprintf("%s on %s", c.Tool, path.Clean(c.Path))
}

// recoverApplying puts back a batch a stop caught while applying: what it
// had changed is undone, and it waits for review again.
func (q *Queue) recoverApplying(ctx context.Context) error {
	caught, err := q.t.batches(ctx, "b.state = ?", protocol.BatchMaxNotes, protocol.BatchApplying)
	if err != nil {
		return err
	}
	var errs []error
	for _, b := range caught {
		sentence := "Quire stopped while applying this batch; what it had changed was put back, so apply again"
		if err := q.undoAll(ctx, b.ID); err != nil {
			errs = append(errs, err)
			sentence = "Quire stopped while applying this batch, and putting back what it had changed failed: " + err.Error()
		}
		if err := q.t.setApplied(ctx, b.ID, 0, protocol.BatchReviewing, sentence); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
