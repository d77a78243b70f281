package standing

import (
	"bytes"
	"encoding/json"
	"fmt"
	"quire/kernel/protocol"
	"strconv"
	"strings"
	"time"
)

// The kinds of schedule (Schedule.Kind).
const (
	Daily  = protocol.StandingDaily
	Weekly = protocol.StandingWeekly
	Over   = protocol.StandingOver
	Lands  = protocol.StandingLands
)

// Schedule is when a task fires. Times are the computer's local time.
type Schedule = protocol.StandingSchedule

// Budget bounds one firing. A worker may spend up to its own limits on each
// note, so the batch takes only as many notes as the worst case of their
// workers fits: the notes left wait for the next firing.
type Budget = protocol.StandingBudget

// DefaultBudget is a task's budget unless the user gives one.
var DefaultBudget = Budget{ModelCalls: 400, Tokens: 3_000_000, Notes: 50}

// PerNote is what one note's worker may spend at most (its run's limits).
type PerNote struct {
	ModelCalls int
	Tokens     int
}

// NotesWithin is how many notes a firing may take within b when each may
// cost per; at least 0.
func NotesWithin(b Budget, per PerNote) int {
	n := b.Notes
	if per.ModelCalls > 0 {
		n = min(n, b.ModelCalls/per.ModelCalls)
	}
	if per.Tokens > 0 {
		n = min(n, b.Tokens/per.Tokens)
	}
	return max(n, 0)
}

// Task is one standing task: an organise batch over Folder, with
// Instruction given to each worker, fired on Schedule. It has no field for
// applying what it proposes: that is the user's, in the batch's review.
type Task = protocol.StandingTask

// DecodeTask reads a task from JSON, refusing any field a Task does not
// have: "apply without asking" cannot be smuggled in.
func DecodeTask(data []byte) (Task, error) {
	var t Task
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&t); err != nil {
		return Task{}, protocol.Refusef(protocol.ErrBadPayload, ErrBadTask, "the task is not what a standing task holds: %v", err)
	}
	return t, nil
}

var weekdays = map[string]time.Weekday{"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday,
	"wednesday": time.Wednesday, "thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday}

// Check says what is wrong with t, as a sentence for the user, wrapped in
// ErrBadTask; nil when it can run.
func Check(t Task) error {
	bad := func(format string, args ...any) error {
		return protocol.Refusef(protocol.ErrBadPayload, ErrBadTask, format, args...)
	}
	if strings.TrimSpace(t.Name) == "" {
		return bad("give the task a name")
	}
	if strings.TrimSpace(t.Folder) == "" {
		return bad("say which folder the task organises, like inbox")
	}
	if NotesWithin(t.Budget, PerNote{}) < 1 || t.Budget.ModelCalls < 1 || t.Budget.Tokens < 1 {
		return bad("the budget must allow at least one note, one model call and one token")
	}
	s := t.Schedule
	switch s.Kind {
	case Daily, Weekly:
		if _, _, ok := clock(s.At); !ok {
			return bad("the time %q is not HH:MM, like 18:30", s.At)
		}
		if _, ok := weekdays[s.Weekday]; s.Kind == Weekly && !ok {
			return bad("the day %q is not a weekday, like monday", s.Weekday)
		}
	case Over:
		if s.More < 0 {
			return bad("the number of notes must be 0 or more")
		}
	case Lands:
	default:
		return bad("the schedule %q is not daily, weekly, over or lands", s.Kind)
	}
	return nil
}

// clock parses "HH:MM".
func clock(at string) (h, m int, ok bool) {
	hs, ms, found := strings.Cut(at, ":")
	h, err1 := strconv.Atoi(hs)
	m, err2 := strconv.Atoi(ms)
	if !found || err1 != nil || err2 != nil || len(ms) != 2 || h < 0 || h > 23 || m < 0 || m > 59 {
		return 0, 0, false
	}
	return h, m, true
}

// Describe is the schedule for people: "daily at 18:30".
func Describe(s Schedule) string {
	switch s.Kind {
	case Daily:
		return "daily at " + s.At
	case Weekly:
		return "every " + s.Weekday + " at " + s.At
	case Over:
		return fmt.Sprintf("when the folder holds more than %d notes", s.More)
	case Lands:
		return "when a note lands in the folder"
	}
	return s.Kind
}
