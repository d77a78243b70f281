package standing_test

import (
	"testing"
	"time"

	"quire/standing"
)

var zone = time.FixedZone("here", 2*3600)

func at(day, hh, mm int) time.Time { return time.Date(2026, 12, day, hh, mm, 0, 0, zone) }

func daily(id, hhmm string) standing.Task {
	return standing.Task{ID: id, Name: id, Folder: "inbox", Schedule: standing.Schedule{Kind: standing.Daily, At: hhmm},
		Budget: standing.DefaultBudget, CreatedMs: at(1, 0, 0).UnixMilli()}
}

// TestDueFiresWithAnInjectedClock: each kind of schedule fires at its
// moment and not before, a missed run fires once however many slots
// passed and says so, and a paused task or one with an open firing never
// fires.
func TestDueFiresWithAnInjectedClock(t *testing.T) {
	t.Parallel()
	weekly := daily("w", "09:00")
	weekly.Schedule = standing.Schedule{Kind: standing.Weekly, Weekday: "monday", At: "09:00"}
	over := daily("o", "")
	over.Schedule = standing.Schedule{Kind: standing.Over, More: 3}
	lands := daily("l", "")
	lands.Schedule = standing.Schedule{Kind: standing.Lands}
	paused := daily("p", "18:00")
	paused.Paused = true
	full := standing.Vault{Count: map[string]int{"inbox": 4}, Landed: map[string]time.Time{"inbox": at(5, 10, 0)}}
	for _, tc := range []struct {
		name   string
		task   standing.Task
		state  standing.State
		now    time.Time
		vault  standing.Vault
		fires  bool
		slot   time.Time
		missed int
		late   bool
	}{
		{"daily before its time", daily("d", "18:00"), standing.State{Last: at(4, 18, 0)}, at(5, 17, 59), standing.Vault{}, false, time.Time{}, 0, false},
		{"daily at its time", daily("d", "18:00"), standing.State{Last: at(4, 18, 0)}, at(5, 18, 0), standing.Vault{}, true, at(5, 18, 0), 1, false},
		{"daily once fired", daily("d", "18:00"), standing.State{Last: at(5, 18, 0)}, at(5, 18, 1), standing.Vault{}, false, time.Time{}, 0, false},
		{"daily missed one slot", daily("d", "18:00"), standing.State{Last: at(4, 18, 0)}, at(6, 8, 0), standing.Vault{}, true, at(5, 18, 0), 1, true},
		{"daily missed three slots fires once", daily("d", "18:00"), standing.State{Last: at(2, 18, 0)}, at(5, 20, 0), standing.Vault{}, true, at(5, 18, 0), 3, true},
		{"daily never fired counts from its creation", daily("d", "18:00"), standing.State{}, at(3, 19, 0), standing.Vault{}, true, at(3, 18, 0), 3, true},
		{"paused", paused, standing.State{Last: at(4, 18, 0)}, at(5, 18, 0), standing.Vault{}, false, time.Time{}, 0, false},
		{"open firing", daily("d", "18:00"), standing.State{Last: at(4, 18, 0), Open: true}, at(5, 18, 0), standing.Vault{}, false, time.Time{}, 0, false},
		{"weekly on another day", weekly, standing.State{Last: at(7, 9, 0)}, at(13, 9, 0), standing.Vault{}, false, time.Time{}, 0, false},
		{"weekly on its day", weekly, standing.State{Last: at(7, 9, 0)}, at(14, 9, 0), standing.Vault{}, true, at(14, 9, 0), 1, false},
		{"over with too few notes", over, standing.State{}, at(5, 10, 0), standing.Vault{Count: map[string]int{"inbox": 3}}, false, time.Time{}, 0, false},
		{"over with more notes", over, standing.State{}, at(5, 10, 0), full, true, at(5, 10, 0), 1, false},
		{"over within the cooldown", over, standing.State{Last: at(5, 9, 30)}, at(5, 10, 0), full, false, time.Time{}, 0, false},
		{"lands after the last firing", lands, standing.State{Last: at(5, 9, 0)}, at(5, 10, 1), full, true, at(5, 10, 0), 1, false},
		{"lands before the last firing", lands, standing.State{Last: at(5, 10, 0)}, at(5, 10, 1), full, false, time.Time{}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := standing.Due([]standing.Task{tc.task}, map[string]standing.State{tc.task.ID: tc.state}, tc.now, tc.vault)
			if !tc.fires {
				if len(got) != 0 {
					t.Fatalf("fired: %+v", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("fired %d times, want once", len(got))
			}
			f := got[0]
			if !f.Slot.Equal(tc.slot) || f.Missed != tc.missed || f.Late != tc.late || f.Task != tc.task.ID || f.Why == "" {
				t.Fatalf("fired %+v, want slot %v, missed %d, late %v", f, tc.slot, tc.missed, tc.late)
			}
		})
	}
}

// TestTaskCannotAskToApplyWithoutReview: a task read from JSON refuses any
// field a Task lacks, so no "apply without asking" can ride along.
func TestTaskCannotAskToApplyWithoutReview(t *testing.T) {
	t.Parallel()
	for _, field := range []string{`"autoApply":true`, `"apply":true`, `"approve":"always"`} {
		if _, err := standing.DecodeTask([]byte(`{"name":"x","folder":"inbox",` + field + `}`)); err == nil {
			t.Errorf("a task with %s was accepted", field)
		}
	}
	if _, err := standing.DecodeTask([]byte(`{"name":"x","folder":"inbox","schedule":{"kind":"lands"}}`)); err != nil {
		t.Fatalf("a plain task was refused: %v", err)
	}
}

func TestBudgetBoundsTheNotesOfAFiring(t *testing.T) {
	t.Parallel()
	per := standing.PerNote{ModelCalls: 8, Tokens: 60_000}
	for _, tc := range []struct {
		b    standing.Budget
		want int
	}{
		{standing.Budget{ModelCalls: 400, Tokens: 3_000_000, Notes: 50}, 50},
		{standing.Budget{ModelCalls: 80, Tokens: 3_000_000, Notes: 50}, 10},
		{standing.Budget{ModelCalls: 400, Tokens: 120_000, Notes: 50}, 2},
		{standing.Budget{ModelCalls: 400, Tokens: 3_000_000, Notes: 5}, 5},
		{standing.Budget{ModelCalls: 7, Tokens: 3_000_000, Notes: 5}, 0},
	} {
		if got := standing.NotesWithin(tc.b, per); got != tc.want {
			t.Errorf("%+v takes %d notes, want %d", tc.b, got, tc.want)
		}
	}
}
