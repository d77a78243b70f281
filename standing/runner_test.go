package standing_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"quire/host"
	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/standing"
	"quire/test/ollamatest"
)

func newWorld(t *testing.T, notes int, opts ...standing.RunnerOption) *world {
	t.Helper()
	fake := ollamatest.New(t, fileUnder())
	fake.AddModel(ollamatest.DefaultModel())
	dir := t.TempDir()
	inbox(t, dir, notes)
	return openWorld(t, fake, filepath.Join(t.TempDir(), "quire.db"), dir, at(1, 0, 0), opts...)
}

func addDaily(t *testing.T, w *world, hhmm string) standing.Task {
	t.Helper()
	task, err := w.St.Add(t.Context(), standing.Task{Name: "file the inbox", Folder: "inbox", Instruction: "projects go under projects/",
		Schedule: standing.Schedule{Kind: standing.Daily, At: hhmm}})
	if err != nil {
		t.Fatal(err)
	}
	return task
}

// TestFiringsBatchWaitsForTheYes: a task fires at its time (an injected
// clock), its batch proposes and waits for the review with every note
// where it was, no second firing starts while it waits, and the notes move
// only on the user's yes, through the same Apply as a batch the user
// started. Every step is an event.
func TestFiringsBatchWaitsForTheYes(t *testing.T) {
	w := newWorld(t, 3)
	task := addDaily(t, w, "18:00")
	w.Clock.Set(at(1, 17, 59))
	if got, err := w.R.Tick(t.Context()); err != nil || len(got) != 0 {
		t.Fatalf("fired before its time: %+v %v", got, err)
	}
	w.Clock.Set(at(1, 18, 0))
	got, err := w.R.Tick(t.Context())
	if err != nil || len(got) != 1 || got[0].Step != event.FiringProposed || got[0].Task != task.ID {
		t.Fatalf("at its time: %+v %v", got, err)
	}
	until(t, w.Q, got[0].Batch, protocol.BatchReviewing)
	before := []string{"inbox/n00.md", "inbox/n01.md", "inbox/n02.md"}
	if f := files(t, w.Dir); !slices.Equal(f, before) {
		t.Fatalf("the firing changed the notes before the review: %v", f)
	}
	w.Clock.Set(at(2, 18, 0))
	if again, err := w.R.Tick(t.Context()); err != nil || len(again) != 0 {
		t.Fatalf("fired again while its batch waits: %+v %v", again, err)
	}
	sum, err := w.R.Get(t.Context(), task.ID)
	if err != nil || !sum.Waiting || sum.Proposed != 3 || sum.Kept != 0 {
		t.Fatalf("summary while waiting: %+v %v", sum, err)
	}
	r, err := w.Q.Get(t.Context(), got[0].Batch)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Q.Apply(t.Context(), got[0].Batch, protocol.BatchDecision{Items: r.Items}); err != nil {
		t.Fatal(err)
	}
	until(t, w.Q, got[0].Batch, protocol.BatchDone)
	if f := files(t, w.Dir); !slices.Equal(f, []string{"projects/n00.md", "projects/n01.md", "projects/n02.md"}) {
		t.Fatalf("after the yes: %v", f)
	}
	if sum, _ := w.R.Get(t.Context(), task.ID); sum.Kept != 3 || sum.Waiting {
		t.Fatalf("summary after the yes: %+v", sum)
	}
	var steps []string
	for _, p := range firings(t, w.K.Store) {
		steps = append(steps, p.Step)
	}
	if !slices.Equal(steps, []string{event.FiringStarted, event.FiringProposed}) {
		t.Fatalf("the log holds %v", steps)
	}
}

// TestMissedFiringRunsOnceAfterRestart: slots that pass while Quire is
// closed fire once at the next start, saying how many they were.
func TestMissedFiringRunsOnceAfterRestart(t *testing.T) {
	fake := ollamatest.New(t, fileUnder())
	fake.AddModel(ollamatest.DefaultModel())
	dir, db := t.TempDir(), filepath.Join(t.TempDir(), "quire.db")
	inbox(t, dir, 2)
	first := openWorld(t, fake, db, dir, at(1, 0, 0))
	addDaily(t, first, "18:00")
	first.Q.Close()
	first.K.Close(t)

	w := openWorld(t, fake, db, dir, at(4, 20, 0))
	if err := w.R.Recover(t.Context()); err != nil {
		t.Fatal(err)
	}
	got, err := w.R.Tick(t.Context())
	if err != nil || len(got) != 1 {
		t.Fatalf("after the restart: %+v %v", got, err)
	}
	if got[0].Missed != 4 || !strings.Contains(got[0].Why, "missed") || got[0].SlotMs != at(4, 18, 0).UnixMilli() {
		t.Fatalf("the missed firing: %+v", got[0])
	}
	if again, _ := w.R.Tick(t.Context()); len(again) != 0 {
		t.Fatalf("fired once per slot: %+v", again)
	}
}

// TestPausedTaskDoesNotFire: a paused task never fires; resumed, it
// fires for the slot it is at.
func TestPausedTaskDoesNotFire(t *testing.T) {
	w := newWorld(t, 1)
	task := addDaily(t, w, "18:00")
	if _, err := w.St.SetPaused(t.Context(), task.ID, true); err != nil {
		t.Fatal(err)
	}
	w.Clock.Set(at(3, 18, 0))
	if got, err := w.R.Tick(t.Context()); err != nil || len(got) != 0 {
		t.Fatalf("a paused task fired: %+v %v", got, err)
	}
	if _, err := w.St.SetPaused(t.Context(), task.ID, false); err != nil {
		t.Fatal(err)
	}
	if got, err := w.R.Tick(t.Context()); err != nil || len(got) != 1 {
		t.Fatalf("the resumed task: %+v %v", got, err)
	}
}

