package standing

import (
	"fmt"
	"time"
)

// State is what Due needs to know of a task's past: when its last firing
// that counts happened (its slot; zero for none: an interrupted firing does
// not count, so its slot is answered again) and whether one is still open
// (under way, or its batch not yet answered): one firing at a time.
type State struct {
	Last time.Time
	Open bool
}

// Vault is the notes folder as seen for the conditions: how many notes each
// task's folder holds, and when a note last landed in it.
type Vault struct {
	Count  map[string]int
	Landed map[string]time.Time
}

// Firing is a task that is due: Slot is the moment it answers (the newest
// scheduled time, or the condition's observation); Missed, when above 1,
// counts the slots a closed Quire let pass, all answered by this one
// firing; Late says the slot passed more than Grace before now. Why says it
// for people.
type Firing struct {
	Task   string
	Slot   time.Time
	Missed int
	Late   bool
	Why    string
}

// Grace is how late a slot may fire and still count as on time: the runner
// looks once a minute.
const Grace = 2 * time.Minute

// Cooldown is the least time between two firings of a condition ("more
// than N notes"): a folder that stays full asks once, not every minute.
const Cooldown = time.Hour

// maxCounted bounds the count of missed slots, so a task left for years
// costs no more to check than one left for three years.
const maxCounted = 1000

// Due says which tasks fire at now, in the order of tasks: never a paused
// one nor one whose last firing is open. A task fires for its newest slot
// after its last firing (or its creation); however many slots passed, it
// fires once, and says so. It is pure: the same arguments give the same
// answer.
func Due(tasks []Task, states map[string]State, now time.Time, v Vault) []Firing {
	var out []Firing
	for _, t := range tasks {
		st := states[t.ID]
		if t.Paused || st.Open {
			continue
		}
		since := time.UnixMilli(t.CreatedMs).In(now.Location())
		if st.Last.After(since) {
			since = st.Last
		}
		if f, ok := due(t, since, st.Last, now, v); ok {
			f.Task = t.ID
			out = append(out, f)
		}
	}
	return out
}

func due(t Task, since, last, now time.Time, v Vault) (Firing, bool) {
	s := t.Schedule
	switch s.Kind {
	case Daily, Weekly:
		step := 1
		if s.Kind == Weekly {
			step = 7
		}
		slot, ok := newestSlot(s, now)
		if !ok || !slot.After(since) {
			return Firing{}, false
		}
		n := 1
		for p := slot.AddDate(0, 0, -step); p.After(since) && n < maxCounted; p = p.AddDate(0, 0, -step) {
			n++
		}
		f := Firing{Slot: slot, Missed: n, Late: now.Sub(slot) > Grace}
		switch {
		case n > 1:
			f.Why = fmt.Sprintf("%d runs (%s) were missed while Quire was closed; they run once now", n, Describe(s))
		case f.Late:
			f.Why = fmt.Sprintf("the run of %s was missed while Quire was closed; it runs now", slot.Format("Mon 2 Jan 15:04"))
		default:
			f.Why = "it is " + Describe(s)
		}
		return f, true
	case Over:
		n := v.Count[t.Folder]
		if n <= s.More || (!last.IsZero() && now.Sub(last) < Cooldown) {
			return Firing{}, false
		}
		return Firing{Slot: now, Missed: 1, Why: fmt.Sprintf("%s holds %d notes, more than %d", t.Folder, n, s.More)}, true
	case Lands:
		at, ok := v.Landed[t.Folder]
		if !ok || !at.After(since) {
			return Firing{}, false
		}
		return Firing{Slot: at, Missed: 1, Why: "a note landed in " + t.Folder}, true
	}
	return Firing{}, false
}

// newestSlot is the newest scheduled time at or before now.
func newestSlot(s Schedule, now time.Time) (time.Time, bool) {
	h, m, ok := clock(s.At)
	if !ok {
		return time.Time{}, false
	}
	slot := time.Date(now.Year(), now.Month(), now.Day(), h, m, 0, 0, now.Location())
	if slot.After(now) {
		slot = slot.AddDate(0, 0, -1)
	}
	if s.Kind == Weekly {
		wd, ok := weekdays[s.Weekday]
		if !ok {
			return time.Time{}, false
		}
		back := (int(slot.Weekday()) - int(wd) + 7) % 7
		slot = slot.AddDate(0, 0, -back)
	}
	return slot, true
}

// Next is the task's next scheduled time after now, for people; false for
// a condition (it has none).
func Next(t Task, now time.Time) (time.Time, bool) {
	s := t.Schedule
	if s.Kind != Daily && s.Kind != Weekly {
		return time.Time{}, false
	}
	slot, ok := newestSlot(s, now)
	if !ok {
		return time.Time{}, false
	}
	if s.Kind == Weekly {
		return slot.AddDate(0, 0, 7), true
	}
	return slot.AddDate(0, 0, 1), true
}
