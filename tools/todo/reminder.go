package todo

import (
	"context"
	"strings"

	"quire/kernel/event"
)

// reminderLead starts every reminder, so the log says which inputs were one.
const reminderLead = "Your plan still has "

// Log is what the plan reminder reads of a session's log (kernel/store is one).
type Log interface {
	EventsOfType(ctx context.Context, session string, typ event.Type) ([]event.Event, error)
}

// PlanReminder is the pre-close checkpoint hook (runtime.CheckpointHook):
// when the session's latest plan still has open items, the run gets one
// more step with a reminder — once per run, so a model that will not finish
// cannot loop on it. "Once" is read from the log: the run's checkpoint.done
// events carry the texts a hook added, so a run that already has the
// reminder among them gets no second one. Nothing is kept in memory.
func PlanReminder(log Log) func(ctx context.Context, session, runID string) ([]string, error) {
	return func(ctx context.Context, session, runID string) ([]string, error) {
		done, err := log.EventsOfType(ctx, session, event.CheckpointDone)
		if err != nil {
			return nil, err
		}
		for _, e := range done {
			if e.RunID != runID {
				continue
			}
			p, err := event.As[event.CheckpointDonePayload](e)
			if err != nil {
				return nil, err
			}
			for _, in := range p.Inputs {
				if strings.HasPrefix(in.Text, reminderLead) {
					return nil, nil
				}
			}
		}
		results, err := log.EventsOfType(ctx, session, event.ToolResult)
		if err != nil {
			return nil, err
		}
		for i := len(results) - 1; i >= 0; i-- {
			r, err := event.As[event.ToolResultPayload](results[i])
			if err != nil || r.Name != "update_todos" {
				continue
			}
			plan, ok := DecodePlan(r.Data)
			if !ok {
				return nil, nil
			}
			if text := Reminder(plan); text != "" {
				return []string{text}, nil
			}
			return nil, nil
		}
		return nil, nil
	}
}