type chatting bool

func (c chatting) Chatting() bool { return bool(c) }

// TestBoundsHoldFiringsBack: no firing while the user chats or on a
// battery below the threshold (read from a sysfs folder); the hold is
// told once and the task fires when the bound lifts.
func TestBoundsHoldFiringsBack(t *testing.T) {
	sys := t.TempDir()
	for name, files := range map[string]map[string]string{
		"AC":   {"type": "Mains", "online": "0"},
		"BAT0": {"type": "Battery", "capacity": "15", "status": "Discharging"},
	} {
		for f, v := range files {
			if err := os.MkdirAll(filepath.Join(sys, name), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(sys, name, f), []byte(v+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tc := range []struct {
		name  string
		opts  []standing.RunnerOption
		fires bool
	}{
		{"chatting", []standing.RunnerOption{standing.WithChat(chatting(true))}, false},
		{"not chatting", []standing.RunnerOption{standing.WithChat(chatting(false))}, true},
		{"battery below the threshold", []standing.RunnerOption{standing.WithPower(standing.SysPower{Dir: sys}, func() int { return 20 })}, false},
		{"battery above the threshold", []standing.RunnerOption{standing.WithPower(standing.SysPower{Dir: sys}, func() int { return 10 })}, true},
		{"no battery known", []standing.RunnerOption{standing.WithPower(standing.SysPower{Dir: filepath.Join(sys, "none")}, func() int { return 20 })}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, 1, tc.opts...)
			task := addDaily(t, w, "18:00")
			w.Clock.Set(at(1, 18, 0))
			for i := range 2 {
				got, err := w.R.Tick(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				// A firing is made once: a held one is tried again, an
				// open one is not.
				if (tc.fires && i == 0) != (len(got) == 1) {
					t.Fatalf("tick %d fired %+v", i, got)
				}
			}
			recs, err := w.St.Firings(t.Context(), task.ID, 10)
			if err != nil || len(recs) != 1 {
				t.Fatalf("firings stored: %+v %v", recs, err)
			}
			if want := map[bool]string{true: event.FiringProposed, false: event.FiringSkipped}[tc.fires]; recs[0].Step != want {
				t.Fatalf("stored %+v, want step %s", recs[0], want)
			}
		})
	}
}

// TestProposerCannotApply: the one port through which a standing task
// acts has no method that applies, answers or decides a batch.
func TestProposerCannotApply(t *testing.T) {
	typ := reflect.TypeFor[standing.Proposer]()
	var names []string
	for i := range typ.NumMethod() {
		names = append(names, typ.Method(i).Name)
	}
	if !slices.Equal(names, []string{"Batch", "Propose"}) {
		t.Fatalf("standing.Proposer has %v: a standing task may only propose", names)
	}
	for i := range reflect.TypeFor[standing.Task]().NumField() {
		if f := reflect.TypeFor[standing.Task]().Field(i); strings.Contains(strings.ToLower(f.Name), "apply") {
			t.Fatalf("standing.Task has a field %s", f.Name)
		}
	}
}

// TestRunNowFiresAPausedTaskOnceAtATime: the user's run-now fires even a
// paused task, but not while its last batch waits.
func TestRunNowFiresAPausedTaskOnceAtATime(t *testing.T) {
	w := newWorld(t, 2)
	task := addDaily(t, w, "18:00")
	if _, err := w.St.SetPaused(t.Context(), task.ID, true); err != nil {
		t.Fatal(err)
	}
	rec, err := w.R.RunNow(t.Context(), task.ID)
	if err != nil || rec.Step != event.FiringProposed {
		t.Fatalf("run now: %+v %v", rec, err)
	}
	until(t, w.Q, rec.Batch, protocol.BatchReviewing)
	if _, err := w.R.RunNow(context.WithoutCancel(t.Context()), task.ID); err == nil {
		t.Fatal("a second run started while the batch waits")
	}
}

var _ host.Standing = (*standing.Runner)(nil)

// TestAHeldConditionIsToldOnce: a condition held back by a bound is seen
// anew at every tick; its hold is stored and logged once, not every
// minute, until it fires.
func TestAHeldConditionIsToldOnce(t *testing.T) {
	full := func(context.Context, []string) (standing.Vault, error) {
		return standing.Vault{Count: map[string]int{"inbox": 5}}, nil
	}
	w := newWorld(t, 1, standing.WithChat(chatting(true)), standing.WithVault(full))
	task, err := w.St.Add(t.Context(), standing.Task{Name: "over", Folder: "inbox", Schedule: standing.Schedule{Kind: standing.Over, More: 2}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		w.Clock.Set(at(1, 10, i))
		if got, err := w.R.Tick(t.Context()); err != nil || len(got) != 0 {
			t.Fatalf("tick %d: %+v %v", i, got, err)
		}
	}
	recs, err := w.St.Firings(t.Context(), task.ID, 10)
	if err != nil || len(recs) != 1 || recs[0].Step != event.FiringSkipped {
		t.Fatalf("stored %+v %v, want one hold", recs, err)
	}
}
