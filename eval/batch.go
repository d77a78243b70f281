package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"quire/kernel/event"
	"quire/kernel/protocol"
)

// organise is the user's organise action: a batch over the folder, its one
// review answered as the scenario says, and the batch and its workers'
// logs kept for the checks.
func (p *played) organise(ctx context.Context, inst Instance, a Action) error {
	if inst.Batches == nil {
		return fmt.Errorf("organise: this Quire has no task queue")
	}
	return p.review(ctx, inst, a, func() (protocol.Batch, error) { return inst.Batches.Start(ctx, a.Organise) })
}

// standing is the user's standing action: the task is added and fired
// now; its batch only proposes, and waits for the one answer as any.
func (p *played) standing(ctx context.Context, inst Instance, a Action) error {
	if inst.Standing == nil || inst.Batches == nil {
		return fmt.Errorf("standing: this Quire has no standing tasks")
	}
	s := a.Standing
	sum, err := inst.Standing.Add(ctx, protocol.StandingTask{Name: s.Name, Folder: s.Folder, Instruction: s.Instruction,
		Schedule: protocol.StandingSchedule{Kind: protocol.StandingLands}})
	if err != nil {
		return err
	}
	return p.review(ctx, inst, a, func() (protocol.Batch, error) {
		f, err := inst.Standing.RunNow(ctx, sum.Task.ID)
		if err != nil {
			return protocol.Batch{}, err
		}
		r, err := inst.Batches.Get(ctx, f.Batch)
		return r.Batch, err
	})
}

// review starts a batch, waits for its review and gives the one answer.
func (p *played) review(ctx context.Context, inst Instance, a Action, start func() (protocol.Batch, error)) error {
	watch, stop := context.WithCancel(ctx)
	defer stop()
	stream := inst.Batches.Watch(watch)
	b, err := start()
	if err != nil {
		return err
	}
	for b.State == protocol.BatchRunning || b.State == protocol.BatchPaused {
		pr, ok := <-stream
		if !ok {
			return fmt.Errorf("organise: the batch was still %s when the scenario's time ran out", b.State)
		}
		if pr.Batch.ID == b.ID {
			b = pr.Batch
		}
	}
	review, err := inst.Batches.Get(ctx, b.ID)
	if err != nil {
		return err
	}
	answer := a.Review
	if answer == nil {
		answer = &Review{}
	}
	switch {
	case review.Batch.State != protocol.BatchReviewing:
	case answer.None:
		_, err = inst.Batches.Cancel(ctx, b.ID)
	default:
		items := slices.Clone(review.Items)
		for i := range items {
			items[i].Selected = !slices.Contains(answer.Reject, items[i].From)
			if to, ok := answer.Move[items[i].From]; ok {
				items[i].To = to
			}
		}
		_, err = inst.Batches.Apply(ctx, b.ID, protocol.BatchDecision{Items: items})
	}
	final, gerr := inst.Batches.Get(context.WithoutCancel(ctx), b.ID)
	if gerr == nil {
		p.batch = &final
		for _, k := range final.Tasks {
			if k.Session == "" {
				continue
			}
			evs, lerr := inst.Kernel.Events(context.WithoutCancel(ctx), k.Session, 0)
			if lerr != nil {
				return fmt.Errorf("organise: reading the worker's log of %s: %w", k.Note, lerr)
			}
			p.workerEvents = append(p.workerEvents, evs...)
		}
	}
	return err
}

// checkBatch is the batch's checks, and the invariants of its workers'
// logs: no write without the user's yes, every run closed once.
func (p *played) checkBatch(bc *BatchCheck) []string {
	var fails []string
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	fails = append(fails, undecodable(p.workerEvents)...)
	fails = append(fails, unapprovedWrites(p.workerEvents)...)
	fails = append(fails, unapprovedMemory(p.workerEvents)...)
	fails = append(fails, unclosedRuns(p.workerEvents)...)
	if bc == nil {
		return fails
	}
	if p.batch == nil {
		return append(fails, "expected a batch, and no organise action ran one")
	}
	b := p.batch.Batch
	if bc.State != "" && b.State != bc.State {
		fail("the batch ended %s (%s), expected %s", b.State, b.Error, bc.State)
	}
	for _, c := range []struct {
		what    string
		want    *int
		got     int
		ofBatch bool
	}{{"done", bc.Done, b.Done, true}, {"failed", bc.Failed, b.Failed, true}, {"applied", bc.Applied, b.Applied, true}} {
		if c.want != nil && *c.want != c.got {
			fail("the batch has %d %s, expected %d", c.got, c.what, *c.want)
		}
	}
	var reasons []string
	for _, k := range p.batch.Tasks {
		if k.State == protocol.TaskFailed {
			reasons = append(reasons, k.Note+": "+k.Error)
		}
	}
	for _, want := range bc.Errors {
		if !slices.ContainsFunc(reasons, func(r string) bool { return strings.Contains(r, want) }) {
			fail("no failed task says %q (failures: %q)", want, reasons)
		}
	}
	for _, want := range bc.Told {
		told := 0
		for _, e := range p.workerEvents {
			var m event.UserMessagePayload
			if e.Type == string(event.UserMessage) && json.Unmarshal(e.Payload, &m) == nil && strings.Contains(m.Text, want) {
				told++
			}
		}
		if told != len(p.batch.Tasks) {
			fail("%d of the %d workers were told %q", told, len(p.batch.Tasks), want)
		}
	}
	for _, e := range p.workerEvents {
		if e.Type != string(event.InputReceived) {
			continue
		}
		var in event.InputReceivedPayload
		if json.Unmarshal(e.Payload, &in) != nil || in.Caps == nil {
			continue
		}
		for _, d := range in.Caps.Tools {
			if slices.Contains(bc.NotOffered, d.Name) {
				fail("a worker was offered %s", d.Name)
			}
		}
	}
	return fails
}
