package standing_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/standing"
	"quire/test/testkit"
)

// landings is a vault whose landing the test sets; every look is told on
// looked.
type landings struct {
	mu     sync.Mutex
	at     time.Time
	looked chan struct{}
}

func (l *landings) look(_ context.Context, folders []string) (standing.Vault, error) {
	l.mu.Lock()
	at := l.at
	l.mu.Unlock()
	v := standing.Vault{Count: map[string]int{}, Landed: map[string]time.Time{}}
	if !at.IsZero() {
		for _, f := range folders {
			v.Landed[f] = at
		}
	}
	l.looked <- struct{}{}
	return v, nil
}

// TestWakeFiresBeforeTheNextTick: the loop's interval is a day, so after
// its first look (nothing landed) only Wake makes it look again; woken
// once a note landed, it fires the "when a note lands" task at once.
func TestWakeFiresBeforeTheNextTick(t *testing.T) {
	l := &landings{looked: make(chan struct{}, 16)}
	w := newWorld(t, 2, standing.WithVault(l.look))
	task, err := w.St.Add(t.Context(), standing.Task{Name: "file what lands", Folder: "inbox", Schedule: standing.Schedule{Kind: standing.Lands}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Patience)
	stream := w.Q.Watch(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.R.Loop(ctx, 24*time.Hour)
	}()
	t.Cleanup(func() { cancel(); <-done })
	<-l.looked
	l.mu.Lock()
	l.at = w.Clock.Now().Add(time.Minute)
	l.mu.Unlock()
	w.R.Wake()
	var batch string
	for p := range stream {
		if p.Batch.State == protocol.BatchReviewing {
			batch = p.Batch.ID
			break
		}
	}
	if batch == "" {
		t.Fatal("woken, the loop never fired the task")
	}
	var proposed []event.StandingFiringPayload
	for _, p := range firings(t, w.K.Store) {
		if p.Step == event.FiringProposed {
			proposed = append(proposed, p)
		}
	}
	if len(proposed) != 1 || proposed[0].Task != task.ID || proposed[0].Batch != batch || proposed[0].Why != "a note landed in inbox" {
		t.Fatalf("the firings: %+v", proposed)
	}
}
